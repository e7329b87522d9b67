#pragma once
// ClusterRouter: sends each command to the master that serves its key's slot.
// hiredis 0.14 knows no cluster, so this is RateLab's own small router:
//  - the slot map comes from CLUSTER SLOTS (slot_map.hpp);
//  - one RedisConnection per master, opened on first use;
//  - `MOVED <slot> <host:port>`: the slot now lives there; the map entry is
//    updated at once and the whole map re-read (at most every kRefreshGap);
//  - `ASK <slot> <host:port>`: this one command goes there after ASKING; the
//    map is not changed (the slot is being migrated);
//  - `TRYAGAIN` (a multi-key command during a migration, e.g. sliding_counter
//    while one of its two window keys has not moved yet): retried every 5 ms,
//    up to kMaxTryAgain times (200 ms);
//  - a master that cannot be reached (refused, timed out): the map is re-read
//    from the other nodes; when a replica was promoted the command goes to it,
//    else the error stays Unavailable, so the failure policy decides;
//  - `CLUSTERDOWN`: Unavailable.
// Every node named in CLUSTER SLOTS, MOVED or ASK must pass the endpoint's
// ClusterTrust (cluster_trust.hpp: the seeds' network, unless
// --cluster-any-node) before RateLab connects and sends AUTH; a refused node
// is one InvalidArgument naming it and the flag (an error, never the failure policy).
// At most kMaxRedirects hops per command, so a command never loops.
//
// Threading: like RedisConnection, a router belongs to one thread at a time.

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "common/result.hpp"
#include "redis/cluster/slot_map.hpp"
#include "redis/redis_connection.hpp"

namespace rl {

/// What a Redis error reply asks a cluster client to do.
struct ClusterRedirect {
  enum Kind { None, Moved, Ask, TryAgain, Down } kind = None;  ///< the instruction
  int slot = -1;         ///< MOVED / ASK: the slot
  std::string host;      ///< MOVED / ASK: where to go
  int port = 0;          ///< MOVED / ASK: its port
};

/// Reads MOVED / ASK / TRYAGAIN / CLUSTERDOWN from an error message (also
/// after a "<command>: " prefix, as pipelined errors are reported).
ClusterRedirect parseClusterRedirect(std::string_view message);

/// Routes commands by slot; see the file comment.
class ClusterRouter {
 public:
  static constexpr int kMaxRedirects = 6;                    ///< hops per command
  static constexpr int kMaxTryAgain = 40;                    ///< TRYAGAIN waits of 5 ms per command
  static constexpr std::chrono::milliseconds kRefreshGap{50};  ///< least time between map reads

  /// Reads the slot map from the endpoint's seeds (endpoint.cluster must be
  /// true). Connections open on first use. Unavailable / InvalidArgument as fetchSlotMap
  /// (a node outside the seeds' network is InvalidArgument).
  static Result<std::unique_ptr<ClusterRouter>> connect(const RedisEndpoint& endpoint);

  /// Runs `fn(RedisConnection&) -> Result<T>` on the master of `slot`,
  /// following redirections (see the file comment). `fn` may run more than once.
  template <class F>
  auto onSlot(int slot, F&& fn) -> decltype(fn(std::declval<RedisConnection&>()));

  /// One command on the master of `key`'s slot.
  Result<RedisReply> command(std::string_view key, std::span<const std::string_view> argv);

  /// A connection to master `index` of map() (opened on first use).
  Result<RedisConnection*> master(int index);
  /// Re-reads the slot map now (ignores kRefreshGap).
  Result<void> refresh();
  /// The slot map in use.
  const SlotMap& map() const { return map_; }
  /// The cluster endpoint (seeds, credentials, timeouts).
  const RedisEndpoint& endpoint() const { return endpoint_; }
  /// MOVED replies followed.
  std::int64_t moved() const { return moved_; }
  /// ASK replies followed.
  std::int64_t asked() const { return asked_; }
  /// Slot map reads after the first.
  std::int64_t refreshes() const { return refreshes_; }
  /// Successful reconnects over all connections.
  std::int64_t reconnects() const;

 private:
  ClusterRouter(RedisEndpoint endpoint, SlotMap map)
      : endpoint_(std::move(endpoint)), trust_(ClusterTrust::of(endpoint_)), map_(std::move(map)) {}
  /// The connection to host:port (opened when new, if trust_ admits it; `namedBy` names who announced it).
  Result<RedisConnection*> connectionTo(const std::string& host, int port, std::string_view namedBy = "in the slot map");
  Result<RedisConnection*> connectionForSlot(int slot);
  /// After a failure on `slot`'s master: re-reads the map (rate-limited); true when the slot moved.
  bool refreshAfterFailure(int slot);
  /// Applies a MOVED reply.
  void followMoved(const ClusterRedirect& r);

  RedisEndpoint endpoint_;  ///< seeds, credentials, timeouts
  ClusterTrust trust_;      ///< which announced nodes may be connected to
  SlotMap map_;             ///< current ownership
  std::unordered_map<std::string, RedisConnection> conns_;  ///< by host:port
  std::chrono::steady_clock::time_point lastRefresh_{};     ///< last map read
  std::int64_t moved_ = 0;      ///< MOVED followed
  std::int64_t asked_ = 0;      ///< ASK followed
  std::int64_t refreshes_ = 0;  ///< map reads after connect
};

template <class F>
auto ClusterRouter::onSlot(int slot, F&& fn) -> decltype(fn(std::declval<RedisConnection&>())) {
  std::optional<ClusterRedirect> ask;
  std::string last;
  int tryAgains = 0;
  for (int hop = 0; hop < kMaxRedirects; ++hop) {
    auto conn = ask ? connectionTo(ask->host, ask->port, "in an ASK reply") : connectionForSlot(slot);
    if (!conn) {
      if (!ask && refreshAfterFailure(slot)) continue;
      return conn.error();
    }
    if (ask) {
      ask.reset();
      if (auto a = (*conn)->command({"ASKING"}); !a) return a.error();
    }
    auto r = fn(**conn);
    if (r) return r;
    const ClusterRedirect redirect = parseClusterRedirect(r.error().message);
    if (redirect.kind == ClusterRedirect::None && r.error().code == ErrorCode::Unavailable) {
      if (refreshAfterFailure(slot)) continue;
      return r;
    }
    last = r.error().message;
    if (redirect.kind == ClusterRedirect::Moved || redirect.kind == ClusterRedirect::Ask)
      if (auto ok = trust_.admit(redirect.host, redirect.port,
                                 std::string(redirect.kind == ClusterRedirect::Moved ? "in a MOVED" : "in an ASK") +
                                     " reply from " + (*conn)->endpoint().address());
          !ok)
        return ok.error();
    switch (redirect.kind) {
      case ClusterRedirect::Moved: followMoved(redirect); break;
      case ClusterRedirect::Ask: ++asked_; ask = redirect; break;
      case ClusterRedirect::TryAgain:  // a migration in progress: not a hop, up to kMaxTryAgain waits
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
        if (++tryAgains < kMaxTryAgain) hop = -1;  // the ASK that led here is not a hop either
        break;
      case ClusterRedirect::Down: return unavailable("slot " + std::to_string(slot) + ": " + last);
      case ClusterRedirect::None: return r;
    }
  }
  return unavailable("slot " + std::to_string(slot) + ": gave up after " + std::to_string(kMaxRedirects) +
                     " redirections (last: " + last + ")");
}

}  // namespace rl
