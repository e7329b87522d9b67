#include "limiter/gcra.hpp"

#include <algorithm>

namespace rl {

Step decide(GcraState& s, Micros now, std::int64_t cost, const Quota& q) {
  const std::int64_t iv = q.interval().count();
  const std::int64_t t = now.count();
  const std::int64_t base = s.fresh ? t : std::max(s.tat, t);
  const std::int64_t newTat = base + cost * iv;
  const std::int64_t tolerance = q.limit * iv;

  Step out;
  Decision& d = out.decision;
  d.limit = q.limit;
  std::int64_t ahead = base - t;  // how far the TAT runs ahead of now, in us
  if (newTat - t <= tolerance) {
    s = {false, newTat};
    ahead = newTat - t;
    d.allowed = true;
    out.wrote = true;
  } else {
    d.retryAfter = Micros{newTat - t - tolerance};
  }
  const std::int64_t room = std::max<std::int64_t>(0, tolerance - ahead);  // < 0 only under clock skew
  d.remaining = room / iv;
  d.resetAfter = Micros{ahead};
  d.level = static_cast<double>(room) / static_cast<double>(iv);
  out.ttl = d.resetAfter;
  return out;
}

}  // namespace rl
