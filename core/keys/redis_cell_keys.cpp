// redis-cell (brandur/redis-cell, the CL.THROTTLE module command), from its
// documented layout (the module is not loaded here; tests write the same keys):
//   CL.THROTTLE <key> <max_burst> <count per period> <period s> [<quantity>]
//   key    the name the caller gives, no prefix of its own
//   value  GCRA's theoretical arrival time (TAT), integer nanoseconds since the
//          epoch, SET with a TTL of TAT - now (the key is gone once full again)
//   The limit is max_burst + 1; the emission interval T = period / count. Neither
//   is in the key: KeyAssumptions supplies them (rate=count/period, burst=max_burst
//   or limit=max_burst+1).
#include <algorithm>
#include <cmath>

#include "common/duration_text.hpp"
#include "common/number_text.hpp"
#include "keys/key_reading.hpp"

namespace rl::detail {

std::optional<KeyReading> readRedisCellKey(const KeyInfo& key, const ReadContext& context) {
  if (key.type != "string" || key.value.size() < 18) return std::nullopt;
  const auto tatNs = wholeNumber(key.value);
  if (!tatNs || timestampUnitUs(static_cast<double>(*tatNs) / 1000.0, context.nowUs) != 1) return std::nullopt;
  const double aheadUs = std::max(0.0, static_cast<double>(*tatNs) / 1000.0 - static_cast<double>(context.nowUs));
  KeyReading r;
  r.library = "redis-cell";
  r.algorithm = "gcra";
  r.prefix = key.name.substr(0, key.name.find(':') == std::string::npos ? 0 : key.name.find(':') + 1);
  r.resetsByExpiry = false;
  r.resetMs = std::llround(aheadUs / 1000.0);
  r.assumed = "An integer of nanoseconds near now is taken for redis-cell's TAT; max_burst, count and period are not in the key.";
  r.words = "redis-cell GCRA: the theoretical arrival time is " + durationText(*r.resetMs) + " ahead (full again then)";
  const KeyAssumptions& a = context.assume;
  const auto limit = a.limit ? a.limit : a.burst ? std::optional<std::int64_t>(*a.burst + 1) : std::nullopt;
  if (a.ratePerSecond && limit) {
    const double intervalUs = 1e6 / *a.ratePerSecond;
    r.limit = *limit;
    r.used = std::clamp<std::int64_t>(static_cast<std::int64_t>(std::ceil(aheadUs / intervalUs - 1e-9)), 0, *limit);
    r.ttlBoundMs = std::llround(static_cast<double>(*limit) * intervalUs / 1000.0);
    r.words += "; at the assumed " + numberText(*a.ratePerSecond) + " req/s (limit " + std::to_string(*limit) + "): " +
               std::to_string(*r.used) + " used, " + std::to_string(*limit - *r.used) + " left";
  } else {
    r.needs = "rate=R/s burst=N";
  }
  r.words += ".";
  return r;
}

}  // namespace rl::detail
