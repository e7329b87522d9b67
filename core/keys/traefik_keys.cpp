// Traefik's RateLimit middleware with its Redis store (Traefik v3.4+), from its
// documented layout and Lua script (Traefik is not run here; tests write the
// same keys):
//   key    rate:<middleware>:<source>   (the source: an IP, a header value, a host)
//   value  a HASH: last = the time of the last request in us since the epoch,
//          tokens = the tokens left after it (a float; below 0 while requests wait);
//          HSET last, tokens then EXPIRE ttl, where ttl = 1 + (average >= 1/s ? 1 :
//          1 / average) seconds: an idle source's key expires and comes back full.
// The refill rate (average / period) and the burst are in the middleware's
// config, not in the key: KeyAssumptions supplies them (rate=, burst= or limit=).
#include <algorithm>
#include <cmath>

#include "common/duration_text.hpp"
#include "common/number_text.hpp"
#include "keys/key_reading.hpp"

namespace rl::detail {

std::optional<KeyReading> readTraefikKey(const KeyInfo& key, const ReadContext& context) {
  if (key.type != "hash" || !key.name.starts_with("rate:") || key.fields.size() != 2) return std::nullopt;
  const auto last = decimalNumber(fieldOf(key, "last").value_or(""));
  const auto tokens = decimalNumber(fieldOf(key, "tokens").value_or(""));
  if (!last || !tokens || timestampUnitUs(*last, context.nowUs) != 1) return std::nullopt;
  const std::string rest = key.name.substr(5);
  const auto colon = rest.find(':');
  KeyReading r;
  r.library = "Traefik";
  r.algorithm = "token_bucket";
  r.prefix = "rate:";
  r.resetsByExpiry = false;
  r.assumed = "The middleware's average, period and burst are not in the key; 'last' is read in us.";
  const double sinceS = std::max(0.0, (static_cast<double>(context.nowUs) - *last) / 1e6);
  r.words = "Traefik rate limit" + (colon == std::string::npos ? std::string() : ", middleware " + rest.substr(0, colon)) +
            ", source " + (colon == std::string::npos ? rest : rest.substr(colon + 1)) + ": " + numberText(*tokens) +
            " tokens left at the last request, " + durationText(std::llround(sinceS * 1000)) + " ago";
  const KeyAssumptions& a = context.assume;
  const auto burst = a.burst ? a.burst : a.limit;
  if (a.ratePerSecond && burst) {
    const double cap = static_cast<double>(*burst);
    const double now = std::min(cap, *tokens + sinceS * *a.ratePerSecond);
    r.limit = *burst;
    r.used = *burst - static_cast<std::int64_t>(std::floor(std::max(0.0, now)));
    r.resetMs = std::llround((cap - now) / *a.ratePerSecond * 1000.0);
    r.ttlBoundMs = (1 + (*a.ratePerSecond >= 1 ? 1 : static_cast<std::int64_t>(1 / *a.ratePerSecond))) * 1000;
    r.words += "; " + numberText(std::floor(now)) + " of " + std::to_string(*burst) + " now, full in " + durationText(*r.resetMs);
  } else {
    r.needs = "rate=R/s burst=N";
  }
  r.words += "; " + resetWords("the key", "expires", key.pttlMs) + ".";
  return r;
}

}  // namespace rl::detail
