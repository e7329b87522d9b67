#include "report/run_charts.hpp"

#include <algorithm>
#include <string>

#include "limiter/algorithm.hpp"
#include "metrics/chart_axis.hpp"
#include "metrics/time_unit.hpp"
#include "storm/compared_runs.hpp"

namespace rl {

namespace {
constexpr const char* kAdmittedColor = "#2a7ab9";
constexpr const char* kDeniedColor = "#e08a1e";
constexpr const char* kLimitColor = "#333333";

/// One client's decisions of one algorithm, by decision time.
struct ClientDecisions {
  std::vector<std::int64_t> at;  ///< decision times, ascending
  std::vector<bool> allowed;     ///< parallel to `at`
};

ClientDecisions decisionsOf(const StormOutcome& o, std::size_t algo, std::uint32_t client) {
  std::vector<const DecisionRecord*> mine;
  for (const DecisionRecord& r : o.records)
    if (r.algorithm() == algo && r.client() == client) mine.push_back(&r);
  std::stable_sort(mine.begin(), mine.end(), [](auto* a, auto* b) { return a->atUs() < b->atUs(); });
  ClientDecisions d;
  for (const DecisionRecord* r : mine) {
    d.at.push_back(r->atUs());
    d.allowed.push_back(r->allowed());
  }
  return d;
}

const Quota& quotaAt(const std::vector<TimedQuota>& quotas, std::int64_t t) {
  auto it = std::upper_bound(quotas.begin(), quotas.end(), t, [](std::int64_t v, const TimedQuota& q) { return v < q.atUs; });
  return it == quotas.begin() ? quotas.front().quota : std::prev(it)->quota;
}

/// x of decision `i` at time `t`: seconds, or decision number / 1e6.
struct XMap {
  bool byDecision = false;
  double of(std::size_t i, std::int64_t t) const {
    return (byDecision ? static_cast<double>(i) : static_cast<double>(t)) / 1e6;
  }
};

std::vector<ChartPoint> scaled(std::vector<ChartPoint> points, double k) {
  for (ChartPoint& p : points) p.x *= k;
  return points;
}
}  // namespace

std::string admissionsText(std::int64_t n) { return std::to_string(n) + (n == 1 ? " admission" : " admissions"); }

std::vector<SvgChart> runCharts(const ExperimentRun& run, const std::vector<AlgorithmMetrics>& metrics, int columns) {
  const StormSpec& spec = run.spec;
  const StormOutcome& o = run.outcome;
  const std::vector<TimedQuota> quotas = quotaTimeline(spec.quota, spec.quotaChanges, o.markers);
  std::vector<ClientDecisions> lanes;
  std::size_t most = 0;
  std::int64_t first = -1, last = 0;
  for (std::size_t a = 0; a < spec.algorithms.size() && a < metrics.size(); ++a) {
    lanes.push_back(decisionsOf(o, a, metrics[a].worstClient));
    most = std::max(most, lanes.back().at.size());
    if (lanes.back().at.empty()) continue;
    last = std::max(last, lanes.back().at.back());
    first = first < 0 ? lanes.back().at.front() : std::min(first, lanes.back().at.front());
  }
  const XMap xmap{drawnByDecision(last, most)};
  const double spanSeconds = xmap.byDecision ? static_cast<double>(most) / 1e6 : std::max(1e-3, static_cast<double>(last) / 1e6);
  const AxisUnit unit = xmap.byDecision ? decisionAxisUnit() : axisUnitFor(spanSeconds);
  const std::string xTitle = xmap.byDecision ? "decision number (faster than one per \u00b5s of the virtual clock)"
                                             : std::string(unit.unit) + " since the storm started";
  const double xMax = spanSeconds * unit.perSecond;
  // A storm that starts late (the boundary burst at 59 s) is drawn from its first decision (chart_axis.hpp).
  const double xMin =
      xmap.byDecision || first < 0 ? 0 : axisStartSeconds(static_cast<double>(first) / 1e6, spanSeconds) * unit.perSecond;
  std::vector<SvgChart> charts;
  SvgChart level{"Level of each algorithm (tokens, window count or queue depth)", xTitle, "level", "", xMin, xMax, {}, {}, "", "#d62728", 0, 960, 250};
  const char* levelColors[] = {"#2a7ab9", "#e08a1e", "#3a9a4a", "#c43c3c", "#8a5cb8", "#7a5a40", "#d070b0", "#707070"};
  for (std::size_t a = 0; a < lanes.size(); ++a) {
    const ClientDecisions& d = lanes[a];
    const AlgorithmMetrics& m = metrics[a];
    std::vector<ChartPoint> admitted, denied, limit;
    std::vector<std::int64_t> admittedAt, deniedAt;  // so far, ascending
    for (std::size_t i = 0; i < d.at.size(); ++i) {
      const std::int64_t t = d.at[i];
      (d.allowed[i] ? admittedAt : deniedAt).push_back(t);
      const Quota& q = quotaAt(quotas, t);
      const std::int64_t from = t - q.window.count();  // the window (t - W, t]
      const auto inWindow = [&](const std::vector<std::int64_t>& v) {
        return static_cast<double>(v.end() - std::upper_bound(v.begin(), v.end(), from));
      };
      const double x = xmap.of(i, t);
      admitted.push_back({x, inWindow(admittedAt)});
      denied.push_back({x, inWindow(deniedAt)});
      if (limit.empty() || limit.back().y != static_cast<double>(q.limit)) limit.push_back({x, static_cast<double>(q.limit)});
    }
    if (limit.empty()) limit.push_back({0, static_cast<double>(spec.quota.limit)});
    limit.front().x = 0;
    const double k = unit.perSecond;
    const double end = spanSeconds;
    const double begin = xMin / k;
    const std::string client = spec.clients > 1 ? ", client " + std::to_string(m.worstClient) + " (the worst of " +
                                                      std::to_string(spec.clients) + ")"
                                                : "";
    SvgChart lane{laneLabel(spec, spec.algorithms[a], false) + " \u00b7 " + backendLabel(spec) + client,
                  xTitle, "admitted / window", "denied / window", xMin, xMax, {}, {},
                  "over the limit (" + admissionsText(m.overLimitAdmitted) + (spec.clients > 1 ? ", any client)" : ")"), "#d62728", 0, 960, 230};
    lane.series.push_back({"admitted in (t \u2212 W, t]", kAdmittedColor, scaled(decimateMinMax(admitted, begin, end, columns), k), false, false, true});
    lane.series.push_back({"limit", kLimitColor, scaled(limit, k), false, true, true});
    lane.series.push_back({"denied in (t \u2212 W, t]", kDeniedColor, scaled(decimateMinMax(denied, begin, end, columns), k), true, false, true});
    for (const OverLimitSpan& s : m.overLimitSpans) {
      if (xmap.byDecision) {  // the spans are times: the decisions they cover, by number
        const auto firstIn = std::lower_bound(d.at.begin(), d.at.end(), s.fromUs) - d.at.begin();
        const auto lastIn = std::upper_bound(d.at.begin(), d.at.end(), s.toUs) - d.at.begin() - 1;
        lane.bands.push_back({static_cast<double>(firstIn) * k / 1e6, static_cast<double>(std::max(firstIn, lastIn)) * k / 1e6});
      } else {
        lane.bands.push_back({static_cast<double>(s.fromUs) / 1e6 * k, static_cast<double>(s.toUs) / 1e6 * k});
      }
    }
    charts.push_back(std::move(lane));
    std::vector<ChartPoint> lv;
    const std::vector<ChartPoint> series = levelSeries(o.records, static_cast<int>(a), static_cast<int>(m.worstClient));
    if (xmap.byDecision) {
      for (std::size_t i = 0; i < series.size(); ++i) lv.push_back({static_cast<double>(i) / 1e6, series[i].y});
    } else {
      lv = series;
    }
    level.series.push_back({std::string(algorithmName(spec.algorithms[a])), levelColors[a % 8],
                            scaled(decimateMinMax(lv, begin, end, columns), k), false, false, false});
  }
  charts.push_back(std::move(level));
  return charts;
}

}  // namespace rl
