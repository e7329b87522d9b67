#include "store/memory_store.hpp"

#include <algorithm>
#include <functional>

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

MemoryStore::Shard& MemoryStore::shardFor(const std::string& key) {
  return shards_[std::hash<std::string>{}(key) % kShards];
}

const MemoryStore::Shard& MemoryStore::shardFor(const std::string& key) const {
  return shards_[std::hash<std::string>{}(key) % kShards];
}

std::size_t MemoryStore::sweep(Shard& shard, std::int64_t now) {
  return std::erase_if(shard.entries, [now](const auto& kv) { return kv.second.expiresAt <= now; });
}

Result<Decision> MemoryStore::decide(const DecisionRequest& r) {
  if (auto ok = validateCost(r.cost, r.quota); !ok) return ok.error();
  const std::string& key = mapKey(r.algorithm, r.client);
  Shard& shard = shardFor(key);
  const std::int64_t now = r.now.count();

  std::lock_guard lock(shard.mutex);
  // Amortised O(1): a full sweep of the shard every max(256, size / 2) operations.
  if (++shard.opsSinceSweep >= std::max<std::size_t>(256, shard.entries.size() / 2)) {
    sweep(shard, now);
    shard.opsSinceSweep = 0;
  }
  auto it = shard.entries.find(key);
  if (it != shard.entries.end() && it->second.expiresAt <= now)
    it->second.state = freshState(r.algorithm);
  if (it == shard.entries.end()) {
    Entry fresh{freshState(r.algorithm), 0};
    Step step = rl::decide(r.algorithm, fresh.state, r.now, r.cost, r.quota);
    if (step.wrote) {
      fresh.expiresAt = now + step.ttl.count();
      shard.entries.emplace(key, std::move(fresh));
    }
    return step.decision;
  }
  Step step = rl::decide(r.algorithm, it->second.state, r.now, r.cost, r.quota);
  if (step.wrote) it->second.expiresAt = now + step.ttl.count();
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
    s.opsSinceSweep = 0;
  }
  return n;
}

std::optional<Micros> MemoryStore::ttl(Algorithm a, std::string_view client, Micros now) const {
  const std::string& key = mapKey(a, client);
  const Shard& shard = shardFor(key);
  std::lock_guard lock(shard.mutex);
  auto it = shard.entries.find(key);
  if (it == shard.entries.end() || it->second.expiresAt <= now.count()) return std::nullopt;
  return Micros{it->second.expiresAt - now.count()};
}

}  // namespace rl
