#include "metrics/storm_metrics.hpp"

#include <algorithm>
#include <array>
#include <unordered_map>

#include "metrics/over_limit.hpp"
#include "metrics/window_truth.hpp"
#include "storm/quota_schedule.hpp"

namespace rl {

Micros chooseBinSize(Micros span) {
  const std::int64_t target = std::max<std::int64_t>(span.count() / 100, 1);
  std::int64_t unit = 1000;  // 1 ms
  for (;;) {
    for (std::int64_t m : {1, 2, 5})
      if (unit * m >= target) return Micros{unit * m};
    unit *= 10;
  }
}

namespace {

// Max admitted cost in any window, over the clients of one algorithm.
// Two passes (count, then fill), so each client's times are allocated exactly once.
std::int64_t worstWindow(std::span<const DecisionRecord> records, int algo, std::int64_t windowUs) {
  std::unordered_map<std::uint32_t, std::vector<std::int64_t>> byClient;
  {
    std::unordered_map<std::uint32_t, std::size_t> counts;
    for (const DecisionRecord& r : records)
      if (r.algorithm() == algo && r.allowed()) ++counts[r.client()];
    for (const auto& [client, n] : counts) byClient[client].reserve(n);
  }
  for (const DecisionRecord& r : records)
    if (r.algorithm() == algo && r.allowed()) byClient[r.client()].push_back(r.atUs());
  std::int64_t best = 0;
  for (auto& [client, times] : byClient) {
    std::sort(times.begin(), times.end());
    best = std::max(best, maxInAnyWindow(times, windowUs));
  }
  return best;
}

// Judges every admission of `algo` in time order (metrics/over_limit.hpp).
void judgeOverLimit(AlgorithmMetrics& m, const StormSpec& spec, std::span<const DecisionRecord> records, int algo,
                    std::vector<TimedQuota> quotas, std::int64_t originUs) {
  std::vector<const DecisionRecord*> admitted;
  for (const DecisionRecord& r : records)
    if (r.algorithm() == algo && r.allowed()) admitted.push_back(&r);
  std::stable_sort(admitted.begin(), admitted.end(),
                   [](const DecisionRecord* a, const DecisionRecord* b) { return a->atUs() < b->atUs(); });
  OverLimitJudge judge({spec.algorithms[static_cast<std::size_t>(algo)], std::move(quotas), spec.cost, originUs});
  const bool exact = spec.clock == ClockMode::Virtual;
  const std::int64_t mergeUs = std::max<std::int64_t>(m.binUs, 1);
  for (const DecisionRecord* r : admitted) {
    // Real clocks: the decision happened between its start and its answer.
    if (!judge.admit(r->client(), r->atUs(), exact ? 0 : r->serviceUs()).over) continue;
    if (!m.overLimitSpans.empty() && r->atUs() - m.overLimitSpans.back().toUs <= mergeUs)
      m.overLimitSpans.back().toUs = r->atUs();
    else
      m.overLimitSpans.push_back({r->atUs(), r->atUs()});
  }
  m.overshoot = judge.worst().ratio;
  m.overLimitAdmitted = judge.overCount();
  m.worstClient = judge.worst().client;
  m.worstAtUs = judge.worst().atUs;
}

void fillBins(AlgorithmMetrics& m, std::span<const DecisionRecord> records, int algo, std::int64_t spanUs) {
  m.binUs = chooseBinSize(Micros{spanUs}).count();
  m.bins.resize(static_cast<std::size_t>(spanUs / m.binUs + 1));
  for (std::size_t i = 0; i < m.bins.size(); ++i) m.bins[i].startUs = static_cast<std::int64_t>(i) * m.binUs;
  for (const DecisionRecord& r : records) {
    if (r.algorithm() != algo) continue;
    auto& bin = m.bins[static_cast<std::size_t>(std::clamp<std::int64_t>(r.atUs() / m.binUs, 0, static_cast<std::int64_t>(m.bins.size()) - 1))];
    (r.allowed() ? bin.admitted : bin.denied) += 1;
    bin.errors += r.error() ? 1 : 0;
  }
}

}  // namespace

std::vector<AlgorithmMetrics> computeMetrics(const StormSpec& spec, const StormOutcome& outcome) {
  // The outcome's markers hold the scheduled changes too (the runner knows them before it starts).
  return metricsUnder(spec, outcome.records, outcome.wallDuration, quotaTimeline(spec.quota, {}, outcome.markers),
                      outcome.clockOriginUs);
}

std::vector<AlgorithmMetrics> computeMetrics(const StormSpec& spec, std::span<const DecisionRecord> records,
                                             Micros wallDuration) {
  return metricsUnder(spec, records, wallDuration, quotaTimeline(spec.quota, spec.quotaChanges), 0);
}

std::vector<AlgorithmMetrics> metricsUnder(const StormSpec& spec, std::span<const DecisionRecord> records,
                                           Micros wallDuration, const std::vector<TimedQuota>& quotas,
                                           std::int64_t clockOriginUs) {
  std::int64_t spanUs = 0;
  for (const DecisionRecord& r : records) spanUs = std::max(spanUs, r.atUs());
  std::vector<AlgorithmMetrics> out;
  for (std::size_t a = 0; a < spec.algorithms.size(); ++a) {
    const int algo = static_cast<int>(a);
    AlgorithmMetrics m;
    m.algorithm = spec.algorithms[a];
    for (const DecisionRecord& r : records) {
      if (r.algorithm() != algo) continue;
      ++m.offered;
      (r.allowed() ? m.admitted : m.denied) += 1;
      m.errors += r.error() ? 1 : 0;
      m.degraded += r.byPolicy() ? 1 : 0;
      m.degradedAdmitted += r.byPolicy() && r.allowed() ? 1 : 0;
      m.late += r.late() ? 1 : 0;
    }
    {  // 4 bytes per decision, allocated once and freed before the window truth
      std::vector<std::uint32_t> latencies;
      latencies.reserve(static_cast<std::size_t>(m.offered));
      for (const DecisionRecord& r : records)
        if (r.algorithm() == algo) latencies.push_back(r.latencyUs());
      m.latency = summarizeLatency(latencies);
    }
    m.maxAdmittedInWindow = worstWindow(records, algo, spec.quota.window.count()) * spec.cost;
    if (wallDuration.count() > 0)
      m.throughputRps = static_cast<double>(m.offered) * 1e6 / static_cast<double>(wallDuration.count());
    fillBins(m, records, algo, spanUs);
    judgeOverLimit(m, spec, records, algo, quotas, clockOriginUs);
    out.push_back(std::move(m));
  }
  return out;
}

std::vector<ChartPoint> levelSeries(std::span<const DecisionRecord> records, int algo, int client) {
  std::vector<ChartPoint> out;
  for (const DecisionRecord& r : records)
    if (r.algorithm() == algo && (client < 0 || r.client() == static_cast<std::uint32_t>(client)) && !r.error())
      out.push_back({static_cast<double>(r.atUs()) / 1e6, static_cast<double>(r.level())});
  std::stable_sort(out.begin(), out.end(), [](const ChartPoint& p, const ChartPoint& q) { return p.x < q.x; });
  return out;
}

}  // namespace rl
