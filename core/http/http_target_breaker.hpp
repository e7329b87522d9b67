#pragma once
// HttpTargetBreaker: one HTTP target's circuit breaker, shared by every store
// (every worker thread) of a storm that talks to that target. It is
// RedisConnection's breaker (store/circuit_breaker.hpp) for a limiter reached
// over HTTP: after 3 requests in a row that got no answer (refused, reset,
// timed out) the target is down; for 100 ms, doubling per further failure up
// to 1 s, every request fails at once with Unavailable (so the run's failure
// policy decides it), then one request goes through as the half-open probe
// while the others keep failing fast. Any answer (whatever its status) closes
// the circuit. So a dead target costs the storm about one --http-timeout-ms per
// cool-off, not one per request.
//
// Thread-safe. While every request gets an answer (the usual case) a request
// costs two atomic loads and no lock: 50 workers on one target must not queue
// on one mutex. Only after a failure does it take the mutex (never held during I/O).

#include <atomic>
#include <chrono>
#include <mutex>
#include <optional>
#include <string>

#include "common/result.hpp"
#include "store/circuit_breaker.hpp"

namespace rl {

/// Consecutive requests without an answer that open an HTTP target's circuit.
inline constexpr int kHttpBreakerThreshold = 3;

/// See the file comment.
class HttpTargetBreaker {
 public:
  /// `target` names the server in messages ("http://127.0.0.1:8080/").
  explicit HttpTargetBreaker(std::string target);

  /// Before a request: nullopt = send it (`probe` true: it is the one half-open
  /// probe); else the fail-fast error (Unavailable) naming the target and the cause.
  std::optional<Error> admit(bool& probe);
  /// The request got an answer: the target is up.
  void answered(bool probe);
  /// The request got no answer, for `why` (the client's error message).
  void failed(bool probe, std::string why);
  /// True while the circuit is open (for tests and reports).
  bool open() const;

 private:
  mutable std::mutex mutex_;  ///< guards the members below
  CircuitBreaker circuit_{std::chrono::milliseconds{100}, std::chrono::milliseconds{1000}, kHttpBreakerThreshold};
  bool probing_ = false;      ///< a half-open probe is on its way
  std::atomic<bool> healthy_{true};  ///< no failure since the last answer: admit and answered need no lock
  std::string target_;        ///< for messages
};

}  // namespace rl
