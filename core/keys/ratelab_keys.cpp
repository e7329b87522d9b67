// RateLab's own keys: <prefix>{<algorithm>:<client>}[:<window start us>]
// (core/store/store.hpp, resources/lua/*.lua), every one a string. Every write sets PEXPIRE to the
// time until the key is as good as new, so the PTTL is the reset time. Bucket
// keys hold the quota they were written under (keys/value_codec.hpp), so
// their tokens and queue are counted from the key itself; the other keys hold
// neither the limit nor the refill rate: KeyAssumptions supplies them
// (limit=10 rate=1/s) to say "7 used of 10".
#include <cmath>

#include "common/duration_text.hpp"
#include "limiter/algorithm.hpp"
#include "keys/key_reading.hpp"
#include "keys/value_codec.hpp"

namespace rl::detail {

namespace {
std::optional<Algorithm> algorithmOf(std::string_view name) {
  for (std::size_t open = name.find('{'); open != std::string_view::npos; open = name.find('{', open + 1)) {
    const auto colon = name.find(':', open);
    if (colon == std::string_view::npos) return std::nullopt;
    if (auto a = parseAlgorithm(name.substr(open + 1, colon - open - 1));
        a && name.find('}', colon) != std::string_view::npos)
      return a;
  }
  return std::nullopt;
}

// Requests' worth of time in `ms` at the assumed rate: ceil(ms / interval).
std::optional<std::int64_t> intervalsIn(std::int64_t ms, const KeyAssumptions& a) {
  if (!a.ratePerSecond) return std::nullopt;
  const double interval = 1000.0 / *a.ratePerSecond;
  return static_cast<std::int64_t>(std::ceil(static_cast<double>(ms) / interval - 1e-9));
}

std::string ofLimit(const std::optional<std::int64_t>& limit) {
  return limit ? " of " + std::to_string(*limit) : std::string();
}

// A bucket key's own quota, where it holds one, over the assumed one.
KeyAssumptions bucketQuota(const BucketValue& v, KeyAssumptions a) {
  if (v.interval > 0) a.ratePerSecond = 1e6 / static_cast<double>(v.interval);
  if (v.limit > 0) a.limit = v.limit;
  return a;
}

void readBucket(KeyReading& r, const KeyAssumptions& a, std::int64_t reset, std::int64_t pttl) {
  const std::string noTtl = pttl == -1 ? " (the key has no TTL)" : "";
  if (r.algorithm == "token_bucket") {  // the key lives until the bucket is full again
    const auto missing = intervalsIn(reset, a);
    std::optional<std::int64_t> tokens;
    if (a.limit && missing) tokens = std::max<std::int64_t>(0, *a.limit - *missing);
    if (tokens) r.used = *a.limit - *tokens;
    r.words = (tokens ? std::to_string(*tokens) : std::string("?")) + " tokens" + ofLimit(a.limit) + ", full in " +
              durationText(reset) + noTtl;
    if (!tokens) r.needs = "limit=N rate=R/s";
  } else if (r.algorithm == "leaky_bucket") {
    r.used = intervalsIn(reset, a);
    r.words = "queue drains in " + durationText(reset) + noTtl +
              (r.used ? ": " + std::to_string(*r.used) + ofLimit(a.limit) + " places taken" : std::string());
    if (!r.used) r.needs = "rate=R/s";
  } else {  // gcra
    r.used = intervalsIn(reset, a);
    r.words = "theoretical arrival time " + durationText(reset) + " ahead" + noTtl +
              (r.used ? ": " + std::to_string(*r.used) + ofLimit(a.limit) + " of the burst used" : std::string());
    if (!r.used) r.needs = "rate=R/s limit=N";
  }
}
}  // namespace

std::optional<KeyReading> readRateLabKey(const KeyInfo& k, const ReadContext& context) {
  const KeyAssumptions& a = context.assume;
  const auto algorithm = algorithmOf(k.name);
  if (!algorithm) return std::nullopt;
  KeyReading r;
  r.library = "RateLab";
  r.prefix = k.name.substr(0, k.name.find('{'));
  r.algorithm = std::string(algorithmName(*algorithm));
  r.limit = a.limit;
  const std::int64_t reset = std::max<std::int64_t>(0, k.pttlMs);
  r.resetMs = reset;
  switch (*algorithm) {
    case Algorithm::FixedWindow:
    case Algorithm::SlidingCounter:
      r.used = wholeNumber(k.value);
      if (!r.used || k.type != "string") return std::nullopt;
      r.words = std::to_string(*r.used) + ofLimit(a.limit) + " used in this window; " +
                resetWords("the key", "expires", k.pttlMs);
      r.ttlBoundMs = a.windowMs;
      break;
    case Algorithm::SlidingLog:  // a string of 17-byte entries; key_inspector decoded its count
      if (k.type != "string") return std::nullopt;
      r.used = k.value.empty() ? std::optional<std::int64_t>(0) : wholeNumber(fieldOf(k, "entries").value_or(""));
      if (!r.used) return std::nullopt;
      r.words = std::to_string(*r.used) + ofLimit(a.limit) + " requests logged; " +
                resetWords("the log", "empties", k.pttlMs);
      break;
    case Algorithm::TokenBucket:  // "full at:interval:limit" / "drained at:interval"
    case Algorithm::LeakyBucket: {
      auto v = decodeBucketValue(k.value, r.algorithm);
      if (k.type != "string" || !v) return std::nullopt;
      const KeyAssumptions own = bucketQuota(*v, a);
      r.limit = own.limit;
      readBucket(r, own, reset, k.pttlMs);
      if (own.limit && own.ratePerSecond) r.ttlBoundMs = std::llround(static_cast<double>(*own.limit) * 1000.0 / *own.ratePerSecond);
      break;
    }
    case Algorithm::Gcra:  // one integer: the theoretical arrival time
      if (k.type != "string" || !wholeNumber(k.value)) return std::nullopt;
      readBucket(r, a, reset, k.pttlMs);
      if (a.limit && a.ratePerSecond) r.ttlBoundMs = std::llround(static_cast<double>(*a.limit) * 1000.0 / *a.ratePerSecond);
      break;
  }
  if (*algorithm == Algorithm::SlidingLog) r.ttlBoundMs = a.windowMs;
  if (r.limit && r.limit == a.limit && *algorithm != Algorithm::TokenBucket && *algorithm != Algorithm::LeakyBucket)
    r.assumed = "The limit is the assumed one (the key does not hold it).";
  if (!r.limit && r.needs.empty()) r.needs = "limit=N";
  r.words += ".";
  return r;
}

}  // namespace rl::detail
