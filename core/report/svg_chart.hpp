#pragma once
// SVG charts for the HTML report: one plot of step or line series over an x range, a left axis and an optional right one (denials on their own scale never
// flatten the admitted line), shaded x bands (over the limit), axis titles
// with units, and a legend above the plot, outside it, naming only the series
// and bands that are drawn. Points arrive decimated (decimateMinMax); the
// chart only scales them. Every text is XML-escaped.

#include <string>
#include <string_view>
#include <vector>

#include "metrics/chart_axis.hpp"
#include "metrics/chart_decimation.hpp"

namespace rl {

/// One series of a chart.
struct SvgSeries {
  std::string label;                ///< legend text
  std::string color;                ///< CSS colour
  std::vector<ChartPoint> points;   ///< sorted by x, in axis units
  bool rightAxis = false;           ///< on the right axis
  bool dashed = false;              ///< drawn dashed (a limit)
  bool step = true;                 ///< a step after each point (counts), else straight lines
};

/// A shaded range of x.
struct SvgBand {
  double from = 0;  ///< first x
  double to = 0;    ///< last x (a band is at least three pixels wide, so an instant shows)
};

/// A whole chart.
struct SvgChart {
  std::string title;        ///< above the plot
  std::string xTitle;       ///< with its unit
  std::string yTitle;       ///< left axis, with its unit
  std::string yRightTitle;  ///< right axis (series with rightAxis)
  double xMin = 0;          ///< x runs from here (the first decision, so a late burst fills the plot) ...
  double xMax = 1;          ///< ... to here
  std::vector<SvgSeries> series;
  std::vector<SvgBand> bands;       ///< drawn under the series
  std::string bandLabel;            ///< the bands' legend entry (when there are bands)
  std::string bandColor = "#d62728";
  double yMax = 0;   ///< the left axis's top (a share: 100); 0 = from the data
  int width = 960;   ///< px
  int height = 250;  ///< px
};

/// `text` with &, <, >, " and ' escaped for XML text and attributes.
std::string xmlEscaped(std::string_view text);

/// A coordinate for an SVG attribute: one decimal ("12.5").
std::string svgPixels(double v);
/// A number for a tick or a count: up to six significant digits ("40", "0.25").
std::string svgNumber(double v);

/// The chart as one <svg> element (class "chart"; each series' path has class "series").
std::string renderSvg(const SvgChart& chart);

}  // namespace rl
