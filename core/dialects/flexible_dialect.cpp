// rate-limiter-flexible: `new RateLimiterRedis({ points, duration, ... })`;
// defaults points 4 and duration 1 s. A key's points reset `duration` seconds
// after its first consume: a fixed window opened by the client's first
// request. blockDuration and execEvenly are named, not modeled.
#include <cmath>

#include "dialects/dialect_detail.hpp"
#include "dialects/dialect_text.hpp"
#include "dialects/js_options.hpp"

namespace rl::dialect {

namespace {
constexpr std::string_view kName = "rate-limiter-flexible";

Result<double> seconds(const JsOption& o) {
  auto v = decimalNumber(o.value);
  if (!v) {
    if (auto p = productOfNumbers(o.value)) v = static_cast<double>(*p);
  }
  if (!v) return tokenError(kName, o.key + ": " + o.value, "a number of seconds");
  return *v;
}
}  // namespace

Result<std::vector<DialectQuota>> parseFlexible(std::string_view text) {
  auto options = jsOptions(kName, text);
  if (!options) return options.error();
  std::int64_t points = 4;
  double duration = 1;
  DialectQuota d;
  const std::string callee = jsCallee(text);
  d.name = callee.empty() ? "limiter" : callee.substr(callee.rfind(' ') == std::string::npos ? 0 : callee.rfind(' ') + 1);
  if (!d.name.empty() && d.name.back() == '(') d.name.pop_back();
  for (const JsOption& o : options.value()) {
    if (o.key == "points") {
      auto v = productOfNumbers(o.value);
      if (!v || *v < 1) return tokenError(kName, "points: " + o.value, "a whole number >= 1");
      points = *v;
    } else if (o.key == "duration") {
      auto v = seconds(o);
      if (!v) return v.error();
      if (v.value() <= 0 || std::abs(v.value() * 1000 - std::round(v.value() * 1000)) > 1e-6)
        return tokenError(kName, "duration: " + o.value, "seconds > 0 in whole milliseconds (0, never reset, can't be modeled)");
      duration = v.value();
    } else if (o.key == "blockDuration") {
      auto v = seconds(o);
      if (!v) return v.error();
      if (v.value() > 0)
        d.unmodeled.push_back("blockDuration: " + o.value + ": a client over the limit is denied for " + o.value +
                              " s; RateLab denies only until the window ends");
    } else if (o.key == "execEvenly") {
      if (o.value == "true")
        d.unmodeled.push_back("execEvenly: true: admitted requests are delayed to spread them over the window; "
                              "RateLab answers at once");
    } else if (o.key == "storeClient" || o.key == "keyPrefix" || o.key == "tableName" || o.key == "dbName") {
      d.notes.push_back(o.key + ": " + o.value + ": where points live, not the decision");
    } else {
      d.unmodeled.push_back(o.key + ": " + o.value + ": an option RateLab does not model");
    }
  }
  d.algorithm = Algorithm::FixedWindow;
  d.quota = Quota::perWindow(points, Micros{std::llround(duration * 1000) * 1000});
  d.notes.push_back("a key's window opens at its first consume (points reset duration later); RateLab's "
                    "fixed_window aligns windows to the clock");
  if (auto ok = checkQuota(kName, "points: " + std::to_string(points), d.algorithm, d.quota); !ok) return ok.error();
  return std::vector<DialectQuota>{d};
}

Emitted emitFlexible(Algorithm a, const Quota& q) {
  Emitted e;
  const double windowS = windowSeconds(a, q);
  if (isRateBased(a)) {
    e.differences.push_back(windowVersusRate(a, "rate-limiter-flexible"));
  } else if (a != Algorithm::FixedWindow) {
    e.differences.push_back(std::string(algorithmName(a)) + " slides its window; rate-limiter-flexible resets it");
  }
  const auto duration = std::max<std::int64_t>(1, std::llround(windowS));
  if (std::abs(windowS - static_cast<double>(duration)) > 1e-9)
    e.differences.push_back("duration is whole seconds: " + std::to_string(q.limit) + " per " + std::to_string(duration) +
                            " s, not per " + windowPhrase(Micros{std::llround(windowS * 1e6)}));
  e.differences.push_back("rate-limiter-flexible opens each key's window at its first consume, not at clock-aligned "
                          "boundaries");
  e.text = "// const { RateLimiterMemory } = require('rate-limiter-flexible') (or RateLimiterRedis with storeClient)\n"
           "const limiter = new RateLimiterMemory({\n  points: " + std::to_string(q.limit) + ",\n  duration: " +
           std::to_string(duration) + ", // seconds\n});\n";
  return e;
}

}  // namespace rl::dialect
