#include "limiter/token_bucket.hpp"

#include <algorithm>

#include "limiter/quota_change.hpp"

namespace rl {

std::int64_t fullAtUnder(const TokenBucketState& s, std::int64_t now, std::int64_t iv, std::int64_t limit) {
  if (s.fullAt <= now) return now;  // full (or fresh): as full as a fresh key under any quota
  const bool same = (s.interval == 0 || s.interval == iv) && (s.limit == 0 || s.limit == limit);
  if (same) return s.fullAt;
  const std::int64_t oldIv = s.interval > 0 ? s.interval : iv;
  const std::int64_t oldCap = (s.limit > 0 ? s.limit : limit) * oldIv;
  const std::int64_t held = std::max<std::int64_t>(0, oldCap - (s.fullAt - now));  // tokens x old interval
  const std::int64_t kept = std::min(rescaleInterval(held, oldIv, iv), limit * iv);
  return now + limit * iv - kept;
}

Step decide(TokenBucketState& s, Micros now, std::int64_t cost, const Quota& q) {
  const std::int64_t iv = q.interval().count();
  const std::int64_t t = now.count();
  const std::int64_t base = fullAtUnder(s, t, iv, q.limit);
  const std::int64_t capacity = q.limit * iv;  // a full bucket, in us of refill

  Step out;
  Decision& d = out.decision;
  d.limit = q.limit;
  std::int64_t missing = base - t;  // us of refill until full: (limit - tokens) * I - carried
  if (base + cost * iv - t <= capacity) {
    s = {base + cost * iv, iv, q.limit};
    missing = s.fullAt - t;
    d.allowed = true;
    out.wrote = true;
  } else {
    d.retryAfter = Micros{base + cost * iv - t - capacity};
  }
  const std::int64_t held = std::max<std::int64_t>(0, capacity - missing);  // < 0 only behind the state
  d.remaining = held / iv;
  d.resetAfter = Micros{missing};
  d.level = static_cast<double>(held) / static_cast<double>(iv);
  out.ttl = d.resetAfter;
  return out;
}

}  // namespace rl
