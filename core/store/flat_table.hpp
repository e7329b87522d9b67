#pragma once
// FlatTable: an open-addressing (linear probing) hash table from string keys
// to values, with the key, its hash and the value inline in one slot. A lookup
// in a million keys touches one slot (one or two cache lines) instead of the
// bucket array plus a node of std::unordered_map. Not thread-safe: the owner
// (MemoryStore, one per shard) locks. Removal is by rebuild (`retain`), which
// the owner runs amortised, so there are no tombstones.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rl::detail {

/// String-keyed open-addressing table; see the file comment.
template <class Value>
class FlatTable {
 public:
  struct Slot {
    std::uint64_t hash = 0;  ///< 0 = empty; stored hashes always have the top bit set
    std::string key;         ///< the key (short keys stay inline via SSO)
    Value value{};           ///< the value
  };

  /// The stored form of a hash: never 0, so 0 can mark an empty slot.
  static std::uint64_t tag(std::uint64_t h) { return h | (std::uint64_t{1} << 63); }

  /// The value for `key` (whose hash is `h`), or nullptr.
  Value* find(std::uint64_t h, std::string_view key) {
    const std::size_t i = indexOf(h, key);
    return i == kNone ? nullptr : &slots_[i].value;
  }
  const Value* find(std::uint64_t h, std::string_view key) const {
    const std::size_t i = indexOf(h, key);
    return i == kNone ? nullptr : &slots_[i].value;
  }

  /// Inserts `key` (absent) with `value`; returns the stored value.
  Value& insert(std::uint64_t h, std::string_view key, Value value) {
    if ((size_ + 1) * 10 > slots_.size() * 7) rehash(slots_.empty() ? 16 : slots_.size() * 2);
    ++size_;
    return place(tag(h), std::string(key), std::move(value));
  }

  /// Keeps only the entries for which `keep(value)` is true; returns how many were removed.
  template <class Keep>
  std::size_t retain(Keep keep) {
    std::vector<Slot> old;
    old.swap(slots_);
    const std::size_t before = size_;
    size_ = 0;
    std::size_t live = 0;
    for (const Slot& s : old) live += s.hash != 0 && keep(s.value);
    std::size_t cap = 16;
    while (live * 10 > cap * 7 / 2) cap *= 2;  // rebuild at <= 35% load, leaving room to grow
    slots_.resize(cap);
    mask_ = cap - 1;
    for (Slot& s : old)
      if (s.hash != 0 && keep(s.value)) {
        place(s.hash, std::move(s.key), std::move(s.value));
        ++size_;
      }
    return before - size_;
  }

  std::size_t size() const { return size_; }

 private:
  static constexpr std::size_t kNone = ~std::size_t{0};

  std::size_t indexOf(std::uint64_t h, std::string_view key) const {
    if (slots_.empty()) return kNone;
    h = tag(h);
    for (std::size_t i = h & mask_;; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.hash == 0) return kNone;
      if (s.hash == h && s.key == key) return i;
    }
  }

  Value& place(std::uint64_t taggedHash, std::string key, Value value) {
    for (std::size_t i = taggedHash & mask_;; i = (i + 1) & mask_) {
      Slot& s = slots_[i];
      if (s.hash == 0) {
        s.hash = taggedHash;
        s.key = std::move(key);
        s.value = std::move(value);
        return s.value;
      }
    }
  }

  void rehash(std::size_t capacity) {
    std::vector<Slot> old(capacity);
    old.swap(slots_);
    mask_ = capacity - 1;
    for (Slot& s : old)
      if (s.hash != 0) place(s.hash, std::move(s.key), std::move(s.value));
  }

  std::vector<Slot> slots_;  ///< power-of-two capacity, load <= 70%
  std::size_t mask_ = 0;     ///< capacity - 1
  std::size_t size_ = 0;     ///< occupied slots
};

}  // namespace rl::detail
