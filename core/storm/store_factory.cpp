#include "storm/store_factory.hpp"

#include "http/http_store.hpp"
#include "redis/redis_store.hpp"
#include "redis/script_store.hpp"
#include "redis/sentinel/sentinel_discovery.hpp"
#include "store/memory_store.hpp"

namespace rl {

namespace {
// A worker's handle on its replica's shared memory store.
class SharedStoreView final : public Store {
 public:
  explicit SharedStoreView(std::shared_ptr<MemoryStore> store) : store_(std::move(store)) {}
  std::string_view name() const override { return store_->name(); }
  Result<Decision> decide(const DecisionRequest& r) override { return store_->decide(r); }
  std::int64_t evictedKeys() const override { return store_->evictedKeys(); }

 private:
  std::shared_ptr<MemoryStore> store_;  ///< shared by the replica's workers
};
}  // namespace

StoreFactory memoryStoreFactory(int replicas) {
  auto stores = std::make_shared<std::vector<std::shared_ptr<MemoryStore>>>();
  for (int i = 0; i < std::max(replicas, 1); ++i) stores->push_back(std::make_shared<MemoryStore>());
  return [stores](int replica, int) -> Result<std::unique_ptr<Store>> {
    if (replica < 0 || static_cast<std::size_t>(replica) >= stores->size())
      return invalidArgument("memory store: replica " + std::to_string(replica) + " does not exist");
    return std::unique_ptr<Store>(std::make_unique<SharedStoreView>((*stores)[static_cast<std::size_t>(replica)]));
  };
}

StoreFactory redisStoreFactory(const StormSpec& spec, const RedisEndpoint& endpoint,
                               std::shared_ptr<std::atomic<std::int64_t>> reloadTally) {
  RedisStoreOptions options;
  options.reloadTally = std::move(reloadTally);
  options.endpoint = endpoint;
  options.prefix = spec.prefix;
  options.serverClock = spec.clock == ClockMode::Server;
  options.thinkTime = spec.thinkTime;
  options.waitReplicas = spec.resilience.waitReplicas;
  options.waitTimeout = spec.resilience.waitTimeout;
  const Backend backend = spec.backend;
  const bool fromReplica = spec.resilience.readFromReplica;
  return [options, backend, fromReplica](int, int) -> Result<std::unique_ptr<Store>> {
    RedisStoreOptions o = options;
    if (fromReplica) {  // each store asks the Sentinels for a replica that is up now
      auto replica = sentinelReplica(o.endpoint);
      if (!replica) return replica.error();
      o.readReplica = std::move(replica).value();
    }
    return makeRedisBackendStore(backend, o, ScriptSettings{});
  };
}

namespace {
std::string trimmed(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return std::string(s);
}
}  // namespace

HttpStoreOptions httpStoreOptions(const StormSpec& spec) {
  HttpStoreOptions o;
  o.method = spec.http.method;
  for (const std::string& h : spec.http.headers) {
    const auto colon = h.find(':');
    const std::string_view field(h);
    o.headers.push_back({trimmed(field.substr(0, colon)),
                         colon == std::string::npos ? std::string() : trimmed(field.substr(colon + 1))});
  }
  o.body = spec.http.body;
  o.keyHeader = spec.http.key.starts_with("header:") ? spec.http.key.substr(7) : std::string();
  o.denyStatus = spec.http.denyStatus;
  o.keyPerLane = spec.algorithms.size() > 1;  // each lane (algorithm) meets its own keys on the target
  o.tls = {spec.http.caFile, spec.http.insecure};
  o.timeout = spec.http.timeout;
  return o;
}

StoreFactory scriptStoreFactory(const StormSpec& spec, const RedisEndpoint& endpoint) {
  RedisStoreOptions options;
  options.endpoint = endpoint;
  options.prefix = spec.prefix;
  options.serverClock = false;  // {now_*} is the storm's clock
  ScriptSettings script = spec.script;
  script.runaway = std::make_shared<RunawayScript>();  // one verdict for the run: a looping script is killed once
  return [options, script](int, int) { return makeRedisBackendStore(Backend::RedisScript, options, script); };
}

Result<StoreFactory> storeFactoryFor(const StormSpec& spec, const RedisEndpoint& endpoint) {
  switch (spec.backend) {
    case Backend::Memory: return memoryStoreFactory(spec.replicas);
    case Backend::RedisLua:
    case Backend::RedisNaive:
    case Backend::RedisWatch: return redisStoreFactory(spec, endpoint);
    case Backend::RedisScript: return scriptStoreFactory(spec, endpoint);
    case Backend::Http: return httpStoreFactory(spec.http.targets, httpStoreOptions(spec));
  }
  return invalidArgument("--backend: unknown backend");
}

Result<StoreFactory> storeFactoryFor(const StormSpec& spec) {
  if (!isRedisBackend(spec.backend)) return storeFactoryFor(spec, RedisEndpoint{});
  auto endpoint = resolveRedisUrl(spec.redisUrl);
  if (!endpoint) return endpoint.error();
  return storeFactoryFor(spec, *endpoint);
}

std::int64_t storeRetries(const Store& store) { return redisRetries(store); }

}  // namespace rl
