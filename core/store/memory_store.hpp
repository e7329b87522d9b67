#pragma once
// MemoryStore: limiter state in this process, as one API replica would keep
// it. Thread-safe (sharded mutexes). Keys expire after the TTL the algorithm
// computes (Step::ttl, the same bound the Lua scripts pass to PEXPIRE), and
// expired keys are swept as traffic flows, so memory does not grow without
// bound. One instance per simulated replica: N replicas leak N x the limit.
//
// A bound on the keys (maxKeys) is for a store whose clients name their own
// keys (`ratelab-cli serve`: anyone can send a new x-api-key). The bound is per
// shard (maxKeys / 64 each), so the store never holds more than maxKeys and may
// begin evicting a little before it is full. A full shard first drops what has
// expired, then the keys that expire soonest, an eighth of the shard at once:
// a key's expiry is when its state would be fresh again, so these are the keys
// whose loss changes the fewest decisions, and a drained (denied) client, whose
// state expires last, is forgotten last. (Redis's volatile-ttl policy picks the
// same keys.) Every key so dropped before its expiry is counted (evictedKeys).

#include <array>
#include <atomic>
#include <cstddef>
#include <memory>
#include <optional>
#include <variant>
#include <mutex>
#include <string>

#include "limiter/limiter_state.hpp"
#include "store/flat_table.hpp"
#include "store/store.hpp"

namespace rl {

/// In-process limiter state; see the file comment.
class MemoryStore final : public Store {
 public:
  /// Unbounded when `maxKeys` is 0; else at most maxKeys keys (rounded down to a
  /// multiple of 64, at least 64; see the file comment).
  explicit MemoryStore(std::size_t maxKeys = 0);

  std::string_view name() const override { return "memory"; }
  Result<Decision> decide(const DecisionRequest& request) override;
  std::int64_t evictedKeys() const override { return evicted_.load(std::memory_order_relaxed); }

  /// Live (unexpired at `now`) plus not-yet-swept keys.
  std::size_t size() const;
  /// Removes every key expired at `now`; returns how many were removed.
  std::size_t purgeExpired(Micros now);
  /// Time until the key expires at `now`, or nullopt when it does not exist (or expired).
  std::optional<Micros> ttl(Algorithm a, std::string_view client, Micros now) const;

 private:
  // LimiterState holds a sliding log inline (a deque, 80 bytes); here it is
  // kept out of line so every entry stays small (40 bytes) and a lookup in a
  // million keys touches fewer cache lines.
  using CompactState = std::variant<FixedWindowState, std::unique_ptr<SlidingLogState>,
                                    SlidingCounterState, TokenBucketState, LeakyBucketState,
                                    GcraState>;
  struct Entry {
    CompactState state;          ///< the algorithm's state
    std::int64_t expiresAt = 0;  ///< us; the key is fresh again from then on
  };
  static CompactState freshCompact(Algorithm a);
  static Step decideCompact(CompactState& state, const DecisionRequest& r);
  struct Shard {
    mutable std::mutex mutex;               ///< guards everything below
    detail::FlatTable<Entry> entries;       ///< key -> state
    std::size_t opsSinceSweep = 0;          ///< operations since the last sweep
    std::size_t sweepAfter = 256;           ///< sweep when opsSinceSweep reaches this
  };
  static constexpr std::size_t kShards = 64;
  static_assert(sizeof(detail::FlatTable<Entry>::Slot) == 64, "one cache line per key");

  static std::size_t sweep(Shard& shard, std::int64_t now);
  /// Before an insert into a full shard: the expired keys go, then the soonest to expire.
  void makeRoom(Shard& shard, std::int64_t now);

  std::array<Shard, kShards> shards_;      ///< keys spread by hash
  std::size_t perShard_ = 0;               ///< keys a shard holds at most; 0 = unbounded
  std::atomic<std::int64_t> evicted_{0};   ///< unexpired keys dropped to stay within the bound
};

}  // namespace rl
