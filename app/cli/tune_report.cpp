#include "tune_report.hpp"

#include <cerrno>
#include <cmath>
#include <cstring>

#include "common/printable_text.hpp"
#include "run_report.hpp"

namespace rl::cli {

namespace {

std::string legitText(const TuneSpec& spec, const TuneResult& r, std::size_t clients) {
  std::string s = std::to_string(r.legitClients) + " of " + std::to_string(clients) + " clients";
  if (spec.legit.kind == LegitSpec::Kind::All) return s + " (all)";
  if (spec.legit.kind == LegitSpec::Kind::Keys) return s + " (from --legit-file)";
  char buf[96];
  std::snprintf(buf, sizeof buf, " (peak <= %lld in %s: p%g)", static_cast<long long>(r.legitPeakLimit),
                windowWords(spec.peakWindow).c_str(), spec.legit.percentile);
  return s + buf;
}

void printPoint(std::FILE* out, const char* lead, const TunePoint& p, const TuneSpec& spec, std::int64_t startUs) {
  const PointOutcome& o = p.outcome;
  std::fprintf(out, "%s%-26s legit denied %.4f%% (%lld of %lld), all denied %lld, clients denied %lld, worst admitted %lld in %s",
               lead, p.quota.toString().c_str(), 100.0 * p.legitDeniedShare(), static_cast<long long>(o.legitDenied),
               static_cast<long long>(o.legitOffered), static_cast<long long>(o.denied),
               static_cast<long long>(o.clientsDenied), static_cast<long long>(o.worstAdmitted),
               windowWords(spec.peakWindow).c_str());
  if (o.firstDenialUs >= 0) std::fprintf(out, ", first denial at +%.3f s", static_cast<double>(o.firstDenialUs - startUs) / 1e6);
  std::fputc('\n', out);
}

void printPeaks(std::FILE* out, const Trace& trace, const TuneResult& r) {
  std::fprintf(out, "per-client peak requests   %7s %7s %7s %7s %7s   top clients\n", "p50", "p90", "p99", "p99.9", "max");
  for (const PeakWindow& w : r.peaks) {
    std::fprintf(out, "  in %-22s", windowWords(w.window).c_str());
    for (const auto& [pct, v] : w.percentiles) std::fprintf(out, " %7lld", static_cast<long long>(v));
    std::fputs("  ", out);
    for (std::size_t i = 0; i < w.top.size() && i < 3; ++i)
      std::fprintf(out, " %s (%lld)", printableText(trace.keys[w.top[i]]).c_str(), static_cast<long long>(w.peaks[w.top[i]]));
    std::fputc('\n', out);
  }
}

}  // namespace

void printTuneTable(std::FILE* out, const Trace& trace, const TuneSpec& spec, const TuneResult& r, Micros readTime) {
  std::fprintf(out, "trace: %s, read in %.2f s\n", trace.summary().c_str(), static_cast<double>(readTime.count()) / 1e6);
  std::fprintf(out, "legit: %s; target: at most %g%% of their requests denied\n",
               legitText(spec, r, trace.keys.size()).c_str(), 100.0 * spec.targetDenied);
  printPeaks(out, trace, r);
  const double secs = static_cast<double>(r.elapsed.count()) / 1e6;
  std::fprintf(out, "sweep: %zu points, %lld decisions in %.2f s (%.1fM decisions/s)%s\n", r.points.size(),
               static_cast<long long>(r.decisions), secs, secs > 0 ? static_cast<double>(r.decisions) / secs / 1e6 : 0.0,
               r.cancelled ? "; CANCELLED: only the computed points are shown" : "");
  for (Algorithm a : spec.algorithms) {
    const auto best = recommend(r, a, spec.targetDenied);
    std::fprintf(out, "%s:\n", std::string(algorithmName(a)).c_str());
    if (best)
      printPoint(out, "  recommended ", r.points[*best], spec, r.traceStartUs);
    else
      std::fprintf(out, "  recommended none: no computed point denies at most %g%% of legit requests\n",
                   100.0 * spec.targetDenied);
    std::fprintf(out, "  Pareto front (legit denied vs worst admitted in %s):\n", windowWords(spec.peakWindow).c_str());
    for (auto i : paretoFront(r, a)) printPoint(out, "    ", r.points[i], spec, r.traceStartUs);
  }
}

Result<void> writeTuneCsv(const std::string& path, const TuneResult& r) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (!f) return invalidArgument("--csv: cannot write '" + path + "': " + std::strerror(errno));
  std::fputs("algorithm,limit,window_ms,refill_rate,offered,denied,legit_offered,legit_denied,clients_denied,"
             "worst_admitted,first_denial_us\n", f);
  for (const TunePoint& p : r.points) {
    if (!p.computed) continue;
    const PointOutcome& o = p.outcome;
    std::fprintf(f, "%s,%lld,%lld,%g,%lld,%lld,%lld,%lld,%lld,%lld,%lld\n", std::string(algorithmName(p.algorithm)).c_str(),
                 static_cast<long long>(p.quota.limit), static_cast<long long>(p.quota.window.count() / 1000),
                 p.quota.refillPerSecond.value_or(0.0), static_cast<long long>(o.offered), static_cast<long long>(o.denied),
                 static_cast<long long>(o.legitOffered), static_cast<long long>(o.legitDenied),
                 static_cast<long long>(o.clientsDenied), static_cast<long long>(o.worstAdmitted),
                 static_cast<long long>(o.firstDenialUs < 0 ? -1 : o.firstDenialUs - r.traceStartUs));
  }
  if (std::fclose(f) != 0) return invalidArgument("--csv: cannot write '" + path + "': " + std::strerror(errno));
  return {};
}

}  // namespace rl::cli
