// go-redis/redis_rate (GCRA), from its documented format (the Go library is not
// run here; tests write the same keys with their own GCRA script):
//   key    rate:<key> (the Limiter's prefix, "rate:" by default)
//   value  the theoretical arrival time (TAT) in float seconds since
//          2017-01-01 00:00:00 UTC, SET with EX ceil(TAT - now)
//   Limit{Rate, Burst, Period}: emission interval T = Period / Rate; a request
//   is allowed while TAT - now <= Burst x T (after adding its own T). The
//   library's Remaining = floor((now - (TAT - Burst x T)) / T + 0.5), its
//   ResetAfter = TAT - now. The key does not hold Rate or Burst: they come from
//   KeyAssumptions.
#include <cmath>
#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "common/duration_text.hpp"
#include "common/number_text.hpp"
#include "keys/key_reading.hpp"

namespace rl::detail {

namespace {
constexpr double kJan2017 = 1483228800.0;  // the library's epoch, unix seconds
}

std::optional<KeyReading> readRedisRateKey(const KeyInfo& key, const ReadContext& context) {
  const std::int64_t nowUs = context.nowUs;
  const KeyAssumptions& assume = context.assume;
  if (key.type != "string" || !key.name.starts_with("rate:")) return std::nullopt;
  char* end = nullptr;
  const double tat = std::strtod(key.value.c_str(), &end);
  if (key.value.empty() || end != key.value.c_str() + key.value.size() || !std::isfinite(tat)) return std::nullopt;
  const double now = static_cast<double>(nowUs) / 1e6 - kJan2017;
  const double ahead = std::max(0.0, tat - now);
  KeyReading r;
  r.library = "go-redis/redis_rate";
  r.algorithm = "gcra";
  r.resetMs = std::llround(ahead * 1000);
  r.resetsByExpiry = false;
  r.prefix = "rate:";
  r.words = "redis_rate GCRA: the theoretical arrival time is " + durationText(*r.resetMs) + " ahead (full again then)";
  if (assume.ratePerSecond && assume.burst) {
    const double interval = 1.0 / *assume.ratePerSecond;
    const double burst = static_cast<double>(*assume.burst);
    const auto remaining = static_cast<std::int64_t>(
        std::clamp(std::floor((now - (std::max(tat, now) - burst * interval)) / interval + 0.5), 0.0, burst));
    r.limit = *assume.burst;
    r.used = *assume.burst - remaining;
    r.ttlBoundMs = std::llround(std::ceil(burst * interval) * 1000);  // EX ceil(TAT - now) <= ceil(burst x T)
    r.assumed = "Rate and burst are the assumed ones (the key holds only the TAT).";
    r.words += "; at the assumed " + numberText(*assume.ratePerSecond) + " req/s (burst " + std::to_string(*assume.burst) + "): " +
               std::to_string(*r.used) + " used, " + std::to_string(remaining) + " left.";
  } else {
    r.words += "; the key does not say its rate and burst.";
    r.needs = "rate=10/s burst=20";
  }
  return r;
}

}  // namespace rl::detail
