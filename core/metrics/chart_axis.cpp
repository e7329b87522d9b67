#include "metrics/chart_axis.hpp"

#include <algorithm>
#include <cmath>

namespace rl {

double niceStep(double range, int ticks) {
  const double raw = range / std::max(ticks, 1);
  const double decade = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0})
    if (decade * m >= raw) return decade * m;
  return decade * 10;
}

std::vector<double> niceTicks(double min, double max, int most) {
  if (!std::isfinite(min) || !std::isfinite(max) || !(max > min)) return {min, min + 1};
  const double step = niceStep(max - min, most);
  std::vector<double> ticks;
  for (double i = std::floor(min / step + 1e-9); ticks.empty() || ticks.back() < max - step * 1e-9; ++i) ticks.push_back(step * i);
  return ticks;
}

double axisStartSeconds(double firstSeconds, double spanSeconds) {
  return firstSeconds > 0.1 * spanSeconds && firstSeconds < spanSeconds ? firstSeconds : 0;
}

}  // namespace rl
