#pragma once
// A duration for people: "250 ms", "59.2 s", "3 min 12 s", "2 h 5 min",
// "3 d 4 h". The one place the window and the CLI turn milliseconds into words
// (key TTLs, resets, the inspector's timestamps).

#include <cstdint>
#include <string>

namespace rl {

/// `ms` (>= 0) in the largest unit that keeps it readable: under 1 s in ms,
/// under a minute in tenths of a second, then two units (min s, h min, d h).
std::string durationText(std::int64_t ms);

}  // namespace rl
