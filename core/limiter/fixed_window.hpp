#pragma once
// Fixed window: one counter per window aligned to the clock (start = now - now mod W).
//
// Admits while count + cost <= limit; a denial waits for the next window.
// Two bursts either side of a boundary pass 2 x limit within one window's length.
// Redis shape: one string per window, `<key>:<window start us>`, INCRBY + PEXPIRE.

#include <cstdint>

#include "limiter/quota.hpp"
#include "limiter/step.hpp"

namespace rl {

/// Fixed-window state of one key.
struct FixedWindowState {
  std::int64_t windowStart = 0;  ///< start of the counted window (us since epoch)
  std::int64_t count = 0;        ///< cost admitted in that window
};

/// One decision; updates `s` in place and reads nothing else (no clock, no I/O).
Step decide(FixedWindowState& s, Micros now, std::int64_t cost, const Quota& q);

}  // namespace rl
