#include "report/svg_chart.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace rl {

namespace {
constexpr double kLeft = 64;     // room for the left ticks and title
constexpr double kTop = 46;      // the title row and the legend row
constexpr double kBottom = 42;   // the x ticks and title
constexpr double kRightAxis = 64;
constexpr double kNoRightAxis = 16;

std::string num(double v) { return svgNumber(v); }
std::string px(double v) { return svgPixels(v); }

double topOf(const std::vector<SvgSeries>& series, bool right) {
  double top = 0;
  for (const SvgSeries& s : series)
    if (s.rightAxis == right)
      for (const ChartPoint& p : s.points) top = std::max(top, p.y);
  return std::max(4.0, top * 1.1);  // at least 0..4: counts keep whole-number ticks
}

struct Frame {
  double x0, y0, w, h, xMin, xMax, yMax, yRightMax;
  double x(double v) const { return x0 + w * std::clamp((v - xMin) / (xMax - xMin), 0.0, 1.0); }
  double y(double v, bool right) const { return y0 + h - h * std::clamp(v / (right ? yRightMax : yMax), 0.0, 1.0); }
};

std::string pathOf(const SvgSeries& s, const Frame& f) {
  std::string d;
  for (std::size_t i = 0; i < s.points.size(); ++i) {
    const ChartPoint& p = s.points[i];
    const std::string x = px(f.x(p.x)), y = px(f.y(p.y, s.rightAxis));
    if (i == 0) {
      d += "M" + x + " " + y;
    } else if (s.step) {
      d += "H" + x + "V" + y;
    } else {
      d += "L" + x + " " + y;
    }
  }
  if (s.step && !s.points.empty()) d += "H" + px(f.x(f.xMax));  // the last value holds to the end
  return d;
}

void axisTicks(std::string& out, const Frame& f, const std::vector<double>& ticks, bool right) {
  const double xLine = right ? f.x0 + f.w : f.x0;
  for (double t : ticks) {
    const std::string y = px(f.y(t, right));
    if (!right) out += "<line class=\"grid\" x1=\"" + px(f.x0) + "\" x2=\"" + px(f.x0 + f.w) + "\" y1=\"" + y + "\" y2=\"" + y + "\"/>";
    out += "<text x=\"" + px(right ? xLine + 6 : xLine - 6) + "\" y=\"" + px(f.y(t, right) + 4) + "\" text-anchor=\"" +
           (right ? "start" : "end") + "\">" + num(t) + "</text>";
  }
}
}  // namespace

std::string svgPixels(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

std::string svgNumber(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

std::string xmlEscaped(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string renderSvg(const SvgChart& c) {
  const bool hasRight = std::any_of(c.series.begin(), c.series.end(), [](const SvgSeries& s) { return s.rightAxis; });
  const std::vector<double> xTicks = niceTicks(c.xMin, c.xMax, std::max(2, c.width / 110));
  const std::vector<double> yTicks = niceTicks(0, c.yMax > 0 ? c.yMax : topOf(c.series, false), 4);
  const std::vector<double> rTicks = niceTicks(0, topOf(c.series, true), 4);
  const Frame f{kLeft, kTop, c.width - kLeft - (hasRight ? kRightAxis : kNoRightAxis), c.height - kTop - kBottom,
                xTicks.front(), xTicks.back(), yTicks.back(), rTicks.back()};
  std::string out = "<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" + std::to_string(c.width) +
                    "\" height=\"" + std::to_string(c.height) + "\" viewBox=\"0 0 " + std::to_string(c.width) + " " +
                    std::to_string(c.height) + "\" role=\"img\" aria-label=\"" + xmlEscaped(c.title) + "\">";
  out += "<text class=\"title\" x=\"" + px(kLeft) + "\" y=\"16\">" + xmlEscaped(c.title) + "</text>";
  // The legend: one row above the plot, only what is drawn.
  double lx = kLeft;
  const auto legend = [&](const std::string& label, const std::string& color, bool band, bool dashed) {
    out += band ? "<rect x=\"" + px(lx) + "\" y=\"27\" width=\"14\" height=\"10\" fill=\"" + color + "\" fill-opacity=\"0.3\"/>"
                : "<line x1=\"" + px(lx) + "\" x2=\"" + px(lx + 14) + "\" y1=\"32\" y2=\"32\" stroke=\"" + color +
                      "\" stroke-width=\"2\"" + (dashed ? " stroke-dasharray=\"5 3\"" : "") + "/>";
    out += "<text x=\"" + px(lx + 18) + "\" y=\"36\">" + xmlEscaped(label) + "</text>";
    lx += 18 + 7.0 * static_cast<double>(label.size()) + 16;
  };
  for (const SvgSeries& s : c.series)
    if (!s.points.empty()) legend(s.label + (s.rightAxis && hasRight ? " (right axis)" : ""), s.color, false, s.dashed);
  if (!c.bands.empty()) legend(c.bandLabel, c.bandColor, true, false);
  axisTicks(out, f, yTicks, false);
  if (hasRight) axisTicks(out, f, rTicks, true);
  for (double t : xTicks)
    out += "<text x=\"" + px(f.x(t)) + "\" y=\"" + px(f.y0 + f.h + 16) + "\" text-anchor=\"middle\">" + num(t) + "</text>";
  // Bands over the grid, under the series, at least three pixels wide.
  for (const SvgBand& b : c.bands) {
    const double from = f.x(b.from), to = std::max(f.x(b.to), from + 3);
    out += "<rect class=\"band\" x=\"" + px(from) + "\" y=\"" + px(f.y0) + "\" width=\"" + px(to - from) + "\" height=\"" +
           px(f.h) + "\" fill=\"" + c.bandColor + "\" fill-opacity=\"0.3\"/>";
  }
  out += "<rect class=\"frame\" x=\"" + px(f.x0) + "\" y=\"" + px(f.y0) + "\" width=\"" + px(f.w) + "\" height=\"" + px(f.h) + "\"/>";
  for (const SvgSeries& s : c.series) {
    if (s.points.empty()) continue;
    out += "<path class=\"series\" d=\"" + pathOf(s, f) + "\" stroke=\"" + s.color + "\"" +
           (s.dashed ? " stroke-dasharray=\"5 3\"" : "") + "><title>" + xmlEscaped(s.label) + "</title></path>";
  }
  out += "<text class=\"axis-title\" x=\"" + px(f.x0 + f.w / 2) + "\" y=\"" + px(c.height - 6.0) +
         "\" text-anchor=\"middle\">" + xmlEscaped(c.xTitle) + "</text>";
  out += "<text class=\"axis-title\" transform=\"translate(14 " + px(f.y0 + f.h / 2) + ") rotate(-90)\" text-anchor=\"middle\">" +
         xmlEscaped(c.yTitle) + "</text>";
  if (hasRight)
    out += "<text class=\"axis-title\" transform=\"translate(" + px(c.width - 10.0) + " " + px(f.y0 + f.h / 2) +
           ") rotate(90)\" text-anchor=\"middle\">" + xmlEscaped(c.yRightTitle) + "</text>";
  return out + "</svg>";
}

}  // namespace rl
