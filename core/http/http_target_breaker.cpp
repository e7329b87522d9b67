#include "http/http_target_breaker.hpp"

namespace rl {

HttpTargetBreaker::HttpTargetBreaker(std::string target) : target_(std::move(target)) {}

std::optional<Error> HttpTargetBreaker::admit(bool& probe) {
  probe = false;
  if (healthy_.load(std::memory_order_acquire)) return std::nullopt;
  std::lock_guard lock(mutex_);
  if (!circuit_.open()) return std::nullopt;
  if (!probing_ && !circuit_.coolingOff()) {
    probing_ = true;
    probe = true;
    return std::nullopt;
  }
  const std::string when = probing_ ? "one probe request is on its way"
                                    : "not asked for " + std::to_string(circuit_.msUntilNextAttempt()) + " ms";
  return unavailable("HTTP target " + target_ + " is down: " + std::to_string(circuit_.failures()) +
                     " requests in a row got no answer (the last: " + circuit_.lastError() + "); " + when);
}

void HttpTargetBreaker::answered(bool probe) {
  if (!probe && healthy_.load(std::memory_order_acquire)) return;
  std::lock_guard lock(mutex_);
  if (probe) probing_ = false;
  circuit_.succeeded();
  healthy_.store(true, std::memory_order_release);
}

void HttpTargetBreaker::failed(bool probe, std::string why) {
  std::lock_guard lock(mutex_);
  if (probe) probing_ = false;
  healthy_.store(false, std::memory_order_release);
  const std::string named = "HTTP " + target_ + ": ";  // the client's messages name the target; the breaker's says it once
  if (why.starts_with(named)) why.erase(0, named.size());
  circuit_.failed(std::move(why));
}

bool HttpTargetBreaker::open() const {
  std::lock_guard lock(mutex_);
  return circuit_.open();
}

}  // namespace rl
