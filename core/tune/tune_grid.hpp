#pragma once
// The quota grid of a tune sweep: `--limit 5:200:5` (start:stop:step) or a
// list `5,10,20`, the same for `--refill-rate` and `--window-ms`. Window
// algorithms sweep limit x window; rate algorithms sweep limit x refill rate
// when refill rates are given, else limit x window (refill = limit / window).

#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"
#include "limiter/algorithm.hpp"
#include "limiter/quota.hpp"

namespace rl {

/// Most grid points one sweep may hold (per algorithm).
inline constexpr std::size_t kMaxGridPoints = 100'000;

/// The axes of a sweep; empty axes take the defaults named in tuneGridQuotas().
struct TuneGrid {
  std::vector<std::int64_t> limits;  ///< --limit
  std::vector<double> refillRates;   ///< --refill-rate (tokens per second)
  std::vector<Micros> windows;       ///< --window-ms
};

/// Parses "start:stop:step" or "a,b,c" of integers; the error names `flag`.
Result<std::vector<std::int64_t>> parseIntAxis(std::string_view text, const std::string& flag);
/// Parses "start:stop:step" or "a,b,c" of positive numbers; the error names `flag`.
Result<std::vector<double>> parseRateAxis(std::string_view text, const std::string& flag);

/// The quotas swept for `a`, limit-major (all second-axis values of the
/// smallest limit first). Windows default to 1 s; each quota is valid for
/// `a` (invalid combinations are an error naming the flags).
Result<std::vector<Quota>> tuneGridQuotas(Algorithm a, const TuneGrid& grid);

/// True when the sweep's second axis for `a` is the refill rate.
bool sweepsRefill(Algorithm a, const TuneGrid& grid);

}  // namespace rl
