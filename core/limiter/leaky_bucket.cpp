#include "limiter/leaky_bucket.hpp"

#include <algorithm>

#include "limiter/quota_change.hpp"

namespace rl {

std::int64_t drainAtUnder(const LeakyBucketState& s, std::int64_t now, std::int64_t iv) {
  if (s.fresh || s.drainAt <= now) return now;
  return now + rescaleInterval(s.drainAt - now, s.interval, iv);
}

Step decide(LeakyBucketState& s, Micros now, std::int64_t cost, const Quota& q) {
  const std::int64_t iv = q.interval().count();
  const std::int64_t t = now.count();
  const std::int64_t start = drainAtUnder(s, t, iv);
  const std::int64_t wait = start - t;
  const std::int64_t need = wait + (cost - 1) * iv;
  const std::int64_t room = (q.limit - 1) * iv;  // one in service, limit - 1 waiting

  Step out;
  Decision& d = out.decision;
  d.limit = q.limit;
  std::int64_t backlog = wait;  // queued work ahead of the next arrival, in us
  if (need <= room) {
    s = {false, start + cost * iv, iv};
    backlog = s.drainAt - t;
    d.allowed = true;
    d.delay = Micros{wait};
    out.wrote = true;
  } else {
    d.retryAfter = Micros{need - room};
  }
  // Further cost-1 requests that fit: the k-th next one waits backlog + k * I,
  // admitted while that is <= room.
  d.remaining = backlog > room ? 0 : (room - backlog) / iv + 1;
  d.resetAfter = Micros{backlog};
  d.level = static_cast<double>(backlog) / static_cast<double>(iv);
  out.ttl = d.resetAfter;
  return out;
}

}  // namespace rl
