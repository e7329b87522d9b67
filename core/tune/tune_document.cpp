#include "tune/tune_document.hpp"

#include <cmath>
#include <cstdio>

#include "metrics/run_document.hpp"

namespace rl {

namespace {

double round6(double v) { return std::round(v * 1e6) / 1e6; }

Json pointJson(const TunePoint& p, std::int64_t startUs) {
  Json j;
  j["algorithm"] = algorithmName(p.algorithm);
  j["quota"] = p.quota.toString();
  j["limit"] = p.quota.limit;
  j["window_ms"] = static_cast<std::int64_t>(p.quota.window.count() / 1000);
  if (p.quota.refillPerSecond) j["refill_rate"] = *p.quota.refillPerSecond;
  const PointOutcome& o = p.outcome;
  j["offered"] = o.offered;
  j["denied"] = o.denied;
  j["legit_offered"] = o.legitOffered;
  j["legit_denied"] = o.legitDenied;
  j["legit_denied_share"] = round6(p.legitDeniedShare());
  j["clients_denied"] = o.clientsDenied;
  j["legit_clients_denied"] = o.legitClientsDenied;
  j["worst_admitted"] = o.worstAdmitted;
  j["first_denial_ms"] = o.firstDenialUs < 0 ? Json() : Json(static_cast<double>(o.firstDenialUs - startUs) / 1000.0);
  return j;
}

}  // namespace

Json tuneDocument(const Trace& trace, const TuneSpec& spec, const TuneResult& r, Micros readTime) {
  Json doc;
  Json t = traceJson(trace);
  t["read_ms"] = static_cast<double>(readTime.count()) / 1000.0;
  doc["trace"] = std::move(t);
  doc["target_denied"] = spec.targetDenied;
  doc["peak_window_ms"] = static_cast<std::int64_t>(spec.peakWindow.count() / 1000);
  Json legit;
  legit["mode"] = spec.legit.kind == LegitSpec::Kind::All ? "all" : spec.legit.kind == LegitSpec::Kind::Keys ? "file" : "percentile";
  legit["clients"] = r.legitClients;
  if (r.legitPeakLimit >= 0) legit["peak_limit"] = r.legitPeakLimit;
  doc["legit"] = std::move(legit);
  Json peaks = Json::array();
  for (const PeakWindow& w : r.peaks) {
    Json pw;
    pw["window_ms"] = static_cast<std::int64_t>(w.window.count() / 1000);
    for (const auto& [pct, v] : w.percentiles) {
      char name[16];
      std::snprintf(name, sizeof name, "p%g", pct);
      std::string n = pct == 100 ? "max" : name;
      for (char& c : n) c = c == '.' ? '_' : c;
      pw[n] = v;
    }
    Json top = Json::array();
    for (auto c : w.top) top.push_back(Json{{"key", trace.keys[c]}, {"peak", w.peaks[c]}});
    pw["top"] = std::move(top);
    peaks.push_back(std::move(pw));
  }
  doc["peaks"] = std::move(peaks);
  Json points = Json::array(), recs = Json::array();
  for (const TunePoint& p : r.points)
    if (p.computed) points.push_back(pointJson(p, r.traceStartUs));
  for (Algorithm a : spec.algorithms) {
    Json rec;
    rec["algorithm"] = algorithmName(a);
    const auto best = recommend(r, a, spec.targetDenied);
    rec["recommended"] = best ? pointJson(r.points[*best], r.traceStartUs) : Json();
    Json front = Json::array();
    for (auto i : paretoFront(r, a)) front.push_back(pointJson(r.points[i], r.traceStartUs));
    rec["pareto"] = std::move(front);
    recs.push_back(std::move(rec));
  }
  doc["points"] = std::move(points);
  doc["algorithms"] = std::move(recs);
  doc["decisions"] = r.decisions;
  doc["elapsed_ms"] = static_cast<double>(r.elapsed.count()) / 1000.0;
  doc["cancelled"] = r.cancelled;
  return doc;
}

}  // namespace rl
