#include "metrics/run_document.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "common/file_write.hpp"
#include "metrics/fault_document.hpp"
#include "metrics/over_limit.hpp"
#include "metrics/storm_metrics.hpp"
#include "storm/model_replay.hpp"
#include "storm/compared_runs.hpp"

namespace rl {


namespace {
double round3(double v) { return std::round(v * 1000.0) / 1000.0; }

// A CSV field, quoted (RFC 4180) when it holds a comma, quote or newline.
std::string csvField(const std::string& v) {
  if (v.find_first_of(",\"\n") == std::string::npos) return v;
  std::string out = "\"";
  for (char c : v) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}
}  // namespace

Json traceJson(const Trace& t) {
  Json j;
  j["path"] = t.path;
  j["format"] = traceFormatText(t.format);
  j["requests"] = static_cast<std::int64_t>(t.requests.size());
  j["clients"] = static_cast<std::int64_t>(t.keys.size());
  j["span_ms"] = round3(static_cast<double>(t.spanUs()) / 1000.0);
  j["first_us"] = t.requests.empty() ? std::int64_t{0} : t.requests.front().timeUs;
  j["lines"] = t.stats.lines;
  j["bad_lines"] = t.stats.bad;
  j["bytes_read"] = t.stats.bytes;
  Json bad = Json::array();
  for (auto n : t.stats.firstBadLines) bad.push_back(n);
  j["first_bad_lines"] = std::move(bad);
  j["filtered"] = t.stats.filtered;
  j["spread_within_second"] = t.stats.spread;
  return j;
}

namespace {
// How many over-limit spans a document lists (the count says how many there were).
constexpr std::size_t kMaxSpansListed = 100;

Json overLimitJson(const StormSpec& spec, const AlgorithmMetrics& m) {
  Json o;
  o["bound"] = overLimitBoundText(m.algorithm, spec.quota);
  o["admitted"] = m.overLimitAdmitted;
  if (m.worstAtUs >= 0) {
    o["worst_client"] = m.worstClient;
    o["worst_at_ms"] = round3(static_cast<double>(m.worstAtUs) / 1000.0);
  }
  o["span_count"] = m.overLimitSpans.size();
  Json spans = Json::array();
  for (std::size_t i = 0; i < std::min(m.overLimitSpans.size(), kMaxSpansListed); ++i)
    spans.push_back({round3(static_cast<double>(m.overLimitSpans[i].fromUs) / 1000.0),
                     round3(static_cast<double>(m.overLimitSpans[i].toUs) / 1000.0)});
  o["spans_ms"] = std::move(spans);
  return o;
}
}  // namespace

Json runJson(const StormSpec& spec, const StormOutcome& o, const std::vector<AlgorithmMetrics>& metrics) {
  Json runs = Json::array();
  for (std::size_t a = 0; a < metrics.size(); ++a) {
    const AlgorithmMetrics& m = metrics[a];
    Json r;
    r["algorithm"] = algorithmName(m.algorithm);
    r["backend"] = backendName(spec.backend);
    if (spec.backend == Backend::RedisScript) r["script"] = scriptName(spec);
    if (spec.backend == Backend::Http) {
      r["http_target"] = spec.http.targets.front();
      r["decided_by"] = "target";  // the algorithm names only the quota it is judged by
    }
    if (o.firstDecisionError) r["first_error"] = o.firstDecisionError->message;
    if (o.firstOutage) r["first_outage"] = o.firstOutage->message;
    r["limit"] = spec.quota.limit;
    r["window_ms"] = static_cast<std::int64_t>(spec.quota.window.count() / 1000);
    if (spec.quota.refillPerSecond) r["refill_rate"] = *spec.quota.refillPerSecond;
    if (!spec.quotaChanges.empty()) {
      Json changes = Json::array();
      for (const QuotaChange& c : spec.quotaChanges) changes.push_back(quotaChangeText(c));
      r["quota_changes"] = std::move(changes);
    }
    r["replicas"] = spec.replicas;
    r["clients"] = spec.clients;
    r["pattern"] = spec.traceData ? std::string_view("trace") : patternName(spec.pattern);
    r["clock"] = clockModeName(spec.clock);
    r["offered"] = m.offered;
    r["admitted"] = m.admitted;
    r["denied"] = m.denied;
    r["errors"] = m.errors;
    r["on_redis_error"] = failurePolicyName(spec.resilience.onRedisError);
    r["degraded"] = m.degraded;
    r["degraded_admitted"] = m.degradedAdmitted;
    r["late"] = m.late;
    r["dropped"] = o.progress.dropped;
    r["retries"] = a < o.counters.size() ? o.counters[a].retries : 0;
    r["max_admitted_in_window"] = m.maxAdmittedInWindow;
    r["overshoot"] = round3(m.overshoot);
    r["over_limit"] = overLimitJson(spec, m);
    r["duration_ms"] = round3(static_cast<double>(o.wallDuration.count()) / 1000.0);
    r["throughput_rps"] = std::round(m.throughputRps);
    Json lat;
    lat["p50"] = m.latency.p50;
    lat["p90"] = m.latency.p90;
    lat["p99"] = m.latency.p99;
    lat["max"] = m.latency.max;
    r["latency_us"] = std::move(lat);
    r["cancelled"] = o.cancelled;
    runs.push_back(std::move(r));
  }
  Json doc;
  doc["runs"] = std::move(runs);
  if (spec.traceData) doc["trace"] = traceJson(*spec.traceData);
  return doc;
}

DecisionDifferences decisionDifferences(const ExperimentRun& a, const ExperimentRun& b) {
  DecisionDifferences d;
  for (std::size_t la = 0; la < a.spec.algorithms.size(); ++la) {
    const auto it = std::find(b.spec.algorithms.begin(), b.spec.algorithms.end(), a.spec.algorithms[la]);
    if (it == b.spec.algorithms.end()) continue;
    const auto lb = static_cast<std::size_t>(it - b.spec.algorithms.begin());
    std::vector<const DecisionRecord*> theirs;
    for (const DecisionRecord& r : b.outcome.records)
      if (r.algorithm() == lb) theirs.push_back(&r);
    std::size_t i = 0;
    for (const DecisionRecord& r : a.outcome.records) {
      if (r.algorithm() != la) continue;
      if (i >= theirs.size()) break;
      ++d.compared;
      if (r.allowed() != theirs[i++]->allowed()) {
        if (d.firstAtUs.size() < 6) d.firstAtUs.push_back(r.intendedUs());
        ++d.count;
      }
    }
  }
  return d;
}

FailoverReport failoverWithOvershoot(const ExperimentRun& run, const std::vector<AlgorithmMetrics>& metrics) {
  FailoverReport report = run.failover.value_or(FailoverReport{});
  for (std::size_t i = 0; i < report.keys.size() && i < metrics.size(); ++i) report.keys[i].overshoot = metrics[i].overshoot;
  return report;
}

std::vector<std::vector<AlgorithmMetrics>> experimentMetrics(const ExperimentResult& result) {
  std::vector<std::vector<AlgorithmMetrics>> out;
  for (const ExperimentRun& run : result.runs) out.push_back(computeMetrics(run.spec, run.outcome));
  return out;
}

Json runDocument(const ExperimentResult& result) { return runDocument(result, experimentMetrics(result)); }

Json runDocument(const ExperimentResult& result, const std::vector<std::vector<AlgorithmMetrics>>& allMetrics) {
  Json runs = Json::array();
  Json firstFailover;  // the first run's failover report: the document's "failover"
  for (std::size_t i = 0; i < result.runs.size() && i < allMetrics.size(); ++i) {
    const ExperimentRun& run = result.runs[i];
    const std::vector<AlgorithmMetrics>& metrics = allMetrics[i];
    const Json doc = runJson(run.spec, run.outcome, metrics);
    const bool model = run.spec.modelsTarget;  // an http storm's models, on the target's arrivals
    const std::int64_t differing = i > 0 && !model ? decisionDifferences(result.runs[0], run).count : 0;  // the run's, once
    const std::vector<ModelAgreement> agreement =
        model ? modelAgreement(result.runs[0].outcome, run.outcome, run.spec.algorithms.size()) : std::vector<ModelAgreement>{};
    const Json failover = run.failover ? failoverJson(failoverWithOvershoot(run, metrics)) : Json();
    if (i == 0 && run.failover) firstFailover = failover;
    int algo = 0;
    for (Json r : doc["runs"]) {
      if (i > 0 && !model) r["decisions_differing_from_first_run"] = differing;
      if (model) {
        r["models"] = "the target's arrivals";
        r["decisions_compared_with_target"] = agreement[static_cast<std::size_t>(algo)].compared;
        r["decisions_differing_from_target"] = agreement[static_cast<std::size_t>(algo)].differing;
      }
      if (run.faults) {
        r["faults"] = faultsJson(run.spec, run.outcome, *run.faults, algo);
        r["fault_actions"] = faultActionsJson(*run.faults);
      }
      if (run.failover && result.runs.size() > 1) {  // each WAIT setting's own cost
        r["wait_replicas"] = run.spec.resilience.waitReplicas;
        r["failover"] = failover;
      }
      ++algo;
      runs.push_back(std::move(r));
    }
  }
  Json doc;
  doc["runs"] = std::move(runs);
  if (!firstFailover.is_null()) doc["failover"] = std::move(firstFailover);
  if (!result.runs.empty() && result.runs.front().spec.traceData) doc["trace"] = traceJson(*result.runs.front().spec.traceData);
  return doc;
}

Result<void> writeDecisionsCsv(const std::string& path, const StormSpec& spec, const StormOutcome& o) {
  return writeFileAtomically(path, [&](std::FILE* f) {
    const Trace* trace = spec.traceData.get();  // a trace adds its client keys as a last column
    std::fputs(trace ? (std::string(kDecisionsCsvHeader) + ",key\n").c_str() : (std::string(kDecisionsCsvHeader) + "\n").c_str(), f);
    for (const DecisionRecord& r : o.records) {
      const std::string_view algo =
          r.algorithm() < spec.algorithms.size() ? algorithmName(spec.algorithms[r.algorithm()]) : std::string_view("unknown");
      std::fprintf(f, "%lld,%lld,%u,%u,%.*s,%d,%lld,%lld,%u,%d,%d,%.6g", static_cast<long long>(r.intendedUs()),
                   static_cast<long long>(r.atUs()), static_cast<unsigned>(r.replica()), r.client(),
                   static_cast<int>(algo.size()), algo.data(), r.allowed() ? 1 : 0, static_cast<long long>(r.remaining()),
                   static_cast<long long>(r.retryAfterUs()), r.latencyUs(), r.error() ? 1 : 0, r.late() ? 1 : 0,
                   static_cast<double>(r.level()));
      if (trace) std::fprintf(f, ",%s", csvField(trace->keys[r.client()]).c_str());
      std::fputc('\n', f);
    }
    return true;
  });
}

}  // namespace rl
