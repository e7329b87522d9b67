#pragma once
// The string values of RateLab's limiter keys that hold more than one number
// (resources/lua: token_bucket.lua, sliding_log.lua). The Lua scripts write
// them; redis-naive / redis-watch and the key inspector read and write them
// through these functions.
//   token_bucket: "<tokens> <ts>"                 e.g. "7 1700000000000000"
//   sliding_log:  16-digit timestamps, oldest first, each followed by a space

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <utility>

#include "common/result.hpp"

namespace rl {

/// Width of one sliding_log entry: 16 decimal digits (us since the epoch, < 10^16) and a space.
inline constexpr std::size_t kSlidingLogEntryBytes = 17;

/// "<tokens> <ts>"; both must be >= 0.
std::string encodeTokenBucket(std::int64_t tokens, std::int64_t refilledAt);

/// {tokens, ts} of "<tokens> <ts>", or a protocol error naming the value.
Result<std::pair<std::int64_t, std::int64_t>> decodeTokenBucket(std::string_view value);

/// The log as 17-byte entries; every entry must be in [0, 10^16).
std::string encodeSlidingLog(const std::deque<std::int64_t>& entries);

/// The entries of a log (oldest first), or a protocol error naming what is wrong.
Result<std::deque<std::int64_t>> decodeSlidingLog(std::string_view value);

}  // namespace rl
