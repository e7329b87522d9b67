#pragma once
// The six limiter algorithms, their stable names and one-sentence explanations.

#include <array>
#include <optional>
#include <string_view>

namespace rl {

/// Which limiter algorithm decides.
enum class Algorithm {
  FixedWindow,     ///< counter per aligned window
  SlidingLog,      ///< one timestamp per admitted request
  SlidingCounter,  ///< previous and current window counts, weighted
  TokenBucket,     ///< tokens refilled at a steady rate, bursts up to capacity
  LeakyBucket,     ///< a queue drained at a steady rate: shapes, delays
  Gcra,            ///< generic cell rate algorithm: theoretical arrival time
};

/// All algorithms in display order.
inline constexpr std::array<Algorithm, 6> kAllAlgorithms = {
    Algorithm::FixedWindow, Algorithm::SlidingLog,  Algorithm::SlidingCounter,
    Algorithm::TokenBucket, Algorithm::LeakyBucket, Algorithm::Gcra};

/// Stable snake_case name used in flags, JSON, keys and Lua file names ("token_bucket").
std::string_view algorithmName(Algorithm a);

/// Parses a stable name; nullopt if unknown.
std::optional<Algorithm> parseAlgorithm(std::string_view name);

/// One sentence saying how the algorithm behaves (tooltips, `--help`).
std::string_view algorithmSummary(Algorithm a);

/// True for the algorithms whose quota is a rate (token_bucket, leaky_bucket, gcra).
bool isRateBased(Algorithm a);

}  // namespace rl
