#include "limiter/token_bucket.hpp"

#include <algorithm>

namespace rl {

Step decide(TokenBucketState& s, Micros now, std::int64_t cost, const Quota& q) {
  const std::int64_t iv = q.interval().count();
  const std::int64_t t = now.count();
  const std::int64_t cap = q.limit;
  if (s.fresh) s = {false, cap, t};
  if (t > s.refilledAt) {
    const std::int64_t n = (t - s.refilledAt) / iv;
    if (n >= cap - s.tokens) {
      s.tokens = cap;
      s.refilledAt = t;
    } else {
      s.tokens += n;
      s.refilledAt += n * iv;
    }
  }

  Step out;
  Decision& d = out.decision;
  d.limit = cap;
  const std::int64_t carried = t - s.refilledAt;  // negative if this clock is behind the state
  if (s.tokens >= cost) {
    s.tokens -= cost;
    d.allowed = true;
    out.wrote = true;
  } else {
    d.retryAfter = Micros{(cost - s.tokens) * iv - carried};
  }
  d.remaining = s.tokens;
  d.resetAfter = Micros{std::max<std::int64_t>(0, (cap - s.tokens) * iv - carried)};
  d.level = std::min(static_cast<double>(cap),
                     static_cast<double>(s.tokens) +
                         static_cast<double>(std::max<std::int64_t>(0, carried)) /
                             static_cast<double>(iv));
  out.ttl = d.resetAfter;
  return out;
}

}  // namespace rl
