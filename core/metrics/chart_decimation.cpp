#include "metrics/chart_decimation.hpp"

#include <algorithm>

namespace rl {

std::vector<ChartPoint> decimateMinMax(std::span<const ChartPoint> pts, double x0, double x1, int columns) {
  auto first = std::lower_bound(pts.begin(), pts.end(), x0, [](const ChartPoint& p, double x) { return p.x < x; });
  auto last = std::upper_bound(first, pts.end(), x1, [](double x, const ChartPoint& p) { return x < p.x; });
  const auto n = static_cast<std::size_t>(last - first);
  if (columns < 1 || x1 <= x0 || n <= 2 * static_cast<std::size_t>(columns)) return {first, last};
  std::vector<ChartPoint> out;
  out.reserve(2 * static_cast<std::size_t>(columns));
  const double width = (x1 - x0) / columns;
  auto columnOf = [&](const ChartPoint& p) { return std::clamp(static_cast<int>((p.x - x0) / width), 0, columns - 1); };
  auto it = first;
  while (it != last) {
    const int col = columnOf(*it);
    auto lo = it, hi = it;
    for (; it != last && columnOf(*it) == col; ++it) {  // x is sorted: the column never decreases
      if (it->y < lo->y) lo = it;
      if (it->y > hi->y) hi = it;
    }
    if (lo == hi) {
      out.push_back(*lo);
    } else {
      out.push_back(lo->x <= hi->x ? *lo : *hi);
      out.push_back(lo->x <= hi->x ? *hi : *lo);
    }
  }
  return out;
}

}  // namespace rl
