#include "limiter/fixed_window.hpp"

namespace rl {

Step decide(FixedWindowState& s, Micros now, std::int64_t cost, const Quota& q) {
  const std::int64_t w = q.window.count();
  const std::int64_t start = floorDiv(now.count(), w) * w;
  if (s.windowStart != start) s = {start, 0};
  const Micros untilEnd{start + w - now.count()};

  Step out;
  Decision& d = out.decision;
  d.limit = q.limit;
  if (s.count + cost <= q.limit) {
    s.count += cost;
    d.allowed = true;
    out.wrote = true;
    out.ttl = untilEnd;
  } else {
    d.retryAfter = untilEnd;  // cost <= limit, so the next window admits it
  }
  d.remaining = q.limit - s.count;
  d.resetAfter = s.count > 0 ? untilEnd : Micros{0};
  d.level = static_cast<double>(s.count);
  return out;
}

}  // namespace rl
