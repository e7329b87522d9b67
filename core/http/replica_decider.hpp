#pragma once
// ReplicaDecider: how a replica asks its store, without ever blocking its
// event thread on a round trip. decide() answers through `done` exactly once:
// at once (memory store) or later on the same thread (redis-lua through
// hiredis' async API, many EVALSHAs in flight on one connection).

#include <functional>
#include <memory>

#include "common/result.hpp"
#include "limiter/decision.hpp"
#include "store/store.hpp"

namespace rl {

/// Asynchronous decisions on one replica thread; see the file comment.
class ReplicaDecider {
 public:
  /// Receives the store's answer (or its error).
  using Done = std::function<void(Result<Decision>)>;
  virtual ~ReplicaDecider() = default;
  /// Decides `request` (its `client` must stay valid only during the call); calls `done` once.
  virtual void decide(const DecisionRequest& request, Done done) = 0;
  /// decide() always calls `done` before it returns (a front may pipeline to this replica).
  virtual bool answersAtOnce() const { return false; }
  /// The store's Store::evictedKeys(); readable from any thread.
  virtual std::int64_t evictedKeys() const { return 0; }
};

/// The replica's decider for `store`: redis-lua gets the asynchronous path on this
/// thread's event loop (reusing the store's endpoint, prefix, clock and loaded
/// scripts); any other store, and redis-lua on a Redis Cluster (its router
/// follows MOVED / ASK), is asked synchronously.
Result<std::unique_ptr<ReplicaDecider>> makeReplicaDecider(std::unique_ptr<Store> store);

}  // namespace rl
