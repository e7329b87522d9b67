#pragma once
// The parse and emit functions of each dialect, one .cpp per dialect; the
// table in dialect.cpp lists them. Internal to core/dialects.

#include "dialects/dialect.hpp"

namespace rl::dialect {

Result<std::vector<DialectQuota>> parseNginx(std::string_view text);
Emitted emitNginx(Algorithm algorithm, const Quota& quota);
Result<std::vector<DialectQuota>> parseEnvoy(std::string_view text);
Emitted emitEnvoy(Algorithm algorithm, const Quota& quota);
Result<std::vector<DialectQuota>> parseTraefik(std::string_view text);
Emitted emitTraefik(Algorithm algorithm, const Quota& quota);
Result<std::vector<DialectQuota>> parseExpress(std::string_view text);
Emitted emitExpress(Algorithm algorithm, const Quota& quota);
Result<std::vector<DialectQuota>> parseFlexible(std::string_view text);
Emitted emitFlexible(Algorithm algorithm, const Quota& quota);
Result<std::vector<DialectQuota>> parseLimits(std::string_view text);
Emitted emitLimits(Algorithm algorithm, const Quota& quota);
Result<std::vector<DialectQuota>> parseRedisRate(std::string_view text);
Emitted emitRedisRate(Algorithm algorithm, const Quota& quota);

/// The sentence every window-for-rate emission shares: what a window algorithm
/// does that a steady refill does not (and back).
std::string windowVersusRate(Algorithm from, std::string_view tool);

/// The window a quota fills: its window, or for a rate algorithm the time to refill the whole limit (s).
double windowSeconds(Algorithm algorithm, const Quota& quota);

/// Checks `q` for `a`; the error is "<dialect>: <what> gives <reason>".
Result<void> checkQuota(std::string_view dialect, std::string_view token, Algorithm a, const Quota& q);

}  // namespace rl::dialect
