// tuneReportHtml: a tune sweep's report (`ratelab-cli tune --report`).

#include <cstdio>
#include <map>

#include "report/html_report.hpp"
#include "report/svg_heatmap.hpp"

namespace rl {

namespace {
std::string percent(double share) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g%%", 100.0 * share);
  return buf;
}

/// The quota without its limit ("window 60 s", "refill 10/s"): one series per value in the charts.
std::string seriesKey(const Quota& q) {
  std::string key = "window " + std::to_string(q.window.count() / 1000) + " ms";
  if (q.refillPerSecond) {
    char buf[48];
    std::snprintf(buf, sizeof buf, ", refill %g/s", *q.refillPerSecond);
    key += buf;
  }
  return key;
}
}  // namespace

std::string tuneReportHtml(const std::string& traceSummary, const TuneSpec& spec, const TuneResult& result,
                           const Json& document, const ReportHeader& header) {
  const std::vector<std::pair<std::string, std::string>> facts = {
      {"trace", traceSummary},
      {"target", "at most " + percent(spec.targetDenied) + " of legitimate requests denied"},
      {"legitimate clients", std::to_string(result.legitClients) + " of " + std::to_string(result.legit.size())},
      {"points", std::to_string(result.points.size()) + (result.cancelled ? " (cancelled: only those computed)" : "")},
  };
  // The recommendation first: it is what the sweep is for.
  ReportSection top{"Recommendation", {}, Json::array(), {}, {}};
  for (Algorithm a : spec.algorithms) {
    const auto i = recommend(result, a, spec.targetDenied);
    if (!i) {
      top.sentences.push_back(std::string(algorithmName(a)) + ": no point of the grid denies at most " +
                              percent(spec.targetDenied) + " of legitimate requests.");
      continue;
    }
    const TunePoint& p = result.points[*i];
    top.sentences.push_back(std::string(algorithmName(a)) + ": " + p.quota.toString() + " denies " +
                            percent(p.legitDeniedShare()) + " of legitimate requests and admits at most " +
                            std::to_string(p.outcome.worstAdmitted) + " to one client in any " + std::to_string(spec.peakWindow.count() / 1000) + " ms.");
    Json row;
    row["algorithm"] = algorithmName(a);
    row["recommended"] = p.quota.toString();
    row["legit denied"] = percent(p.legitDeniedShare());
    row["all denied"] = p.outcome.denied;
    row["clients denied"] = p.outcome.clientsDenied;
    row["worst admitted"] = p.outcome.worstAdmitted;
    top.table.push_back(std::move(row));
  }
  // The heatmaps, as the window's Tune panel draws them: one cell per quota.
  ReportSection maps{"Heatmaps", {"One cell per quota of the grid, coloured by the share of legitimate requests it denies "
                                  "(hover a cell for its figures); the thick line is the target's contour."},
                     Json(), {}, {}, {}};
  for (Algorithm a : spec.algorithms) maps.figures.push_back(renderTuneHeatmap(result, a, spec.targetDenied));
  // Per algorithm: legitimate denied against the limit, one line per window (and refill).
  ReportSection sweep{"The sweep", {"Each line is one window (and refill) of the grid; the dashed line is the target."}, Json(), {}, {}};
  const char* colors[] = {"#2a7ab9", "#e08a1e", "#3a9a4a", "#c43c3c", "#8a5cb8", "#7a5a40", "#d070b0", "#707070"};
  for (Algorithm a : spec.algorithms) {
    std::map<std::string, std::vector<ChartPoint>> lines;
    double maxLimit = 1;
    for (const TunePoint& p : result.points) {
      if (p.algorithm != a || !p.computed) continue;
      lines[seriesKey(p.quota)].push_back({static_cast<double>(p.quota.limit), 100.0 * p.legitDeniedShare()});
      maxLimit = std::max(maxLimit, static_cast<double>(p.quota.limit));
    }
    SvgChart c{std::string(algorithmName(a)) + ": legitimate requests denied by limit", "limit", "% legitimate denied", "",
               0, maxLimit, {}, {}, "", "#d62728", 100, 960, 260};
    c.series.push_back({"target " + percent(spec.targetDenied), "#333333",
                        {{0, 100.0 * spec.targetDenied}, {maxLimit, 100.0 * spec.targetDenied}}, false, true, false});
    std::size_t k = 0;
    for (auto& [key, points] : lines) {
      std::sort(points.begin(), points.end(), [](const ChartPoint& x, const ChartPoint& y) { return x.x < y.x; });
      c.series.push_back({key, colors[k++ % 8], std::move(points), false, false, false});
    }
    sweep.charts.push_back(std::move(c));
  }
  return reportHtml(header, facts, {std::move(top), std::move(maps), std::move(sweep)}, document);
}

}  // namespace rl
