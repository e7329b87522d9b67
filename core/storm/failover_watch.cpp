#include "storm/failover_watch.hpp"

#include <algorithm>
#include <chrono>
#include <thread>

namespace rl {

bool waitForRuns(std::span<StormRunner* const> runners, Micros at, const FailoverWatch& watch,
                 const std::function<bool()>& done) {
  using Steady = std::chrono::steady_clock;
  const auto allFinished = [&] { return std::all_of(runners.begin(), runners.end(), [](StormRunner* r) { return r->finished(); }); };
  auto lastReport = Steady::now();
  auto lastPoll = Steady::now();
  auto lastCheck = Steady::now() - std::chrono::seconds(1);
  bool cancelled = false;
  while (!runners.empty() && !allFinished() && runners.front()->progress().elapsed < at) {
    const auto now = Steady::now();
    if (!cancelled && watch.cancel && watch.cancel->load()) {
      cancelled = true;
      for (StormRunner* r : runners) r->cancel();
    }
    if (done && now - lastCheck >= std::chrono::milliseconds(20)) {
      lastCheck = now;
      if (done()) return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    if (watch.onPoll && now - lastPoll > std::chrono::milliseconds(20)) {
      for (StormRunner* r : runners) watch.onPoll(*r);
      lastPoll = now;
    }
    if (watch.onProgress && now - lastReport > std::chrono::milliseconds(200)) {
      watch.onProgress(runners.front()->progress());
      lastReport = now;
    }
  }
  return false;
}

bool waitForRun(StormRunner& runner, Micros at, const FailoverWatch& watch, const std::function<bool()>& done) {
  StormRunner* one[] = {&runner};
  return waitForRuns(one, at, watch, done);
}

}  // namespace rl
