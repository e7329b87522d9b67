#pragma once
// The tune report's heatmap: one algorithm's sweep as SVG, from the same
// layout and colour scale the window's Tune panel paints (tune/tune_cells).
// One <rect class="cell"> per grid point, its <title> the quota and what it
// denies; cells not computed (a cancelled sweep) are grey; a line follows
// the target's contour; the recommended cell is ringed; a colour bar on the
// right is the legend, with the target, a hundredth of it and ten times it.

#include <string>

#include "tune/tune_sweep.hpp"

namespace rl {

/// `algorithm`'s points of `result` against `target` as one <svg class="chart heatmap">; `width` in px.
std::string renderTuneHeatmap(const TuneResult& result, Algorithm algorithm, double target, int width = 960);

}  // namespace rl
