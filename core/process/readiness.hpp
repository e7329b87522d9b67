#pragma once
// Readiness: waiting on a child RateLab started (until it is ready, until it
// exits) and stopping it. Every wait for a server to reach a state (a
// redis-server answering PING, nginx accepting, a Cluster agreeing, Sentinels
// knowing each other, a replica promoted) goes through pollUntil, the one
// poll loop of its kind.

#include <chrono>
#include <functional>
#include <string>

#include "limiter/time.hpp"

namespace rl {

/// Calls `check` every `every` until it returns true (then true) or `timeout`
/// has passed (then false, after one last check).
bool pollUntil(const std::function<bool()>& check, Micros timeout, Micros every = Micros{10'000});

/// How waiting for a child to become ready ended.
enum class ChildStart {
  Ready,     ///< `ready` returned true
  Exited,    ///< the child exited first (reaped)
  TimedOut,  ///< neither within the timeout: the child still runs
};

/// Waits until `ready()` is true or child `pid` exits, for up to `timeout`.
ChildStart waitUntilReady(int pid, const std::function<bool()>& ready, Micros timeout, Micros every = Micros{10'000});

/// Waits up to `timeout` for child `pid` to exit, reaping it; true if it did.
bool waitExit(int pid, Micros timeout);

/// Stops child `pid`: `signal` (SIGTERM, nginx's graceful SIGQUIT), then SIGKILL
/// when it has not exited within `grace`; always reaps it.
void stopChild(int pid, int signal, Micros grace);

/// The last `maxChars` of file `path` (a child's log), for error messages; "" when unreadable.
std::string tailOfFile(const std::string& path, std::size_t maxChars = 400);

}  // namespace rl
