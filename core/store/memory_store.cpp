#include "store/memory_store.hpp"

#include <algorithm>
#include <functional>
#include <type_traits>

namespace rl {

namespace {
// The map key: algorithm and client, built in a reused per-thread buffer so a
// lookup of an existing key allocates nothing.
const std::string& mapKey(Algorithm a, std::string_view client) {
  thread_local std::string buf;
  buf.clear();
  buf.push_back(static_cast<char>('0' + static_cast<int>(a)));
  buf.append(client);
  return buf;
}
}  // namespace

namespace {
// Shards take hash bits 52..57; the table inside a shard indexes with the low bits.
std::size_t shardIndex(std::uint64_t h) { return (h >> 52) & 63; }
std::uint64_t hashKey(const std::string& key) { return std::hash<std::string>{}(key); }
}  // namespace

std::size_t MemoryStore::sweep(Shard& shard, std::int64_t now) {
  const std::size_t removed = shard.entries.retain([now](const Entry& e) { return e.expiresAt > now; });
  shard.opsSinceSweep = 0;
  shard.sweepAfter = std::max<std::size_t>(256, shard.entries.size());
  return removed;
}

MemoryStore::MemoryStore(std::size_t maxKeys) : perShard_(maxKeys == 0 ? 0 : std::max<std::size_t>(1, maxKeys / kShards)) {}

void MemoryStore::makeRoom(Shard& shard, std::int64_t now) {
  // An eighth of the shard at once: each O(size) pass frees room for size / 8 inserts.
  const std::size_t room = std::max<std::size_t>(1, perShard_ / 8);
  const std::size_t expired = sweep(shard, now);
  if (expired >= room) return;
  const std::size_t evicted =
      shard.entries.removeLowest(room - expired, [](const Entry& e) { return e.expiresAt; });
  evicted_.fetch_add(static_cast<std::int64_t>(evicted), std::memory_order_relaxed);
}

MemoryStore::CompactState MemoryStore::freshCompact(Algorithm a) {
  return std::visit(
      [](auto&& s) -> CompactState {
        if constexpr (std::is_same_v<std::decay_t<decltype(s)>, SlidingLogState>)
          return std::make_unique<SlidingLogState>();
        else
          return s;
      },
      freshState(a));
}

Step MemoryStore::decideCompact(CompactState& state, const DecisionRequest& r) {
  if (state.index() != static_cast<std::size_t>(r.algorithm)) state = freshCompact(r.algorithm);
  return std::visit(
      [&](auto& s) {
        if constexpr (std::is_same_v<std::decay_t<decltype(s)>, std::unique_ptr<SlidingLogState>>)
          return rl::decide(*s, r.now, r.cost, r.quota);
        else
          return rl::decide(s, r.now, r.cost, r.quota);
      },
      state);
}

Result<Decision> MemoryStore::decide(const DecisionRequest& r) {
  if (auto ok = validateCost(r.cost, r.quota); !ok) return ok.error();
  const std::string& key = mapKey(r.algorithm, r.client);
  const std::uint64_t h = hashKey(key);
  Shard& shard = shards_[shardIndex(h)];
  const std::int64_t now = r.now.count();

  std::lock_guard lock(shard.mutex);
  // Amortised O(1): a sweep costs O(size) and runs once the operations since
  // the last one reach max(256, the size it left), so a shard holds at most
  // about twice its live keys plus 256.
  if (++shard.opsSinceSweep >= shard.sweepAfter) sweep(shard, now);
  Entry* entry = shard.entries.find(h, key);
  if (entry != nullptr && entry->expiresAt <= now) entry->state = freshCompact(r.algorithm);
  if (entry == nullptr) {
    Entry fresh{freshCompact(r.algorithm), 0};
    Step step = decideCompact(fresh.state, r);
    if (step.wrote) {
      fresh.expiresAt = now + step.ttl.count();
      if (perShard_ != 0 && shard.entries.size() >= perShard_) makeRoom(shard, now);
      shard.entries.insert(h, key, std::move(fresh));
    }
    return step.decision;
  }
  Step step = decideCompact(entry->state, r);
  if (step.wrote) entry->expiresAt = now + step.ttl.count();
  return step.decision;
}

std::size_t MemoryStore::size() const {
  std::size_t n = 0;
  for (const auto& s : shards_) {
    std::lock_guard lock(s.mutex);
    n += s.entries.size();
  }
  return n;
}

std::size_t MemoryStore::purgeExpired(Micros now) {
  std::size_t n = 0;
  for (auto& s : shards_) {
    std::lock_guard lock(s.mutex);
    n += sweep(s, now.count());
  }
  return n;
}

std::optional<Micros> MemoryStore::ttl(Algorithm a, std::string_view client, Micros now) const {
  const std::string& key = mapKey(a, client);
  const std::uint64_t h = hashKey(key);
  const Shard& shard = shards_[shardIndex(h)];
  std::lock_guard lock(shard.mutex);
  const Entry* entry = shard.entries.find(h, key);
  if (entry == nullptr || entry->expiresAt <= now.count()) return std::nullopt;
  return Micros{entry->expiresAt - now.count()};
}

}  // namespace rl
