#pragma once
// Decimation for charts: a series of many points becomes about two points
// per pixel column (the column's min and max, in time order), so a chart
// shows every spike and calls QXYSeries::replace() with a few thousand
// points at most.

#include <span>
#include <vector>

namespace rl {

/// One chart point (x: time, y: value).
struct ChartPoint {
  double x = 0;  ///< usually seconds since the run's start
  double y = 0;  ///< the value
};

/// Points of `sortedByX` within [x0, x1] reduced to the min and max of each of
/// `columns` equal columns, in x order (one point when min == max).
/// Returns the input unchanged when it already has <= 2 x columns points.
std::vector<ChartPoint> decimateMinMax(std::span<const ChartPoint> sortedByX, double x0, double x1, int columns);

}  // namespace rl
