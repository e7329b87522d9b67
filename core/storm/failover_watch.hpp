#pragma once
// Waiting through a failover storm: the caller's thread sleeps in short steps
// until the run reaches a time (or a condition holds), and lets its watcher
// take records and print progress meanwhile. Shared by the scripted and the
// natural failover runs.

#include <functional>

#include "storm/storm_runner.hpp"

namespace rl {

/// What the caller watches while a failover storm runs (called on the caller's thread).
struct FailoverWatch {
  std::function<void(const StormProgress&)> onProgress;  ///< about every 200 ms (the CLI's progress line)
  std::function<void(StormRunner&)> onPoll;              ///< about every 20 ms, and once after the run ended (the window takes records)
};

/// Returns once the run's elapsed time reaches `at`, the run finished, or `done` (checked
/// about every 20 ms, when given) is true; true when `done` ended the wait.
bool waitForRun(StormRunner& runner, Micros at, const FailoverWatch& watch, const std::function<bool()>& done = {});

}  // namespace rl
