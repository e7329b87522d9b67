#pragma once
// CircuitBreaker: the one backoff schedule of a store whose server stopped
// answering (a Redis connection, an HTTP target). After `threshold`
// consecutive failed attempts the circuit is open: callers fail fast until the
// backoff is over (minBackoff, doubling per further failure up to maxBackoff);
// then one attempt (the half-open probe) may be made, and only a success
// closes the circuit. How the probe is made is the owner's: RedisConnection
// sends a non-blocking PING, the HTTP target breaker lets one request through.
//
// Not thread-safe: the owner locks (or owns it on one thread).

#include <chrono>
#include <cstdint>
#include <string>

namespace rl {

/// Consecutive failures, the backoff and why; see the file comment.
class CircuitBreaker {
 public:
  using Clock = std::chrono::steady_clock;

  /// Opens after `threshold` (>= 1) consecutive failures; backoff from `minBackoff` doubling to `maxBackoff`.
  CircuitBreaker(std::chrono::milliseconds minBackoff, std::chrono::milliseconds maxBackoff, int threshold = 1);

  /// A failed attempt, for `why`: counted; at the threshold and after, the next attempt waits the backoff.
  void failed(std::string why);
  /// A failure after which one attempt may be made at once (e.g. a plain I/O error: a restarted server).
  void failedRetryNow(std::string why);
  /// A success: closed, the count and the backoff reset.
  void succeeded();

  /// True at or past the threshold: calls fail fast until a probe succeeds.
  bool open() const { return failures_ >= threshold_; }
  /// True while open and the backoff is not over: no attempt now.
  bool coolingOff(Clock::time_point now = Clock::now()) const { return open() && now < nextAttempt_; }
  /// Milliseconds until the next attempt may be made (0 when it may be made now).
  std::int64_t msUntilNextAttempt(Clock::time_point now = Clock::now()) const;
  /// Consecutive failures so far (0 = closed, no failure since the last success).
  int failures() const { return failures_; }
  /// Why the last attempt failed ("" after a success).
  const std::string& lastError() const { return lastError_; }

 private:
  std::chrono::milliseconds minBackoff_;  ///< the first wait once open
  std::chrono::milliseconds maxBackoff_;  ///< the longest wait
  int threshold_;                         ///< consecutive failures that open the circuit
  int failures_ = 0;                      ///< consecutive failed attempts
  Clock::time_point nextAttempt_{};       ///< no attempt before this while open
  std::string lastError_;                 ///< why the last attempt failed
};

}  // namespace rl
