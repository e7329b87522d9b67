#pragma once
// The string value of RateLab's limiter keys that holds more than one number
// (resources/lua/sliding_log.lua). The Lua script writes it; redis-naive /
// redis-watch and the key inspector read and write it through these functions.
//   sliding_log:  16-digit timestamps, oldest first, each followed by a space
//   token_bucket: "<full at us>:<interval us>:<limit>"
//   leaky_bucket: "<drain at us>:<interval us>"
// (the quota a bucket was written with, so a quota change keeps its tokens or
// queue: limiter/quota_change.hpp). A bare "<time us>" (keys written before)
// reads as written under the current quota. Every other key holds one integer.

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

/// A token_bucket or leaky_bucket value: a time and the quota it was written under (0: not stored).
struct BucketValue {
  std::int64_t time = 0;      ///< full-again (token_bucket) or drain (leaky_bucket) time, us
  std::int64_t interval = 0;  ///< us per token / request when written
  std::int64_t limit = 0;     ///< token_bucket capacity when written (leaky_bucket: 0)
};

/// "time:interval[:limit]" (the limit when > 0).
std::string encodeBucketValue(const BucketValue& v);

/// Reads "time", "time:interval" or "time:interval:limit"; the error names `what` and the value.
Result<BucketValue> decodeBucketValue(std::string_view value, std::string_view what);

}  // namespace rl
