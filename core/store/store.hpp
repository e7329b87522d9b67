#pragma once
// Store: where limiter state lives. The interface is one atomic-shaped call:
// a store applies an algorithm to one key and answers with a Decision, so an
// algorithm never knows whether its state is in memory or in Redis.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "common/result.hpp"
#include "limiter/algorithm.hpp"
#include "limiter/decision.hpp"
#include "limiter/quota.hpp"

namespace rl {

/// Default key prefix: keys are `<prefix>{<algorithm>:<client>}[:suffix]`.
inline constexpr std::string_view kDefaultPrefix = "ratelab:";

/// One request to a limiter.
struct DecisionRequest {
  Algorithm algorithm = Algorithm::TokenBucket;  ///< which algorithm decides
  std::string_view client;                       ///< the client key (API key, address, ...)
  Quota quota;                                   ///< must be valid for `algorithm`
  std::int64_t cost = 1;                         ///< weight of the request, 1..limit
  Micros now{0};  ///< the caller's clock; stores that use the server's clock ignore it
};

/// Where limiter state lives. Thread-safety is per implementation: the memory
/// store is shared by threads; a Redis store belongs to one thread.
class Store {
 public:
  virtual ~Store() = default;
  /// Backend name as in `--backend` ("memory", "redis-lua", ...).
  virtual std::string_view name() const = 0;
  /// Decides one request atomically (or, for the racy variant, deliberately not).
  /// Errors are values: Unavailable when the backend cannot be reached, etc.
  virtual Result<Decision> decide(const DecisionRequest& request) = 0;
  /// Keys dropped before their expiry to keep within a bound on the keys held
  /// (MemoryStore's maxKeys); 0 for a store without one. Readable from any thread.
  virtual std::int64_t evictedKeys() const { return 0; }
};

/// The hash-tagged base key of one client: `<prefix>{<algorithm>:<client>}`.
std::string limiterKey(std::string_view prefix, Algorithm a, std::string_view client);

/// Makes the store one worker uses for one replica. Called on that worker's
/// thread, once per (replica, worker). A memory factory returns views of one
/// shared store per replica; a Redis factory returns a new connection; an
/// HTTP factory a client of one target.
using StoreFactory = std::function<Result<std::unique_ptr<Store>>(int replica, int worker)>;

}  // namespace rl
