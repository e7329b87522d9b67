#pragma once
// Store factories for the storm runner: storeFactoryFor() builds every
// backend (memory, the Redis ones, http), for the CLI and the window alike.

#include <atomic>
#include <memory>

#include "http/http_store.hpp"
#include "redis/redis_url.hpp"
#include "redis/script_store.hpp"
#include "storm/storm_runner.hpp"

namespace rl {

/// One MemoryStore per replica, shared by every worker (MemoryStore is
/// thread-safe): N replicas keep N independent counts, as N API servers would.
StoreFactory memoryStoreFactory(int replicas);

/// Redis stores of `spec.backend` (redis-lua, redis-naive, redis-watch), one
/// per (replica, worker), each with its own connection to `endpoint`. The
/// server clock is used when spec.clock is server; otherwise the runner's now.
/// With `reloadTally`, redis-lua stores also count their NOSCRIPT reloads there.
StoreFactory redisStoreFactory(const StormSpec& spec, const RedisEndpoint& endpoint,
                               std::shared_ptr<std::atomic<std::int64_t>> reloadTally = {});

/// redis-script stores (spec.script.file and templates), one per (replica, worker).
StoreFactory scriptStoreFactory(const StormSpec& spec, const RedisEndpoint& endpoint);

/// The HTTP client settings of a storm spec (--http-method, --http-header, --http-body, --http-key,
/// --http-deny-status, --http-timeout-ms, --cacert, --insecure).
HttpStoreOptions httpStoreOptions(const StormSpec& spec);

/// The factory for spec.backend: memory, Redis (`endpoint` used by Redis
/// backends only) or http (spec.http.targets). InvalidArgument for a bad target list.
Result<StoreFactory> storeFactoryFor(const StormSpec& spec, const RedisEndpoint& endpoint);

/// The same, with the Redis of spec.redisUrl (resolved: redis://, redis+cluster://, redis+sentinel://).
Result<StoreFactory> storeFactoryFor(const StormSpec& spec);

/// WATCH retries of a store from these factories (0 for memory and redis-lua).
std::int64_t storeRetries(const Store& store);

}  // namespace rl
