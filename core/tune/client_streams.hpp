#pragma once
// A trace regrouped by client: every client's requests in time order, in one
// flat array (offsets per client). A limiter keeps one state per client and
// clients never interact, so a sweep can decide one client's whole stream at
// a time: no per-client state table, no hashing, cache-friendly.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "limiter/time.hpp"
#include "trace/trace.hpp"

namespace rl {

/// The requests of a trace grouped by client; see the file comment.
struct ClientStreams {
  std::vector<std::size_t> offsets;   ///< client c's requests are [offsets[c], offsets[c+1])
  std::vector<std::int64_t> times;    ///< request times (us since the epoch)
  std::vector<std::uint32_t> costs;   ///< request costs
  std::vector<std::uint32_t> order;   ///< index of each request in Trace::requests

  /// Number of clients.
  std::size_t clients() const { return offsets.empty() ? 0 : offsets.size() - 1; }
  /// Times of client `c`.
  std::span<const std::int64_t> timesOf(std::size_t c) const {
    return {times.data() + offsets[c], offsets[c + 1] - offsets[c]};
  }
  /// Costs of client `c`.
  std::span<const std::uint32_t> costsOf(std::size_t c) const {
    return {costs.data() + offsets[c], offsets[c + 1] - offsets[c]};
  }
};

/// Groups `trace` by client (counting sort: stable, O(n)).
ClientStreams groupByClient(const Trace& trace);

/// Each client's peak cost in any window (t - W, t] of length `window`.
std::vector<std::int64_t> clientPeaks(const ClientStreams& s, Micros window);

/// A window in words: "1 s", "10 s", "1 min", "1 h" or "250 ms".
std::string windowWords(Micros w);

/// Nearest-rank percentile (0 < p <= 100) of `values`; 0 when empty.
std::int64_t percentileOf(std::vector<std::int64_t> values, double p);

/// One window of the per-client peak-rate distribution.
struct PeakWindow {
  Micros window{0};                     ///< window length
  std::vector<std::int64_t> peaks;      ///< per client, index = client
  std::vector<std::pair<double, std::int64_t>> percentiles;  ///< (p, peak at p)
  std::vector<std::uint32_t> top;       ///< clients with the highest peaks, highest first
};

/// The distribution over `windows` (1 s, 10 s, 1 min, 1 h by default) with the top `topN` clients.
std::vector<PeakWindow> peakDistribution(const ClientStreams& s, std::size_t topN,
                                         const std::vector<Micros>& windows = {kSecond, 10 * kSecond, 60 * kSecond,
                                                                               3600 * kSecond});

}  // namespace rl
