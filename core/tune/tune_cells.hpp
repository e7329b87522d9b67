#pragma once
// One algorithm's sweep laid out as a heatmap, and the heatmap's colour
// scale: the window's Tune panel paints it with QPainter and the tune report
// writes it as SVG, from this one layout, so both show the same cells in the
// same colours. Rows are limits (burst / capacity), ascending; columns the
// second axis (refill rate, or window in seconds), ascending. A cell's colour
// is the share of legitimate requests denied on a log scale around the
// target: green at a hundredth of it (or none), yellow at the target, red at
// ten times it or more.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tune/tune_sweep.hpp"

namespace rl {

/// The grid of one algorithm's points; see the file comment.
struct TuneCells {
  bool refillAxis = false;                        ///< columns are refill rates (else windows, in s)
  std::vector<std::int64_t> rows;                 ///< limits, ascending
  std::vector<double> cols;                       ///< refill rates or window seconds, ascending
  std::vector<std::optional<std::size_t>> cells;  ///< the computed point's index per (row, col), row-major
  std::optional<std::size_t> recommended;         ///< the recommended point, if any

  /// The point at (row, col), if that cell was computed (out of the grid: none).
  std::optional<std::size_t> at(int row, int col) const;
  /// (row, col) of point `index`, if it is in the grid.
  std::optional<std::pair<int, int>> find(std::size_t index) const;
};

/// One edge of the target's contour: a side of a cell that meets the target, where the neighbour on that
/// side does not (edges on the grid's border are not drawn).
struct ContourEdge {
  enum class Side { Left, Right, Bottom, Top };
  int row = 0;
  int col = 0;
  Side side = Side::Left;
};
/// Every edge of the target's contour, row by row.
std::vector<ContourEdge> targetContour(const TuneCells& grid, const TuneResult& result, double target);

/// A row's label: "burst 20" (refill axis) or "20 req" (limit per window).
std::string rowWords(const TuneCells& grid, int row);
/// A column's label: "10 req/s" or "per 60 s".
std::string columnWords(const TuneCells& grid, int col);
/// What the columns and rows are, and how to read the marks, under the grid.
std::string axisWords(const TuneCells& grid, double target);

/// Lays out `algorithm`'s points of `result`; the recommendation is recommend()'s at `target`.
TuneCells tuneCells(const TuneResult& result, Algorithm algorithm, double target);


/// A colour, 0..255 per channel.
struct Rgb {
  int r = 0, g = 0, b = 0;
  bool operator==(const Rgb&) const = default;
};

/// The scale's position of `share` (0..1): 0 at a hundredth of `target` or less, 2/3 at it, 1 at ten times it.
double deniedScale(double share, double target);
/// The colour of the position `t` (0..1) of the scale: green, yellow at 2/3, red.
Rgb scaleColour(double t);
/// A labelled place on the colour legend.
struct ScaleMark {
  double share = 0;   ///< legitimate-denied share
  std::string words;  ///< "0.1% target"
};
/// The legend's three marks, top (red) to bottom (green): "≥ 1%", "0.1% target", "≤ 0.001%".
std::array<ScaleMark, 3> scaleMarks(double target);
/// The colour of a cell whose legitimate-denied share is `share` (none denied: green).
Rgb deniedColour(double share, double target);

}  // namespace rl
