#include "report/svg_heatmap.hpp"

#include <algorithm>
#include <cstdio>

#include "report/svg_chart.hpp"
#include "tune/tune_cells.hpp"

namespace rl {

namespace {
constexpr double kLeft = 96, kTop = 28, kBottom = 52, kRight = 130, kBarGap = 14, kBarWidth = 14;
constexpr int kBarSteps = 48;  // the legend's colour bar, bottom (green) to top (red)

std::string px(double v) { return svgPixels(v); }

std::string fill(Rgb c) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "rgb(%d,%d,%d)", c.r, c.g, c.b);
  return buf;
}

std::string rect(double x, double y, double w, double h, const std::string& attrs) {
  return "<rect x=\"" + px(x) + "\" y=\"" + px(y) + "\" width=\"" + px(w) + "\" height=\"" + px(h) + "\" " + attrs + "/>";
}

std::string line(double x1, double y1, double x2, double y2, const char* cls) {
  return "<line class=\"" + std::string(cls) + "\" x1=\"" + px(x1) + "\" y1=\"" + px(y1) + "\" x2=\"" + px(x2) + "\" y2=\"" +
         px(y2) + "\"/>";
}

std::string text(double x, double y, const char* anchor, const std::string& words, const char* cls = nullptr) {
  return "<text" + (cls ? " class=\"" + std::string(cls) + "\"" : std::string()) + " x=\"" + px(x) + "\" y=\"" + px(y) +
         "\" text-anchor=\"" + anchor + "\">" + xmlEscaped(words) + "</text>";
}

std::string shareText(const TunePoint& p) {
  char buf[160];
  std::snprintf(buf, sizeof buf, ": legit denied %.4f%% (%lld of %lld), worst admitted %lld", 100.0 * p.legitDeniedShare(),
                static_cast<long long>(p.outcome.legitDenied), static_cast<long long>(p.outcome.legitOffered),
                static_cast<long long>(p.outcome.worstAdmitted));
  return p.quota.toString() + buf;
}
}  // namespace

std::string renderTuneHeatmap(const TuneResult& result, Algorithm algorithm, double target, int width) {
  const TuneCells g = tuneCells(result, algorithm, target);
  const int rows = static_cast<int>(g.rows.size()), cols = static_cast<int>(g.cols.size());
  const double plotW = width - kLeft - kRight;
  const double plotH = std::clamp(18.0 * rows, 120.0, 480.0);
  const double height = kTop + plotH + kBottom;
  const double cw = plotW / std::max(cols, 1), ch = plotH / std::max(rows, 1);
  const auto x = [&](int c) { return kLeft + cw * c; };
  const auto y = [&](int r) { return kTop + plotH - ch * (r + 1); };  // limits grow upwards
  const std::string title = std::string(algorithmName(algorithm)) + ": legitimate requests denied per quota";
  std::string out = "<svg class=\"chart heatmap\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" + std::to_string(width) +
                    "\" height=\"" + px(height) + "\" viewBox=\"0 0 " + std::to_string(width) + " " + px(height) +
                    "\" role=\"img\" aria-label=\"" + xmlEscaped(title) + "\">";
  out += text(kLeft, 16, "start", title, "title");
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) {
      const auto i = g.at(r, c);
      if (!i) {
        out += rect(x(c), y(r), cw, ch, "class=\"cell missing\" fill=\"#e4e4e4\"");
        continue;
      }
      const TunePoint& p = result.points[*i];
      out += "<rect class=\"cell\" x=\"" + px(x(c)) + "\" y=\"" + px(y(r)) + "\" width=\"" + px(cw) + "\" height=\"" + px(ch) +
             "\" fill=\"" + fill(deniedColour(p.legitDeniedShare(), target)) + "\"><title>" + xmlEscaped(shareText(p)) +
             "</title></rect>";
    }
  // The target's contour: an edge between a cell that meets it and one that does not.
  for (const ContourEdge& e : targetContour(g, result, target)) {
    const double left = x(e.col), top = y(e.row), right = left + cw, bottom = top + ch;
    switch (e.side) {
      case ContourEdge::Side::Left: out += line(left, top, left, bottom, "contour"); break;
      case ContourEdge::Side::Right: out += line(right, top, right, bottom, "contour"); break;
      case ContourEdge::Side::Bottom: out += line(left, bottom, right, bottom, "contour"); break;
      case ContourEdge::Side::Top: out += line(left, top, right, top, "contour"); break;
    }
  }
  if (const auto best = g.recommended ? g.find(*g.recommended) : std::nullopt)
    out += "<circle class=\"recommended\" cx=\"" + px(x(best->second) + cw / 2) + "\" cy=\"" + px(y(best->first) + ch / 2) +
           "\" r=\"" + px(std::clamp(std::min(cw, ch) / 2 - 1, 3.0, 8.0)) + "\"><title>recommended: " +
           xmlEscaped(result.points[*g.recommended].quota.toString()) + "</title></circle>";
  out += rect(kLeft, kTop, plotW, plotH, "class=\"frame\"");
  // Labels, thinned so they never overlap: rows 14 px apart at least, columns 72 px.
  const int rowStep = std::max(1, static_cast<int>(14.0 / ch) + 1), colStep = std::max(1, static_cast<int>(72.0 / cw) + 1);
  for (int r = 0; r < rows; r += rowStep) out += text(kLeft - 6, y(r) + ch / 2 + 4, "end", rowWords(g, r));
  for (int c = 0; c < cols; c += colStep) out += text(x(c) + cw / 2, kTop + plotH + 16, "middle", columnWords(g, c));
  out += text(kLeft + plotW / 2, height - 10, "middle", axisWords(g, target), "axis-title");
  // The legend: the scale's colours bottom to top, and its three marks.
  const double barX = kLeft + plotW + kBarGap, step = plotH / kBarSteps;
  for (int k = 0; k < kBarSteps; ++k)
    out += rect(barX, kTop + plotH - step * (k + 1), kBarWidth, step + 0.5,
                "class=\"scale\" fill=\"" + fill(scaleColour((k + 0.5) / kBarSteps)) + "\"");
  out += rect(barX, kTop, kBarWidth, plotH, "class=\"frame\"");
  for (const ScaleMark& m : scaleMarks(target)) {
    const double my = kTop + plotH - deniedScale(m.share, target) * plotH;
    out += line(barX + kBarWidth, my, barX + kBarWidth + 4, my, "tick") + text(barX + kBarWidth + 7, my + 4, "start", m.words);
  }
  out += text(barX + kBarWidth / 2, kTop + plotH + 16, "middle", "legit denied");
  return out + "</svg>";
}

}  // namespace rl
