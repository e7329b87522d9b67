#include "store/circuit_breaker.hpp"

#include <algorithm>

namespace rl {

CircuitBreaker::CircuitBreaker(std::chrono::milliseconds minBackoff, std::chrono::milliseconds maxBackoff,
                               int threshold)
    : minBackoff_(minBackoff), maxBackoff_(std::max(maxBackoff, minBackoff)), threshold_(std::max(threshold, 1)) {}

void CircuitBreaker::failed(std::string why) {
  lastError_ = std::move(why);
  ++failures_;
  if (!open()) {
    nextAttempt_ = Clock::now();
    return;
  }
  const int doublings = std::min(failures_ - threshold_, 16);
  nextAttempt_ = Clock::now() + std::min<std::chrono::milliseconds>(minBackoff_ * (1LL << doublings), maxBackoff_);
}

void CircuitBreaker::failedRetryNow(std::string why) {
  lastError_ = std::move(why);
  failures_ = threshold_;
  nextAttempt_ = Clock::now();
}

void CircuitBreaker::succeeded() {
  failures_ = 0;
  nextAttempt_ = {};
  lastError_.clear();
}

std::int64_t CircuitBreaker::msUntilNextAttempt(Clock::time_point now) const {
  if (!open() || now >= nextAttempt_) return 0;
  return std::chrono::duration_cast<std::chrono::milliseconds>(nextAttempt_ - now).count() + 1;
}

}  // namespace rl
