#pragma once
// RedisLink: what a Redis store talks through. A single server is one
// RedisConnection; a Redis Cluster (redis+cluster:// endpoint) is a
// ClusterRouter with one connection per master. Stores say which key a call
// is about, and the link runs it on the connection that holds that key.
//
// Threading: one thread at a time, like the connection it wraps.

#include <memory>
#include <optional>

#include "common/result.hpp"
#include "redis/cluster/cluster_router.hpp"
#include "redis/redis_connection.hpp"

namespace rl {

/// One server or one cluster; see the file comment. Move-only.
class RedisLink {
 public:
  /// Connects to the server, or reads the cluster's slot map (endpoint.cluster).
  static Result<RedisLink> connect(const RedisEndpoint& endpoint);

  /// Runs `fn(RedisConnection&) -> Result<T>` where `key` lives (cluster:
  /// following MOVED / ASK; `fn` may run again after a redirection).
  template <class F>
  auto onKey(std::string_view key, F&& fn) -> decltype(fn(std::declval<RedisConnection&>())) {
    if (router_) return router_->onSlot(keySlot(key), std::forward<F>(fn));
    return fn(*conn_);
  }
  /// Runs `fn(RedisConnection&) -> Result<void>` on every master (single: the server); stops at the first error.
  template <class F>
  Result<void> forEachMaster(F&& fn) {
    if (!router_) return fn(*conn_);
    for (std::size_t i = 0; i < router_->map().masters().size(); ++i) {
      auto c = router_->master(static_cast<int>(i));
      if (!c) return c.error();
      if (auto ok = fn(**c); !ok) return ok;
    }
    return {};
  }
  /// The router when this link is a cluster, else null.
  ClusterRouter* router() { return router_.get(); }
  /// Successful reconnects (every connection).
  std::int64_t reconnects() const { return router_ ? router_->reconnects() : conn_->reconnects(); }

 private:
  RedisLink() = default;
  std::optional<RedisConnection> conn_;    ///< single server
  std::unique_ptr<ClusterRouter> router_;  ///< cluster
};

}  // namespace rl
