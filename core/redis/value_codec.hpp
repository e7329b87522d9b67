#pragma once
// The string value of RateLab's limiter keys that holds more than one number
// (resources/lua/sliding_log.lua). The Lua script writes it; redis-naive /
// redis-watch and the key inspector read and write it through these functions.
//   sliding_log:  16-digit timestamps, oldest first, each followed by a space
// (Every other RateLab key holds one integer.)

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>

#include "common/result.hpp"

namespace rl {

/// Width of one sliding_log entry: 16 decimal digits (us since the epoch, < 10^16) and a space.
inline constexpr std::size_t kSlidingLogEntryBytes = 17;

/// The log as 17-byte entries; every entry must be in [0, 10^16).
std::string encodeSlidingLog(const std::deque<std::int64_t>& entries);

/// The entries of a log (oldest first), or a protocol error naming what is wrong.
Result<std::deque<std::int64_t>> decodeSlidingLog(std::string_view value);

}  // namespace rl
