#pragma once
// Throughput benchmark: the most decisions per second a backend sustains for
// one algorithm, for a fixed wall time, each thread on its own keys.
//
// Two paths:
//  - store path (memory, redis-naive, redis-watch): `concurrency` threads,
//    each deciding through its own Store (memory: one shared MemoryStore;
//    Redis: one connection per thread), as a storm does.
//  - wire path (redis-lua): `concurrency` connections driven without blocking
//    by `threads` poll() event loops (default 2: one per core), each
//    connection keeping `pipeline` EVALSHA in flight (1: unpipelined, like
//    redis-benchmark -c; P: like -P). The commands are byte for byte those
//    RedisLuaStore sends (server clock); each reply is checked as a decision
//    (anything else counts as an error). At the end the loops wait for the
//    replies in flight, so decisions = commands the server ran.
//  - a Redis Cluster (redis+cluster:// endpoint): the store path for every
//    backend (each thread's store routes by slot), with decisions counted per
//    master. `storePath` forces the store path on one server too, for an
//    equal comparison.
// Redis backends also report the server's own time per decision, from INFO
// commandstats read before and after each algorithm (server-wide: run it on a
// server nobody else uses).

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "common/result.hpp"
#include "limiter/quota.hpp"
#include "redis/redis_url.hpp"
#include "redis/script_store.hpp"
#include "storm/storm_spec.hpp"

namespace rl {

/// One benchmark run.
struct BenchSpec {
  Backend backend = Backend::Memory;                     ///< memory or a Redis variant
  std::vector<Algorithm> algorithms{Algorithm::TokenBucket};  ///< measured one after another
  int concurrency = 2;          ///< threads (and connections)
  int pipeline = 1;             ///< redis-lua: commands in flight per connection
  int threads = 0;              ///< wire path: event loops sharing the connections; 0 = default (2)
  Micros duration{2'000'000};   ///< wall time per algorithm
  int keysPerThread = 100'000;  ///< distinct keys each thread cycles through
  Quota quota = Quota::perSecond(100);  ///< the limit checked
  bool serverClock = true;      ///< Redis: the script reads TIME; false = the client's clock (argument)
  std::string prefix = "ratelab:";  ///< key prefix (Redis)
  std::string runTag = "bench-";    ///< key names: <tag><thread>-<i>
  bool storePath = false;           ///< redis-lua: the store path even on one server (`--path store`)
  ScriptSettings script;            ///< redis-script: the team's own limiter
};

/// Throughput of one (backend, algorithm).
struct BenchResult {
  Backend backend = Backend::Memory;     ///< measured backend
  Algorithm algorithm = Algorithm::TokenBucket;  ///< measured algorithm
  int concurrency = 0;                   ///< threads / connections
  int pipeline = 1;                      ///< commands in flight per connection
  int threads = 0;                       ///< OS threads used
  bool wirePath = false;                 ///< measured on the wire path (see the file comment)
  std::int64_t decisions = 0;            ///< decisions made
  std::int64_t errors = 0;               ///< failed decisions
  Micros elapsed{0};                     ///< wall time measured
  double perSecond = 0;                  ///< decisions per second
  std::vector<std::pair<std::string, std::int64_t>> perMaster;  ///< cluster: (host:port, decisions) per master
  double redisMicros = 0;                ///< Redis: server us per decision (INFO commandstats delta); 0 = memory
};

/// Checks the spec; errors name the flag.
Result<void> validate(const BenchSpec& spec);

/// Runs the benchmark; `endpoint` is used by Redis backends only.
Result<std::vector<BenchResult>> runBench(const BenchSpec& spec, const RedisEndpoint& endpoint);

}  // namespace rl
