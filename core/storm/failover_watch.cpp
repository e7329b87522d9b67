#include "storm/failover_watch.hpp"

#include <chrono>
#include <thread>

namespace rl {

bool waitForRun(StormRunner& runner, Micros at, const FailoverWatch& watch, const std::function<bool()>& done) {
  using Clock = std::chrono::steady_clock;
  auto lastReport = Clock::now();
  auto lastPoll = Clock::now();
  auto lastCheck = Clock::now() - std::chrono::seconds(1);
  while (!runner.finished() && runner.progress().elapsed < at) {
    const auto now = Clock::now();
    if (done && now - lastCheck >= std::chrono::milliseconds(20)) {
      lastCheck = now;
      if (done()) return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    if (watch.onPoll && now - lastPoll > std::chrono::milliseconds(20)) {
      watch.onPoll(runner);
      lastPoll = now;
    }
    if (watch.onProgress && now - lastReport > std::chrono::milliseconds(200)) {
      watch.onProgress(runner.progress());
      lastReport = now;
    }
  }
  return false;
}

}  // namespace rl
