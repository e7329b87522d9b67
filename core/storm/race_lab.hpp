#pragma once
// The race lab: the check-then-increment race next to its atomic fixes.
// For each variant (redis-naive, redis-watch, redis-lua), `concurrency`
// threads, each with its own connection, are released together by a barrier
// and send one request each at one fresh key with capacity `capacity`;
// repeated for `rounds` rounds. An atomic variant admits exactly `capacity`
// every round; the naive one admits more when reads interleave.

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "limiter/algorithm.hpp"
#include "redis/redis_url.hpp"
#include "store/backend.hpp"
#include "redis/script_store.hpp"
#include "storm/storm_spec.hpp"

namespace rl {

/// One race experiment.
struct RaceSpec {
  int rounds = 200;            ///< repetitions, each on a fresh key
  std::int64_t capacity = 10;  ///< the key's limit (refill negligible: capacity per hour)
  int concurrency = 20;        ///< requests released together per round (threads, connections)
  Algorithm algorithm = Algorithm::TokenBucket;  ///< fixed_window or token_bucket (naive supports both)
  Micros thinkTime{1000};      ///< redis-naive only: pause between read and write (labelled demo knob)
  std::string prefix = "ratelab:";  ///< key prefix
  std::string runTag;          ///< prepended to the round keys: a fresh key space per race
  std::vector<Backend> variants{Backend::RedisNaive, Backend::RedisWatch, Backend::RedisLua};  ///< in order
  ScriptSettings script;       ///< redis-script variant: the team's own limiter (its ARGV gets the wall clock)
};

/// What one variant did over all rounds.
struct RaceVariantResult {
  Backend variant = Backend::RedisLua;  ///< which access variant
  std::vector<std::int64_t> admitted;   ///< admitted per round
  std::int64_t admittedMin = 0;         ///< fewest admitted in a round
  std::int64_t admittedMax = 0;         ///< most admitted in a round
  double admittedMean = 0;              ///< mean admitted per round
  std::int64_t overLimitRounds = 0;     ///< rounds that admitted more than capacity
  std::int64_t retries = 0;             ///< WATCH retries (redis-watch)
  std::int64_t errors = 0;              ///< store errors (counted, not admitted)
};

/// "naive", "watch", "lua" for the Redis variants (the race's JSON names).
std::string_view raceVariantName(Backend b);

/// Checks the spec; errors name the flag (--rounds, --limit, --concurrency, --algorithm, --think-ms).
Result<void> validate(const RaceSpec& spec);

/// Called after each round with the variant, the round (0-based) and what it admitted.
using RaceRoundCallback = std::function<void(Backend variant, int round, std::int64_t admitted)>;

/// Runs every variant against `endpoint` (server clock). Unavailable when a
/// connection cannot be made. `cancel`, when set, stops after the current
/// round; `onRound`, when set, is called from a race thread after each round.
Result<std::vector<RaceVariantResult>> runRace(const RaceSpec& spec, const RedisEndpoint& endpoint,
                                               const std::atomic<bool>* cancel = nullptr,
                                               const RaceRoundCallback& onRound = {});

}  // namespace rl
