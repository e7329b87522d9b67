#include "limiter/sliding_counter.hpp"

namespace rl {

namespace {
__extension__ using i128 = __int128;  // GCC/Clang: exact products of limit and window

// Smallest elapsed time e' in a window where prev * (W - e') <= room * W,
// with room >= 0 and prev > 0: e' = W - floor(room * W / prev) (W when room * W < prev).
std::int64_t firstAdmittingOffset(std::int64_t prev, std::int64_t room, std::int64_t w) {
  const i128 slack = static_cast<i128>(room) * w / prev;
  return slack >= w ? 0 : w - static_cast<std::int64_t>(slack);
}
}  // namespace

double slidingEstimate(std::int64_t previous, std::int64_t current, Micros elapsed, Micros window) {
  return static_cast<double>(previous) * static_cast<double>(window.count() - elapsed.count()) /
             static_cast<double>(window.count()) +
         static_cast<double>(current);
}

Step decide(SlidingCounterState& s, Micros now, std::int64_t cost, const Quota& q) {
  const std::int64_t w = q.window.count();
  const std::int64_t start = floorDiv(now.count(), w) * w;
  if (s.windowStart != start) {
    s = {start, s.windowStart == start - w ? s.current : 0, 0};
  }
  const std::int64_t e = now.count() - start;
  const i128 weightedPrev = static_cast<i128>(s.previous) * (w - e);
  const i128 capacity = static_cast<i128>(q.limit) * w;

  Step out;
  Decision& d = out.decision;
  d.limit = q.limit;
  if (weightedPrev + static_cast<i128>(s.current + cost) * w <= capacity) {
    s.current += cost;
    d.allowed = true;
    out.wrote = true;
  } else if (s.current + cost <= q.limit) {
    // Later in this window the previous count's weight shrinks enough (or the
    // next window starts, where prev' = curr and curr + cost <= limit).
    d.retryAfter = Micros{firstAdmittingOffset(s.previous, q.limit - s.current - cost, w) - e};
  } else {
    // Needs the next window: prev' = curr, curr' = 0.
    d.retryAfter = Micros{(w - e) + firstAdmittingOffset(s.current, q.limit - cost, w)};
  }
  const i128 used = static_cast<i128>(s.previous) * (w - e) + static_cast<i128>(s.current) * w;
  const i128 room = capacity - used;
  d.remaining = room <= 0 ? 0 : static_cast<std::int64_t>(room / w);
  d.resetAfter = s.current > 0    ? Micros{2 * w - e}
                 : s.previous > 0 ? Micros{w - e}
                                  : Micros{0};
  d.level = slidingEstimate(s.previous, s.current, Micros{e}, q.window);
  out.ttl = d.resetAfter;
  return out;
}

}  // namespace rl
