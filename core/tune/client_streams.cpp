#include "tune/client_streams.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "metrics/window_truth.hpp"

namespace rl {

ClientStreams groupByClient(const Trace& trace) {
  ClientStreams s;
  const std::size_t n = trace.requests.size();
  s.offsets.assign(trace.keys.size() + 1, 0);
  for (const auto& r : trace.requests) ++s.offsets[r.client + 1];
  std::partial_sum(s.offsets.begin(), s.offsets.end(), s.offsets.begin());
  s.times.resize(n);
  s.costs.resize(n);
  s.order.resize(n);
  std::vector<std::size_t> next(s.offsets.begin(), s.offsets.end() - 1);
  for (std::size_t i = 0; i < n; ++i) {
    const auto& r = trace.requests[i];
    const std::size_t at = next[r.client]++;
    s.times[at] = r.timeUs;
    s.costs[at] = r.cost;
    s.order[at] = static_cast<std::uint32_t>(i);
  }
  return s;
}

std::vector<std::int64_t> clientPeaks(const ClientStreams& s, Micros window) {
  std::vector<std::int64_t> out(s.clients());
  for (std::size_t c = 0; c < out.size(); ++c) out[c] = maxCostInAnyWindow(s.timesOf(c), s.costsOf(c), window.count());
  return out;
}

std::string windowWords(Micros w) {
  const std::int64_t us = w.count();
  if (us % 3'600'000'000 == 0) return std::to_string(us / 3'600'000'000) + " h";
  if (us % 60'000'000 == 0) return std::to_string(us / 60'000'000) + " min";
  if (us % 1'000'000 == 0) return std::to_string(us / 1'000'000) + " s";
  return std::to_string(us / 1000) + " ms";
}

std::int64_t percentileOf(std::vector<std::int64_t> v, double p) {
  if (v.empty()) return 0;
  const auto rank = static_cast<std::size_t>(std::ceil(p / 100.0 * static_cast<double>(v.size())));
  const std::size_t k = std::clamp<std::size_t>(rank, 1, v.size()) - 1;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
  return v[k];
}

std::vector<PeakWindow> peakDistribution(const ClientStreams& s, std::size_t topN, const std::vector<Micros>& windows) {
  std::vector<PeakWindow> out;
  for (Micros w : windows) {
    PeakWindow pw;
    pw.window = w;
    pw.peaks = clientPeaks(s, w);
    for (double p : {50.0, 90.0, 99.0, 99.9, 100.0}) pw.percentiles.emplace_back(p, percentileOf(pw.peaks, p));
    std::vector<std::uint32_t> idx(pw.peaks.size());
    std::iota(idx.begin(), idx.end(), 0u);
    const std::size_t k = std::min(topN, idx.size());
    std::partial_sort(idx.begin(), idx.begin() + static_cast<std::ptrdiff_t>(k), idx.end(),
                      [&](std::uint32_t a, std::uint32_t b) {
                        return pw.peaks[a] != pw.peaks[b] ? pw.peaks[a] > pw.peaks[b] : a < b;
                      });
    pw.top.assign(idx.begin(), idx.begin() + static_cast<std::ptrdiff_t>(k));
    out.push_back(std::move(pw));
  }
  return out;
}

}  // namespace rl
