#include "tune/tune_sweep.hpp"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <sstream>
#include <thread>
#include <unordered_set>

#include "common/file_read.hpp"

namespace rl {

namespace {

bool parseDouble(std::string_view t, double& out) {
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), out);
  return !t.empty() && ec == std::errc{} && p == t.data() + t.size() && std::isfinite(out);
}

Result<std::vector<char>> legitMask(const Trace& trace, const ClientStreams& s, const TuneSpec& spec,
                                    std::int64_t& peakLimit) {
  std::vector<char> legit(trace.keys.size(), 1);
  peakLimit = -1;
  if (spec.legit.kind == LegitSpec::Kind::Percentile) {
    const auto peaks = clientPeaks(s, spec.peakWindow);
    peakLimit = percentileOf(peaks, spec.legit.percentile);
    for (std::size_t c = 0; c < legit.size(); ++c) legit[c] = peaks[c] <= peakLimit;
  } else if (spec.legit.kind == LegitSpec::Kind::Keys) {
    const std::unordered_set<std::string> keys(spec.legit.keys.begin(), spec.legit.keys.end());
    for (std::size_t c = 0; c < legit.size(); ++c) legit[c] = keys.count(trace.keys[c]) > 0;
  }
  return legit;
}

void sweep(const ClientStreams& s, TuneResult& r, const TuneSpec& spec, std::atomic<std::size_t>& cursor,
           std::atomic<std::size_t>& done, const std::atomic<bool>& stop) {
  for (std::size_t i; (i = cursor.fetch_add(1)) < r.points.size();) {
    if (stop.load(std::memory_order_relaxed)) return;
    TunePoint& p = r.points[i];
    p.outcome = evaluatePoint(s, r.legit, p.algorithm, p.quota, spec.peakWindow, nullptr, &stop);
    p.computed = p.outcome.complete;
    done.fetch_add(1);
  }
}

}  // namespace

double TunePoint::legitDeniedShare() const {
  return outcome.legitOffered > 0 ? static_cast<double>(outcome.legitDenied) / static_cast<double>(outcome.legitOffered) : 0;
}

Result<LegitSpec> parseLegit(std::string_view t) {
  LegitSpec l;
  if (t == "all") return l;
  double p = 0;
  if (t.size() > 1 && t[0] == 'p' && parseDouble(t.substr(1), p) && p > 0 && p <= 100) {
    l.kind = LegitSpec::Kind::Percentile;
    l.percentile = p;
    return l;
  }
  return invalidArgument("--legit: '" + std::string(t) +
                         "' is not valid: allowed all, pNN (clients whose peak rate is at or below the NNth "
                         "percentile, 0 < NN <= 100) or --legit-file FILE");
}

Result<LegitSpec> readLegitFile(const std::string& path) {
  auto text = readWholeFile(path, "--legit-file");  // capped: /dev/zero is refused, not read
  if (!text) return text.error();
  std::istringstream in(text.value());
  LegitSpec l;
  l.kind = LegitSpec::Kind::Keys;
  for (std::string line; std::getline(in, line);) {
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    if (!line.empty() && line[0] != '#') l.keys.push_back(line);
  }
  if (l.keys.empty()) return invalidArgument("--legit-file: '" + path + "' lists no key: allowed one client key per line");
  return l;
}

Result<double> parseTargetDenied(std::string_view t) {
  const bool percent = !t.empty() && t.back() == '%';
  double v = 0;
  if (!parseDouble(percent ? t.substr(0, t.size() - 1) : t, v) || v < 0 || v > (percent ? 100 : 1))
    return invalidArgument("--target-denied: '" + std::string(t) +
                           "' is not valid: allowed a share of legitimate requests, 0% to 100% (e.g. 0.1%) or 0 to 1");
  return percent ? v / 100 : v;
}

Result<TuneResult> runTune(const Trace& trace, const TuneSpec& spec,
                           const std::function<void(std::size_t, std::size_t)>& progress,
                           const std::atomic<bool>* cancel) {
  if (spec.algorithms.empty()) return invalidArgument("--algorithm is empty: allowed one or more algorithms");
  const auto t0 = std::chrono::steady_clock::now();
  const ClientStreams s = groupByClient(trace);
  TuneResult r;
  r.traceStartUs = trace.requests.empty() ? 0 : trace.requests.front().timeUs;
  auto legit = legitMask(trace, s, spec, r.legitPeakLimit);
  if (!legit) return legit.error();
  r.legit = std::move(legit.value());
  r.legitClients = std::count(r.legit.begin(), r.legit.end(), 1);
  for (Algorithm a : spec.algorithms) {
    auto quotas = tuneGridQuotas(a, spec.grid);
    if (!quotas) return quotas.error();
    for (const Quota& q : quotas.value()) r.points.push_back({a, q, {}, false});
  }
  r.peaks = peakDistribution(s, spec.topN);

  std::atomic<std::size_t> cursor{0}, done{0};
  std::atomic<bool> stop{false};
  const int n = spec.threads > 0 ? spec.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::vector<std::thread> workers;
  for (int i = 0; i < std::min<int>(n, static_cast<int>(r.points.size())); ++i)
    workers.emplace_back([&] { sweep(s, r, spec, cursor, done, stop); });
  while (done.load() < r.points.size() && !stop.load()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (cancel && cancel->load()) stop.store(true);
    if (progress) progress(done.load(), r.points.size());
  }
  for (auto& w : workers) w.join();
  for (const auto& p : r.points) r.decisions += p.computed ? p.outcome.offered : 0;
  r.cancelled = stop.load();
  r.elapsed = std::chrono::duration_cast<Micros>(std::chrono::steady_clock::now() - t0);
  return r;
}

std::optional<std::size_t> recommend(const TuneResult& r, Algorithm a, double target) {
  std::optional<std::size_t> best;
  for (std::size_t i = 0; i < r.points.size(); ++i) {
    const TunePoint& p = r.points[i];
    if (p.algorithm != a || !p.computed || p.legitDeniedShare() > target) continue;
    if (!best) { best = i; continue; }
    const Quota& b = r.points[*best].quota;
    if (p.quota.limit < b.limit || (p.quota.limit == b.limit && p.quota.ratePerSecond() < b.ratePerSecond())) best = i;
  }
  return best;
}

std::vector<std::size_t> paretoFront(const TuneResult& r, Algorithm a) {
  std::vector<std::size_t> idx;
  for (std::size_t i = 0; i < r.points.size(); ++i)
    if (r.points[i].algorithm == a && r.points[i].computed) idx.push_back(i);
  std::stable_sort(idx.begin(), idx.end(), [&](std::size_t x, std::size_t y) {
    const double sx = r.points[x].legitDeniedShare(), sy = r.points[y].legitDeniedShare();
    return sx != sy ? sx < sy : r.points[x].outcome.worstAdmitted < r.points[y].outcome.worstAdmitted;
  });
  std::vector<std::size_t> front;
  for (std::size_t i : idx)
    if (front.empty() || r.points[i].outcome.worstAdmitted < r.points[front.back()].outcome.worstAdmitted)
      front.push_back(i);
  return front;
}

}  // namespace rl
