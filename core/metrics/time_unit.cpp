#include "metrics/time_unit.hpp"

#include <algorithm>

namespace rl {

AxisUnit axisUnitFor(double spanSeconds) {
  if (spanSeconds >= 2.0) return {1, "s"};
  if (spanSeconds >= 2e-3) return {1e3, "ms"};
  return {1e6, "\u00b5s"};
}

AxisUnit decisionAxisUnit() { return {1e6, "decision"}; }

bool drawnByDecision(std::int64_t lastUs, std::size_t decisions) {
  return decisions > 1 && static_cast<std::size_t>(std::max<std::int64_t>(lastUs, 0)) < decisions;
}

}  // namespace rl
