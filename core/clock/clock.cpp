#include "clock/clock.hpp"

#include <chrono>

namespace rl {

Micros SystemClock::now() const {
  return std::chrono::duration_cast<Micros>(std::chrono::system_clock::now().time_since_epoch());
}

Micros VirtualClock::advanceTo(Micros t) {
  std::int64_t cur = now_.load(std::memory_order_acquire);
  while (t.count() > cur &&
         !now_.compare_exchange_weak(cur, t.count(), std::memory_order_acq_rel)) {
  }
  return Micros{std::max(cur, t.count())};
}

}  // namespace rl
