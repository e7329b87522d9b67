#pragma once
// A tune sweep: every grid point of every algorithm over one trace, on all
// cores (std::thread), then per algorithm the recommendation (the smallest
// limit, then the smallest rate, whose legitimate-denied share meets the
// target) and the Pareto front of legit denied against worst admitted.
//
// Threading: runTune() blocks; workers take the next point from an atomic
// cursor. `progress` and `cancel` are served from the calling thread about
// every 100 ms; a cancelled sweep returns the points computed so far.

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "tune/client_streams.hpp"
#include "tune/tune_eval.hpp"
#include "tune/tune_grid.hpp"

namespace rl {

/// Which clients are legitimate (`--legit`, `--legit-file`).
struct LegitSpec {
  enum class Kind { All, Percentile, Keys };
  Kind kind = Kind::All;          ///< all clients, those at or below a peak percentile, or a key list
  double percentile = 99;         ///< Percentile: clients whose peak is <= the peak at this percentile
  std::vector<std::string> keys;  ///< Keys: the legitimate client keys
};

/// "all" or "pNN" (0 < NN <= 100, decimals allowed: p99.9).
Result<LegitSpec> parseLegit(std::string_view text);
/// One key per line (blank lines and # comments skipped); the error names --legit-file.
Result<LegitSpec> readLegitFile(const std::string& path);
/// "0.1%" or "0.001": a share 0..1; the error names --target-denied.
Result<double> parseTargetDenied(std::string_view text);

/// A whole sweep.
struct TuneSpec {
  std::vector<Algorithm> algorithms{Algorithm::TokenBucket};  ///< --algorithm
  TuneGrid grid;                   ///< --limit, --refill-rate, --window-ms
  double targetDenied = 0.001;     ///< --target-denied: share of legitimate requests that may be denied
  LegitSpec legit;                 ///< --legit / --legit-file
  Micros peakWindow{kSecond};      ///< --peak-window-ms: window of "worst admitted" and of pNN peaks
  int threads = 0;                 ///< 0 = one per core
  std::size_t topN = 10;           ///< --top: clients listed per distribution window
};

/// One evaluated grid point.
struct TunePoint {
  Algorithm algorithm = Algorithm::TokenBucket;  ///< which algorithm
  Quota quota;                                   ///< the quota swept
  PointOutcome outcome;                          ///< what it did
  bool computed = false;                         ///< false when the sweep was cancelled first
  /// Share of legitimate requests denied (0 when there are none).
  double legitDeniedShare() const;
};

/// Everything a sweep found.
struct TuneResult {
  std::vector<TunePoint> points;     ///< algorithm by algorithm (spec order), grid order within
  std::vector<char> legit;           ///< per client: legitimate
  std::int64_t legitClients = 0;     ///< how many
  std::int64_t legitPeakLimit = -1;  ///< Percentile: the peak at that percentile; -1 otherwise
  std::vector<PeakWindow> peaks;     ///< per-client peak distribution (1 s, 10 s, 1 min, 1 h)
  std::int64_t traceStartUs = 0;     ///< time of the trace's first request
  bool cancelled = false;            ///< stopped before every point was computed
  Micros elapsed{0};                 ///< wall time of the sweep
  std::int64_t decisions = 0;        ///< limiter decisions made
};

/// Runs the sweep; the error names the flag (grid, legit) that is wrong.
Result<TuneResult> runTune(const Trace& trace, const TuneSpec& spec,
                           const std::function<void(std::size_t done, std::size_t total)>& progress = {},
                           const std::atomic<bool>* cancel = nullptr);

/// The recommended point of `a` (index into points): the smallest limit, then
/// the smallest rate, meeting `target`; nullopt when no computed point does.
std::optional<std::size_t> recommend(const TuneResult& r, Algorithm a, double target);

/// The Pareto front of `a`: computed points not beaten on both legit-denied
/// share and worst admitted, by ascending share.
std::vector<std::size_t> paretoFront(const TuneResult& r, Algorithm a);

}  // namespace rl
