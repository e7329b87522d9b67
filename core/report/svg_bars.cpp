#include "report/svg_bars.hpp"

#include <algorithm>

#include "metrics/chart_axis.hpp"
#include "report/svg_chart.hpp"

namespace rl {

namespace {
constexpr double kLeft = 64, kTop = 28, kBottom = 44, kRight = 16;

std::string px(double v) { return svgPixels(v); }
std::string count(double v) { return svgNumber(v); }
}  // namespace

std::string renderBars(const SvgBars& c) {
  double most = 0;
  for (const SvgBar& b : c.bars) most = std::max(most, b.value);
  const std::vector<double> ticks = niceTicks(0, std::max(4.0, most * 1.15), 4);  // room for the count above the tallest
  const double x0 = kLeft, y0 = kTop, w = c.width - kLeft - kRight, h = c.height - kTop - kBottom, top = ticks.back();
  const auto y = [&](double v) { return y0 + h - h * std::clamp(v / top, 0.0, 1.0); };
  std::string out = "<svg class=\"chart bars\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" + std::to_string(c.width) +
                    "\" height=\"" + std::to_string(c.height) + "\" viewBox=\"0 0 " + std::to_string(c.width) + " " +
                    std::to_string(c.height) + "\" role=\"img\" aria-label=\"" + xmlEscaped(c.title) + "\">";
  out += "<text class=\"title\" x=\"" + px(kLeft) + "\" y=\"16\">" + xmlEscaped(c.title) + "</text>";
  for (double t : ticks)
    out += "<line class=\"grid\" x1=\"" + px(x0) + "\" x2=\"" + px(x0 + w) + "\" y1=\"" + px(y(t)) + "\" y2=\"" + px(y(t)) +
           "\"/><text x=\"" + px(x0 - 6) + "\" y=\"" + px(y(t) + 4) + "\" text-anchor=\"end\">" + count(t) + "</text>";
  out += "<rect class=\"frame\" x=\"" + px(x0) + "\" y=\"" + px(y0) + "\" width=\"" + px(w) + "\" height=\"" + px(h) + "\"/>";
  const double slot = c.bars.empty() ? w : w / static_cast<double>(c.bars.size());
  for (std::size_t i = 0; i < c.bars.size(); ++i) {
    const SvgBar& b = c.bars[i];
    const double left = x0 + slot * static_cast<double>(i) + slot * 0.15, mid = left + slot * 0.35;
    // A count of zero still shows its place: a hairline on the axis.
    const double barTop = b.value > 0 ? std::min(y(b.value), y0 + h - 1) : y0 + h - 1;
    out += "<rect class=\"bar\" x=\"" + px(left) + "\" y=\"" + px(barTop) + "\" width=\"" + px(slot * 0.7) + "\" height=\"" +
           px(y0 + h - barTop) + "\" fill=\"" + b.color + "\"><title>" + xmlEscaped(b.label) + ": " + count(b.value) +
           "</title></rect>";
    out += "<text x=\"" + px(mid) + "\" y=\"" + px(barTop - 4) + "\" text-anchor=\"middle\">" + count(b.value) + "</text>";
    out += "<text x=\"" + px(mid) + "\" y=\"" + px(y0 + h + 16) + "\" text-anchor=\"middle\">" + xmlEscaped(b.label) + "</text>";
  }
  out += "<text class=\"axis-title\" x=\"" + px(x0 + w / 2) + "\" y=\"" + px(c.height - 6.0) + "\" text-anchor=\"middle\">" +
         xmlEscaped(c.xTitle) + "</text>";
  out += "<text class=\"axis-title\" transform=\"translate(14 " + px(y0 + h / 2) + ") rotate(-90)\" text-anchor=\"middle\">" +
         xmlEscaped(c.yTitle) + "</text>";
  return out + "</svg>";
}

}  // namespace rl
