#pragma once
// A bar chart for the HTML report: one bar per named category (a histogram's
// bins), its count written above it, a left axis of whole numbers. The
// categories are words, not numbers, so they get their own chart type rather
// than an x axis of SvgChart's.

#include <string>
#include <vector>

namespace rl {

/// One bar.
struct SvgBar {
  std::string label;  ///< under the bar ("<= bound")
  double value = 0;   ///< its height (a count)
  std::string color;  ///< CSS colour
};

/// A whole bar chart.
struct SvgBars {
  std::string title;          ///< above the plot
  std::string xTitle;         ///< under the labels
  std::string yTitle;         ///< left axis, with its unit
  std::vector<SvgBar> bars;   ///< left to right
  int width = 960;            ///< px
  int height = 220;           ///< px
};

/// The chart as one <svg> element (class "chart bars"; each bar a <rect class="bar"> with a <title>).
std::string renderBars(const SvgBars& chart);

}  // namespace rl
