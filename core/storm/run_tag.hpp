#pragma once
// A fresh key space per run: every storm, race or bench prepends its own tag to
// the client names, so it never meets an earlier run's keys in Redis (a fixed
// window still full from the last run would deny everything).

#include <string>
#include <string_view>

namespace rl {

/// "<word><unix ms>-<n>-": n counts the tags this process made, so two runs
/// started in the same millisecond (or by two windows) still differ.
std::string freshRunTag(std::string_view word);

}  // namespace rl
