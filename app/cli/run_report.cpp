#include "run_report.hpp"

#include <cerrno>
#include <cmath>
#include <cstring>

#include "common/printable_text.hpp"
#include "metrics/over_limit.hpp"
#include "storm/compared_runs.hpp"

namespace rl::cli {

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
    if (spec.backend == Backend::Http) r["http_target"] = spec.httpTargets.front();
    if (o.firstDecisionError) r["first_error"] = o.firstDecisionError->message;
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
    r["on_redis_error"] = failurePolicyName(spec.onRedisError);
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

void printRunTable(std::FILE* out, const StormSpec& spec, const StormOutcome& o,
                   const std::vector<AlgorithmMetrics>& metrics) {
  if (spec.traceData) std::fprintf(out, "trace: %s\n", spec.traceData->summary().c_str());
  const std::string backend = backendLabel(spec);
  std::fprintf(out, "storm: %s backend, %d replica(s), %d client(s), %lld requests (%s), %s clock, quota %s\n",
               backend.c_str(), spec.replicas, spec.clients,
               static_cast<long long>(o.progress.planned / static_cast<std::int64_t>(std::max<std::size_t>(spec.algorithms.size(), 1))),
               spec.traceData ? "trace" : std::string(patternName(spec.pattern)).c_str(), std::string(clockModeName(spec.clock)).c_str(),
               spec.quota.toString().c_str());
  std::fprintf(out, "%-16s %9s %9s %9s %7s %11s %9s %8s %8s %8s %12s\n", "algorithm", "offered", "admitted",
               "denied", "errors", "max/window", "overshoot", "p50 us", "p99 us", "max us", "decisions/s");
  for (const AlgorithmMetrics& m : metrics)
    std::fprintf(out, "%-16s %9lld %9lld %9lld %7lld %11lld %8.2fx %8lld %8lld %8lld %12.0f\n",
                 laneLabel(spec, m.algorithm, false).c_str(), static_cast<long long>(m.offered),
                 static_cast<long long>(m.admitted), static_cast<long long>(m.denied),
                 static_cast<long long>(m.errors), static_cast<long long>(m.maxAdmittedInWindow), m.overshoot,
                 static_cast<long long>(m.latency.p50), static_cast<long long>(m.latency.p99),
                 static_cast<long long>(m.latency.max), m.throughputRps);
  for (const AlgorithmMetrics& m : metrics)
    if (m.overLimitAdmitted > 0)
      std::fprintf(out, "%s: %lld admission(s) over its limit (%s); worst: client %u at %.3f s, %.2fx\n",
                   laneLabel(spec, m.algorithm, false).c_str(), static_cast<long long>(m.overLimitAdmitted),
                   overLimitBoundText(m.algorithm, spec.quota).c_str(), m.worstClient,
                   static_cast<double>(m.worstAtUs) / 1e6, m.overshoot);
  for (const AlgorithmMetrics& m : metrics)
    if (m.degraded > 0)
      std::fprintf(out, "%s: %lld decisions degraded (Redis down), --on-redis-error %s admitted %lld of them\n",
                   std::string(algorithmName(m.algorithm)).c_str(), static_cast<long long>(m.degraded),
                   std::string(failurePolicyName(spec.onRedisError)).c_str(), static_cast<long long>(m.degradedAdmitted));
  std::fprintf(out, "wall %.1f ms; late %lld, dropped %lld%s\n", static_cast<double>(o.wallDuration.count()) / 1000.0,
               static_cast<long long>(o.progress.late), static_cast<long long>(o.progress.dropped),
               o.cancelled ? "; CANCELLED" : "");
  if (o.firstDecisionError) std::fprintf(out, "first error: %s\n", printableText(o.firstDecisionError->message).c_str());
}

void printFailover(std::FILE* out, const FailoverReport& r) {
  for (const std::string& line : failoverSentences(r)) std::fprintf(out, "%s\n", line.c_str());
}

Result<void> writeDecisionsCsv(const std::string& path, const StormSpec& spec, const StormOutcome& o) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (!f) return invalidArgument("--csv: cannot write '" + path + "': " + std::strerror(errno));
  const Trace* trace = spec.traceData.get();  // a trace adds its client keys as a last column
  std::fputs(trace ? "intended_us,actual_us,replica,client,algorithm,allowed,remaining,retry_after_us,latency_us,key\n"
                   : "intended_us,actual_us,replica,client,algorithm,allowed,remaining,retry_after_us,latency_us\n",
             f);
  for (const DecisionRecord& r : o.records) {
    const std::string_view algo = algorithmName(spec.algorithms[r.algorithm()]);
    std::fprintf(f, "%lld,%lld,%u,%u,%.*s,%d,%lld,%lld,%u", static_cast<long long>(r.intendedUs()),
                 static_cast<long long>(r.atUs()), static_cast<unsigned>(r.replica()), r.client(),
                 static_cast<int>(algo.size()), algo.data(), r.allowed() ? 1 : 0, static_cast<long long>(r.remaining()),
                 static_cast<long long>(r.retryAfterUs()), r.latencyUs());
    if (trace) std::fprintf(f, ",%s", csvField(trace->keys[r.client()]).c_str());
    std::fputc('\n', f);
  }
  if (std::fclose(f) != 0) return invalidArgument("--csv: cannot write '" + path + "': " + std::strerror(errno));
  return {};
}

}  // namespace rl::cli
