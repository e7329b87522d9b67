#pragma once
// Chart axes, one rule for the window and the HTML report: tick steps from
// the 1-2-5 series, and where a time axis starts. A storm whose decisions
// begin late (the boundary burst at 59 s of 61 s) is drawn from its first
// decision, so its point fills the plot; one that begins within the first
// tenth of its span keeps 0.

#include <vector>

namespace rl {

/// The tick step from 1, 2 or 5 x 10^k that splits `range` into at most about `ticks` parts.
double niceStep(double range, int ticks);

/// Ticks k·s, (k+1)·s, ... (s = niceStep), the first <= `min` and the last >= `max`.
std::vector<double> niceTicks(double min, double max, int most);

/// Where a time axis over [0, spanSeconds] starts when the first decision is at `firstSeconds`.
double axisStartSeconds(double firstSeconds, double spanSeconds);

}  // namespace rl
