#include "http/replica_decider.hpp"

#include "http/async_lua_decider.hpp"

namespace rl {
namespace {

/// Any store, asked synchronously (memory: microseconds; the racy Redis variants: a demo).
class SyncStoreDecider final : public ReplicaDecider {
 public:
  explicit SyncStoreDecider(std::unique_ptr<Store> store) : store_(std::move(store)) {}
  void decide(const DecisionRequest& request, Done done) override { done(store_->decide(request)); }
  bool answersAtOnce() const override { return true; }
  std::int64_t evictedKeys() const override { return store_->evictedKeys(); }

 private:
  std::unique_ptr<Store> store_;  ///< this thread's store
};

}  // namespace

Result<std::unique_ptr<ReplicaDecider>> makeReplicaDecider(std::unique_ptr<Store> store) {
  // On a Redis Cluster the store's router follows the slot map (MOVED / ASK), and
  // through Sentinels the store's connection follows the master; the async path
  // talks to one fixed server only, so both are asked synchronously.
  const auto* lua = dynamic_cast<const RedisLuaStore*>(store.get());
  if (lua && !lua->options().endpoint.cluster && !lua->options().endpoint.viaSentinel()) {
    auto async = AsyncLuaDecider::make(*lua);
    if (!async) return async.error();
    return std::unique_ptr<ReplicaDecider>(std::move(*async));
  }
  return std::unique_ptr<ReplicaDecider>(std::make_unique<SyncStoreDecider>(std::move(store)));
}

}  // namespace rl
