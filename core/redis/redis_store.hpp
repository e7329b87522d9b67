#pragma once
// Redis stores: limiter state in a shared Redis, in the three access variants
// of the race lab (ARCHITECTURE.md):
//   redis-lua    one EVALSHA per decision (NOSCRIPT -> EVAL, then reload): atomic
//   redis-naive  read state, decide in C++, write it back: separate round trips, races
//   redis-watch  WATCH / read / decide / MULTI..EXEC, retried on a nil EXEC: atomic
// All three use the same keys (`<prefix>{<algorithm>:<client>}[:suffix]`) and
// the same math (core/limiter), and set PEXPIRE ceil(Step::ttl / 1 ms) on every write.
//
// Clock: with `serverClock` the time is Redis TIME (inside the script, or read
// in the same round trip as the state); otherwise DecisionRequest::now is used.
// With the client or virtual clock, keys still expire in Redis's real time.
// That is exact while the caller's time runs at least as fast as real time (a
// state past its TTL decides like a fresh one, so early-vs-late expiry does not
// matter); a virtual clock that lingers at one instant longer than a key's
// (possibly sub-millisecond) TTL can see that key vanish early.
//
// The Lua scripts compute in doubles: every store rejects quotas whose
// products leave the exact range (sliding_counter: 2 x limit x window < 2^53 us;
// client time 0..2^52 us), with InvalidArgument naming the bound.
//
// Cluster: with a redis+cluster:// endpoint the store talks through a
// ClusterRouter (one connection per master, MOVED / ASK followed, scripts
// loaded on every master, NOSCRIPT reloads on the node that lost them); keys
// come from clusterLimiterKey, which refuses a prefix that breaks the hash tag.
//
// WAIT (`waitReplicas` > 0, redis-lua): after each admitting write the store
// sends WAIT n timeout to the same master. Fewer acknowledgements than n make
// the decision Unavailable ("not replicated"), so the failure policy decides;
// the write stays applied on the master (WAIT does not roll back).
//
// Threading: a Redis store owns its connections and belongs to ONE thread.
// Create one store per worker thread.

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"
#include "redis/redis_connection.hpp"
#include "redis/redis_link.hpp"
#include "redis/redis_url.hpp"
#include "store/store.hpp"
#include "store/backend.hpp"

namespace rl {

/// How a Redis store connects and behaves.
struct RedisStoreOptions {
  RedisEndpoint endpoint;               ///< the server (timeouts included)
  std::string prefix{kDefaultPrefix};   ///< key prefix
  bool serverClock = true;              ///< true: Redis TIME; false: DecisionRequest::now
  /// RACE DEMO ONLY (redis-naive): pause between reading the state and writing
  /// it back, widening the check-then-write race window. 0 in production.
  Micros thinkTime{0};
  int watchRetries = 100;               ///< redis-watch: EXEC attempts before Conflict
  int waitReplicas = 0;                 ///< redis-lua: WAIT for this many replicas after an admitting write; 0 = no WAIT
  Micros waitTimeout{50'000};           ///< WAIT's timeout, 1 ms .. below the command timeout
  /// redis-lua: when set, every NOSCRIPT reload is also counted here (a run's total over its stores).
  std::shared_ptr<std::atomic<std::int64_t>> reloadTally;
  /// redis-naive: read the state from this replica and write to the master, as Python `limits`
  /// does with use_replicas=True (its default under Sentinel): the count read can be stale.
  std::optional<RedisEndpoint> readReplica;
};

struct ScriptCall;

/// What the Redis stores share: the connection, options and counters.
class RedisStoreBase : public Store {
 public:
  /// WATCH transactions retried after a nil EXEC (0 for lua and naive).
  std::int64_t retries() const { return retries_; }
  /// Successful reconnects of this store's connections.
  std::int64_t reconnects() const { return link_.reconnects(); }
  /// This store's server or cluster (same thread only): for tests and tools.
  RedisLink& link() { return link_; }
  /// The options the store was made with.
  const RedisStoreOptions& options() const { return options_; }

 protected:
  RedisStoreBase(RedisLink link, RedisStoreOptions options)
      : link_(std::move(link)), options_(std::move(options)) {}
  /// Checks the options (InvalidArgument naming the field), then connects.
  static Result<RedisLink> connectFor(const RedisStoreOptions& options);
  /// Validates quota, cost, the scripts' exact-arithmetic bound and (client clock) `now`.
  Result<void> validateRequest(const DecisionRequest& r) const;
  /// The base key of the request (cluster: checked to keep one slot).
  Result<std::string> baseKey(const DecisionRequest& r) const;

  RedisLink link_;              ///< owned, one thread
  RedisStoreOptions options_;   ///< as made
  std::int64_t retries_ = 0;    ///< WATCH retries
};

/// redis-lua: one EVALSHA per decision.
class RedisLuaStore final : public RedisStoreBase {
 public:
  /// Connects and loads the six scripts (SCRIPT LOAD).
  static Result<std::unique_ptr<RedisLuaStore>> make(const RedisStoreOptions& options);
  std::string_view name() const override { return "redis-lua"; }
  Result<Decision> decide(const DecisionRequest& request) override;
  /// EVALs that were needed because the server had lost a script (NOSCRIPT).
  std::int64_t scriptReloads() const { return reloads_; }
  /// Admitting writes whose WAIT saw fewer replicas than asked (decided by the policy).
  std::int64_t waitShortfalls() const { return waitShortfalls_; }
  /// The SHA1 the server knows algorithm `a`'s script by (after make()).
  const std::string& scriptSha(Algorithm a) const { return sha_[static_cast<int>(a)]; }

 private:
  RedisLuaStore(RedisLink link, RedisStoreOptions options)
      : RedisStoreBase(std::move(link), std::move(options)) {}
  Result<void> loadScripts(RedisConnection& conn);
  Result<void> waitForReplicas(RedisConnection& conn);
  /// EVALSHA (NOSCRIPT: EVAL, then reload on that node) where the call's keys live.
  Result<RedisReply> evalScript(Algorithm a, const ScriptCall& call, RedisConnection*& used);

  std::string sha_[6];          ///< SHA1 per algorithm, indexed by Algorithm
  std::int64_t reloads_ = 0;    ///< NOSCRIPT fallbacks
  std::int64_t waitShortfalls_ = 0;  ///< WAITs short of waitReplicas
};

/// redis-naive: read, decide in C++, write back (deliberately racy).
class RedisNaiveStore final : public RedisStoreBase {
 public:
  /// Connects.
  static Result<std::unique_ptr<RedisNaiveStore>> make(const RedisStoreOptions& options);
  std::string_view name() const override { return "redis-naive"; }
  Result<Decision> decide(const DecisionRequest& request) override;

 private:
  using RedisStoreBase::RedisStoreBase;
  std::optional<RedisConnection> replica_;  ///< options.readReplica: where the state is read
};

/// redis-watch: optimistic transaction, retried on conflict.
class RedisWatchStore final : public RedisStoreBase {
 public:
  /// Connects.
  static Result<std::unique_ptr<RedisWatchStore>> make(const RedisStoreOptions& options);
  std::string_view name() const override { return "redis-watch"; }
  /// Conflict after `watchRetries` failed EXECs.
  Result<Decision> decide(const DecisionRequest& request) override;

 private:
  using RedisStoreBase::RedisStoreBase;
  Result<Decision> decideWatched(RedisConnection& conn, const std::string& base, const DecisionRequest& req);
};

/// The checks every Lua decision needs: quota, cost, the scripts' exact-arithmetic
/// bound and (client clock) the range of `now`. InvalidArgument names the bound.
Result<void> validateScriptRequest(const DecisionRequest& request, bool serverClock);
/// KEYS and ARGV of one limiter script call (resources/lua/prelude.lua).
struct ScriptCall {
  std::vector<std::string> keys;    ///< the base key, or fixed_window's / sliding_counter's window keys
  std::array<std::string, 5> argv;  ///< now ("" = server clock), limit, window, interval, cost
};
/// The call for `request` on the client's `base` key. Window keys are named at
/// `windowAt` when given (the start a script answered RL_WINDOW with), else at
/// request.now, or with the server clock at this machine's clock (the script checks it).
ScriptCall scriptCall(const DecisionRequest& request, const std::string& base, bool serverClock,
                      std::optional<std::int64_t> windowAt = std::nullopt);
/// The window start of a script's `RL_WINDOW <start>` error (the server's clock is
/// in another window than the caller named), else nullopt.
std::optional<std::int64_t> scriptWindowOf(std::string_view errorMessage);
/// How many times one decision is sent while the script names another window.
inline constexpr int kWindowAttempts = 3;

/// Builds the store for `backend` (RedisLua, RedisNaive or RedisWatch) and
/// connects it; InvalidArgument for other backends, Unavailable when Redis
/// cannot be reached ("cannot connect to 127.0.0.1:6390: Connection refused").
Result<std::unique_ptr<Store>> makeRedisStore(Backend backend, const RedisStoreOptions& options);

/// WATCH retries of a store made by makeRedisStore (0 for any other store).
std::int64_t redisRetries(const Store& store);

}  // namespace rl
