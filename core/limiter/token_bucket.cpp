#include "limiter/token_bucket.hpp"

#include <algorithm>

namespace rl {

Step decide(TokenBucketState& s, Micros now, std::int64_t cost, const Quota& q) {
  const std::int64_t iv = q.interval().count();
  const std::int64_t t = now.count();
  const std::int64_t base = s.fresh ? t : std::max(s.fullAt, t);
  const std::int64_t capacity = q.limit * iv;  // a full bucket, in us of refill

  Step out;
  Decision& d = out.decision;
  d.limit = q.limit;
  std::int64_t missing = base - t;  // us of refill until full: (limit - tokens) * I - carried
  if (base + cost * iv - t <= capacity) {
    s = {false, base + cost * iv};
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
