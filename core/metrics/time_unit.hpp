#pragma once
// The unit of a chart's time axis, chosen from the span drawn: seconds for a
// real-time storm, milliseconds or microseconds for a virtual-clock burst, so
// a burst of 1 ms is drawn across the axis, not as a line at 0 on a
// 0.0000 ... 0.0009 s axis. A burst faster than one decision per microsecond
// is drawn by decision number. The window's lanes and the HTML report both
// choose here.

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace rl {

/// A time unit for an axis.
struct AxisUnit {
  double perSecond = 1;   ///< axis units per second (1, 1e3 or 1e6)
  std::string_view unit;  ///< "s", "ms", "\u00b5s", or "decision" (decisionAxisUnit)
};

/// The unit that shows `spanSeconds` with whole-number ticks: s from 2 s, ms from 2 ms, else \u00b5s.
AxisUnit axisUnitFor(double spanSeconds);
/// Decisions drawn by number: x arrives as number / 1e6 (one decision per "\u00b5s").
AxisUnit decisionAxisUnit();
/// Whether `decisions` in one lane, the last at `lastUs`, come faster than one per
/// microsecond, so time cannot tell them apart and they are drawn by number.
bool drawnByDecision(std::int64_t lastUs, std::size_t decisions);

}  // namespace rl
