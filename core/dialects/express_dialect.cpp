// express-rate-limit (7 and 8): `rateLimit({ windowMs, limit })` (`max` is the
// old name of `limit`); defaults windowMs 60000 and limit 5. Its MemoryStore
// counts per client in a fixed window opened by the client's first request
// after the last window ended: RateLab's fixed_window, not aligned to the clock.
#include <cmath>

#include "dialects/dialect_detail.hpp"
#include "dialects/dialect_text.hpp"
#include "dialects/js_options.hpp"

namespace rl::dialect {

namespace {
constexpr std::string_view kName = "express-rate-limit";

std::string classify(const JsOption& o) {
  const std::string& k = o.key;
  if (k == "skip" || k == "skipSuccessfulRequests" || k == "skipFailedRequests" || k == "requestWasSuccessful")
    return "!" + k + ": " + o.value + ": changes which requests count; RateLab counts every request";
  if (k == "store") return k + ": " + o.value + ": where counts live; RateLab models one counter per client";
  if (k == "keyGenerator" || k == "ipv6Subnet") return k + ": the client key; RateLab keys per client";
  if (k == "standardHeaders" || k == "legacyHeaders" || k == "message" || k == "statusCode" || k == "handler" ||
      k == "identifier" || k == "requestPropertyName" || k == "validate" || k == "passOnStoreError")
    return k + ": " + o.value + ": the response, not the decision";
  return "!" + k + ": " + o.value + ": an option RateLab does not know";
}
}  // namespace

Result<std::vector<DialectQuota>> parseExpress(std::string_view text) {
  auto options = jsOptions(kName, text);
  if (!options) return options.error();
  std::int64_t windowMs = 60'000, limit = 5;
  DialectQuota d;
  d.name = "rateLimit";
  bool sawLimit = false;
  for (const JsOption& o : options.value()) {
    if (o.key == "windowMs") {
      auto v = productOfNumbers(o.value);
      if (!v || *v < 1) return tokenError(kName, "windowMs: " + o.value, "a number of milliseconds >= 1 (or a product like 15 * 60 * 1000)");
      windowMs = *v;
    } else if (o.key == "limit" || o.key == "max") {
      auto v = productOfNumbers(o.value);
      if (!v || *v < 1) return tokenError(kName, o.key + ": " + o.value, "a whole number >= 1 (a function can't be read)");
      if (o.key == "max" && sawLimit) continue;  // limit wins over its old name
      limit = *v;
      sawLimit = sawLimit || o.key == "limit";
    } else if (auto line = classify(o); line[0] == '!') {
      d.unmodeled.push_back(line.substr(1));
    } else {
      d.notes.push_back(line);
    }
  }
  d.algorithm = Algorithm::FixedWindow;
  d.quota = Quota::perWindow(limit, Micros{windowMs * 1000});
  d.notes.push_back("each client's window opens at its first request after the last one ended (MemoryStore); "
                    "RateLab's fixed_window aligns windows to the clock");
  if (auto ok = checkQuota(kName, "windowMs: " + std::to_string(windowMs), d.algorithm, d.quota); !ok) return ok.error();
  return std::vector<DialectQuota>{d};
}

Emitted emitExpress(Algorithm a, const Quota& q) {
  Emitted e;
  const std::int64_t windowMs = std::max<std::int64_t>(1, std::llround(windowSeconds(a, q) * 1000));
  if (isRateBased(a)) {
    e.differences.push_back(windowVersusRate(a, "express-rate-limit"));
  } else if (a != Algorithm::FixedWindow) {
    e.differences.push_back(std::string(algorithmName(a)) + " slides its window; express-rate-limit resets it: up "
                            "to twice the limit across a reset");
  }
  e.differences.push_back("express-rate-limit opens each client's window at its first request, not at clock-aligned "
                          "boundaries");
  e.text = "// import { rateLimit } from 'express-rate-limit'\nconst limiter = rateLimit({\n  windowMs: " +
           std::to_string(windowMs) + ", // " + windowPhrase(Micros{windowMs * 1000}) + "\n  limit: " +
           std::to_string(q.limit) + ",\n  standardHeaders: 'draft-8',\n  legacyHeaders: false,\n});\n";
  return e;
}

}  // namespace rl::dialect
