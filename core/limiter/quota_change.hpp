#pragma once
// What a rate algorithm's state keeps when its quota changes (ARCHITECTURE.md,
// "A quota change"): token_bucket keeps its tokens, leaky_bucket its queued
// work. Both store time in units of the interval they were written with, so a
// state written under interval I_old and read under I_new is first rescaled:
//   d_new = floor(d_old / I_old) * I_new + floor((d_old mod I_old) * I_new / I_old)
// i.e. whole tokens (or queued requests) carry over exactly and the partial
// one keeps its fraction. The Lua twins (resources/lua/token_bucket.lua,
// leaky_bucket.lua) compute the same; they are exact while the partial
// product stays below 2^53 (intervals below about 95 s).

#include <cstdint>

namespace rl {

__extension__ using WideInt = __int128;  ///< for one exact product of two intervals

/// `us` of work measured in intervals of `fromIv` re-expressed in intervals of `toIv`.
constexpr std::int64_t rescaleInterval(std::int64_t us, std::int64_t fromIv, std::int64_t toIv) {
  if (fromIv <= 0 || fromIv == toIv) return us;
  const std::int64_t whole = us / fromIv;
  const std::int64_t part = us % fromIv;
  return whole * toIv + static_cast<std::int64_t>(static_cast<WideInt>(part) * toIv / fromIv);
}

}  // namespace rl
