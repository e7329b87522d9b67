#include "tune/tune_cells.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "common/number_text.hpp"

namespace rl {

namespace {
double secondAxis(const Quota& q, bool refill) {
  return refill ? q.refillPerSecond.value_or(q.ratePerSecond()) : static_cast<double>(q.window.count()) / 1e6;
}

template <class T>
std::size_t indexOf(const std::vector<T>& v, T x) {
  return static_cast<std::size_t>(std::lower_bound(v.begin(), v.end(), x) - v.begin());
}

constexpr Rgb kGreen{46, 160, 67}, kYellow{240, 200, 40}, kRed{215, 58, 73};
}  // namespace

std::optional<std::size_t> TuneCells::at(int row, int col) const {
  if (row < 0 || col < 0 || row >= static_cast<int>(rows.size()) || col >= static_cast<int>(cols.size())) return std::nullopt;
  return cells[static_cast<std::size_t>(row) * cols.size() + static_cast<std::size_t>(col)];
}

std::optional<std::pair<int, int>> TuneCells::find(std::size_t index) const {
  for (std::size_t k = 0; k < cells.size(); ++k)
    if (cells[k] == index) return std::pair{static_cast<int>(k / cols.size()), static_cast<int>(k % cols.size())};
  return std::nullopt;
}

TuneCells tuneCells(const TuneResult& result, Algorithm algorithm, double target) {
  TuneCells g;
  const auto& pts = result.points;
  g.refillAxis = std::any_of(pts.begin(), pts.end(), [&](const TunePoint& p) {
    return p.algorithm == algorithm && p.quota.refillPerSecond.has_value();
  });
  for (const TunePoint& p : pts) {
    if (p.algorithm != algorithm) continue;
    g.rows.push_back(p.quota.limit);
    g.cols.push_back(secondAxis(p.quota, g.refillAxis));
  }
  std::sort(g.rows.begin(), g.rows.end());
  g.rows.erase(std::unique(g.rows.begin(), g.rows.end()), g.rows.end());
  std::sort(g.cols.begin(), g.cols.end());
  g.cols.erase(std::unique(g.cols.begin(), g.cols.end()), g.cols.end());
  g.cells.assign(g.rows.size() * g.cols.size(), std::nullopt);
  for (std::size_t i = 0; i < pts.size(); ++i) {
    if (pts[i].algorithm != algorithm || !pts[i].computed) continue;
    g.cells[indexOf(g.rows, pts[i].quota.limit) * g.cols.size() + indexOf(g.cols, secondAxis(pts[i].quota, g.refillAxis))] = i;
  }
  g.recommended = recommend(result, algorithm, target);
  return g;
}

std::vector<ContourEdge> targetContour(const TuneCells& g, const TuneResult& result, double target) {
  const auto meets = [&](int r, int c) {  // computed, and denying at most `target` of legitimate requests
    const auto i = g.at(r, c);
    return i && result.points[*i].legitDeniedShare() <= target;
  };
  const int rows = static_cast<int>(g.rows.size()), cols = static_cast<int>(g.cols.size());
  using Side = ContourEdge::Side;
  std::vector<ContourEdge> out;
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) {
      if (!meets(r, c)) continue;
      if (c > 0 && !meets(r, c - 1)) out.push_back({r, c, Side::Left});
      if (c + 1 < cols && !meets(r, c + 1)) out.push_back({r, c, Side::Right});
      if (r > 0 && !meets(r - 1, c)) out.push_back({r, c, Side::Bottom});
      if (r + 1 < rows && !meets(r + 1, c)) out.push_back({r, c, Side::Top});
    }
  return out;
}

std::string rowWords(const TuneCells& g, int row) {
  const std::string n = std::to_string(g.rows[static_cast<std::size_t>(row)]);
  return g.refillAxis ? "burst " + n : n + " req";
}

std::string columnWords(const TuneCells& g, int col) {
  const std::string v = numberText(g.cols[static_cast<std::size_t>(col)]);
  return g.refillAxis ? v + " req/s" : "per " + v + " s";
}

std::string axisWords(const TuneCells& g, double target) {
  return (g.refillAxis ? "refill rate (req/s); rows: burst" : "window; rows: limit per window") +
         std::string(". Ring: recommended; line: target ") + numberText(100.0 * target) + "%";
}

double deniedScale(double share, double target) {
  if (share <= 0) return 0;
  return std::clamp((std::log10(share / std::max(target, 1e-9)) + 2.0) / 3.0, 0.0, 1.0);
}

Rgb scaleColour(double t) {
  const bool low = t < 2.0 / 3;
  const Rgb a = low ? kGreen : kYellow, b = low ? kYellow : kRed;
  const double u = low ? t * 1.5 : (t - 2.0 / 3) * 3;
  const auto mix = [u](int x, int y) { return static_cast<int>(std::lround(x + (y - x) * u)); };
  return {mix(a.r, b.r), mix(a.g, b.g), mix(a.b, b.b)};
}

std::array<ScaleMark, 3> scaleMarks(double target) {
  const auto pct = [](double share) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g%%", 100.0 * share);
    return std::string(buf);
  };
  return {{{10 * target, "\u2265 " + pct(10 * target)}, {target, pct(target) + " target"}, {target / 100, "\u2264 " + pct(target / 100)}}};
}

Rgb deniedColour(double share, double target) { return scaleColour(deniedScale(share, target)); }

}  // namespace rl
