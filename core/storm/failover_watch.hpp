#pragma once
// The one poll loop of a storm: the caller's thread sleeps in short steps
// until the runs reach a time, finish, or a condition holds, and lets its
// watcher take records and print progress meanwhile. Used by the experiment
// runner (experiment.hpp), runStorm, and the scripted and natural failovers.

#include <atomic>
#include <functional>
#include <span>

#include "storm/storm_runner.hpp"

namespace rl {

/// What the caller watches while a failover storm runs (called on the caller's thread).
struct FailoverWatch {
  std::function<void(const StormProgress&)> onProgress;  ///< about every 200 ms (the CLI's progress line)
  std::function<void(StormRunner&)> onPoll;              ///< about every 20 ms per run, and once after the run ended (the window takes records)
  const std::atomic<bool>* cancel = nullptr;             ///< when it turns true, every run watched is cancelled
  /// A natural failover: the master went at `from` (run time), and a successor was seen at `to`
  /// (-1 while none is): called once at the kill, once at the election (the window's live marker).
  std::function<void(Micros from, Micros to)> onNoMaster;
};

/// Returns once every run finished, the first run's elapsed time reaches `at`, or `done`
/// (checked about every 20 ms, when given) is true; true when `done` ended the wait.
bool waitForRuns(std::span<StormRunner* const> runners, Micros at, const FailoverWatch& watch,
                 const std::function<bool()>& done = {});

/// Returns once the run's elapsed time reaches `at`, the run finished, or `done` (checked
/// about every 20 ms, when given) is true; true when `done` ended the wait.
bool waitForRun(StormRunner& runner, Micros at, const FailoverWatch& watch, const std::function<bool()>& done = {});

}  // namespace rl
