#pragma once
// Following a Sentinel failover as it is announced: Redis's client guide for
// Sentinel has clients subscribe to `+switch-master` on the Sentinels'
// Pub/Sub, so that they move to the new master when Sentinel says so, not at
// their next timeout or periodic check.
//
// One SentinelSwitches per (Sentinels, service) is shared by every connection
// of the process (of() hands out the running one). Its thread holds one
// subscribed connection to each of the endpoint's Sentinels (up to 16) and
// counts the `+switch-master` messages that name the service, keeping the
// announced address. A RedisConnection on a redis+sentinel:// endpoint
// compares the count before each command (one atomic load): when it moved,
// the connection drops its socket and connects to the announced address,
// whose ROLE its handshake checks; if that node is not a master, the
// Sentinels are asked as usual. The periodic ask (kSentinelRecheck) stays as
// the fallback for a message lost while a Sentinel was unreachable.
//
// A Sentinel is remote input: a message of another shape, another service or
// an address that does not parse is ignored and counted in ignored(); a
// Sentinel that holds more than kMaxSentinelBuffered unread bytes (a flood, a
// huge bulk length) is dropped and subscribed again after a pause. A Sentinel
// that is down is tried again every kSentinelResubscribe. The thread stops when
// the last connection lets go (a pipe wakes its poll, so that costs no wait).

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>

#include "redis/redis_url.hpp"

namespace rl {

/// The most unread bytes one subscribed Sentinel may hold before it is dropped.
inline constexpr std::size_t kMaxSentinelBuffered = 64 * 1024;
/// How long a Sentinel that failed or was dropped waits before it is subscribed again.
inline constexpr std::chrono::milliseconds kSentinelResubscribe{250};

/// What one `+switch-master` message said: "<service> <old-ip> <old-port> <new-ip> <new-port>".
struct SwitchAnnouncement {
  std::string service;  ///< the master's name at the Sentinels
  std::string host;     ///< the new master's host
  int port = 0;         ///< the new master's port
};

/// Parses the payload of a `+switch-master` message; nullopt for any other shape (five
/// space-separated words, ports 1..65535, hosts of 1..255 printable bytes).
std::optional<SwitchAnnouncement> parseSwitchAnnouncement(std::string_view payload);

/// The `+switch-master` feed of one set of Sentinels for one service; see the file comment.
class SentinelSwitches {
 public:
  /// The running feed for `ep`'s Sentinels and service, started on the first call (ep.viaSentinel()).
  static std::shared_ptr<SentinelSwitches> of(const RedisEndpoint& ep);

  explicit SentinelSwitches(const RedisEndpoint& ep);
  SentinelSwitches(const SentinelSwitches&) = delete;
  SentinelSwitches& operator=(const SentinelSwitches&) = delete;
  ~SentinelSwitches();

  /// How many `+switch-master` messages for the service were seen.
  std::uint64_t switches() const { return switches_.load(std::memory_order_acquire); }
  /// The address the latest of them announced (nullopt before the first).
  std::optional<std::pair<std::string, int>> announced() const;
  /// How many Sentinels are subscribed now.
  int subscribed() const { return subscribed_.load(); }
  /// Messages ignored: another shape, another service, or an address that does not parse.
  std::uint64_t ignored() const { return ignored_.load(); }

 private:
  void run();
  void heard(std::string_view payload);

  RedisEndpoint ep_;
  std::atomic<std::uint64_t> switches_{0};
  std::atomic<std::uint64_t> ignored_{0};
  std::atomic<int> subscribed_{0};
  std::atomic<bool> stop_{false};
  mutable std::mutex mutex_;
  std::optional<std::pair<std::string, int>> announced_;  ///< guarded by mutex_
  int wake_[2] = {-1, -1};                                ///< the pipe that ends the thread's poll
  std::thread thread_;
};

}  // namespace rl
