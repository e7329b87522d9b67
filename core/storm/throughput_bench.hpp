#pragma once
// Throughput benchmark: the most decisions per second a backend sustains for
// one algorithm. `concurrency` threads, each on its own keys (memory: one
// shared store; Redis: one connection per thread), for a fixed wall time.
// With `pipeline` > 1 (redis-lua only) each connection keeps that many
// EVALSHA commands in flight, as redis-benchmark -P does.

#include <cstdint>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "limiter/quota.hpp"
#include "redis/redis_url.hpp"
#include "storm/storm_spec.hpp"

namespace rl {

/// One benchmark run.
struct BenchSpec {
  Backend backend = Backend::Memory;                     ///< memory or a Redis variant
  std::vector<Algorithm> algorithms{Algorithm::TokenBucket};  ///< measured one after another
  int concurrency = 2;          ///< threads (and connections)
  int pipeline = 1;             ///< redis-lua: commands in flight per connection
  Micros duration{2'000'000};   ///< wall time per algorithm
  int keysPerThread = 100'000;  ///< distinct keys each thread cycles through
  Quota quota = Quota::perSecond(100);  ///< the limit checked
  std::string prefix = "ratelab:";  ///< key prefix (Redis)
  std::string keyTag = "bench-";    ///< key names: <tag><thread>-<i>
};

/// Throughput of one (backend, algorithm).
struct BenchResult {
  Backend backend = Backend::Memory;     ///< measured backend
  Algorithm algorithm = Algorithm::TokenBucket;  ///< measured algorithm
  int concurrency = 0;                   ///< threads / connections
  int pipeline = 1;                      ///< commands in flight per connection
  std::int64_t decisions = 0;            ///< decisions made
  std::int64_t errors = 0;               ///< failed decisions
  Micros elapsed{0};                     ///< wall time measured
  double perSecond = 0;                  ///< decisions per second
};

/// Checks the spec; errors name the flag.
Result<void> validate(const BenchSpec& spec);

/// Runs the benchmark; `endpoint` is used by Redis backends only.
Result<std::vector<BenchResult>> runBench(const BenchSpec& spec, const RedisEndpoint& endpoint);

}  // namespace rl
