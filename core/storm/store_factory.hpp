#pragma once
// Store factories for the storm runner, one per backend family. Redis-backed
// factories live with the Redis store (core/redis); HTTP ones in rl_http.

#include "storm/storm_runner.hpp"

namespace rl {

/// One MemoryStore per replica, shared by every worker (MemoryStore is
/// thread-safe): N replicas keep N independent counts, as N API servers would.
StoreFactory memoryStoreFactory(int replicas);

}  // namespace rl
