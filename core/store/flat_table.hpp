#pragma once
// FlatTable: an open-addressing (linear probing) hash table from string keys
// to values, built so that a lookup in a million keys touches one cache line:
// each slot holds a 32-bit hash tag, the key (inline up to 15 bytes, else on
// the heap) and the value, 64 bytes in all for values up to 40 bytes.
// std::unordered_map needs the bucket array plus a node: two dependent misses.
// Not thread-safe: the owner (one MemoryStore shard) locks. Removal is by
// rebuild (`retain`, `removeLowest`), which the owner runs amortised: no tombstones.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rl::detail {

/// A key stored in a slot: inline when it fits in 15 bytes, else on the heap
/// (the pointer kept in the same bytes). 16 bytes, alignment 1.
class SlotKey {
 public:
  SlotKey() = default;
  explicit SlotKey(std::string_view k) {
    if (k.size() <= kInline) {
      std::memcpy(bytes_, k.data(), k.size());
      size_ = static_cast<std::uint8_t>(k.size());
    } else {
      auto* heap = new std::string(k);
      std::memcpy(bytes_, &heap, sizeof heap);
      size_ = kHeap;
    }
  }
  SlotKey(SlotKey&& o) noexcept { steal(o); }
  SlotKey& operator=(SlotKey&& o) noexcept {
    if (this != &o) {
      release();
      steal(o);
    }
    return *this;
  }
  SlotKey(const SlotKey&) = delete;
  SlotKey& operator=(const SlotKey&) = delete;
  ~SlotKey() { release(); }

  std::string_view view() const {
    return size_ == kHeap ? std::string_view(*heap()) : std::string_view(bytes_, size_);
  }

 private:
  static constexpr std::uint8_t kInline = 15;
  static constexpr std::uint8_t kHeap = 255;
  std::string* heap() const {
    std::string* p = nullptr;
    std::memcpy(&p, bytes_, sizeof p);
    return p;
  }
  void release() {
    if (size_ == kHeap) delete heap();
    size_ = 0;
  }
  void steal(SlotKey& o) {
    std::memcpy(bytes_, o.bytes_, sizeof bytes_);  // inline bytes or the heap pointer
    size_ = o.size_;
    o.size_ = 0;
  }
  char bytes_[kInline] = {};  ///< the key bytes, or the heap pointer when size_ == kHeap
  std::uint8_t size_ = 0;     ///< inline length 0..15, or kHeap
};

/// String-keyed open-addressing table; see the file comment.
template <class Value>
class FlatTable {
 public:
  /// One slot: a single 64-byte cache line when Value is at most 40 bytes.
  struct alignas(64) Slot {
    std::uint32_t tag = 0;  ///< 0 = empty; stored tags always have the top bit set
    SlotKey key;            ///< the key
    Value value{};          ///< the value
  };

  /// The stored 32-bit tag of a 64-bit hash: never 0, so 0 marks an empty slot.
  static std::uint32_t tag(std::uint64_t h) {
    return static_cast<std::uint32_t>(h >> 32) | 0x8000'0000U;
  }

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
    if ((size_ + 1) * 10 > slots_.size() * 7)
      rebuild(slots_.empty() ? 16 : slots_.size() * 2, [](const Value&) { return true; });
    ++size_;
    return place(h, SlotKey(key), std::move(value));
  }

  /// Keeps only the entries for which `keep(value)` is true; returns how many were removed.
  template <class Keep>
  std::size_t retain(Keep keep) {
    std::size_t live = 0;
    for (const Slot& s : slots_) live += s.tag != 0 && keep(s.value);
    if (live == size_) return 0;  // nothing to remove: no rebuild
    const std::size_t before = size_;
    std::size_t cap = 16;
    while (live * 10 > cap * 7 / 2) cap *= 2;  // rebuild at <= 35% load, leaving room to grow
    rebuild(cap, keep);
    return before - size_;
  }

  /// Removes the `n` entries whose `rank(value)` is lowest (among equal ranks, any);
  /// returns how many were removed. One pass to rank, one rebuild at the same capacity.
  template <class Rank>
  std::size_t removeLowest(std::size_t n, Rank rank) {
    if (n == 0 || size_ == 0) return 0;
    const std::size_t before = size_;
    if (n >= size_) {
      reset(slots_.size());
      return before;
    }
    std::vector<decltype(rank(slots_.front().value))> ranks;
    ranks.reserve(size_);
    for (const Slot& s : slots_)
      if (s.tag != 0) ranks.push_back(rank(s.value));
    std::nth_element(ranks.begin(), ranks.begin() + static_cast<std::ptrdiff_t>(n - 1), ranks.end());
    const auto cut = ranks[n - 1];
    std::size_t ties = n;  // how many ranked exactly `cut` go, after every one below it
    for (const auto r : ranks) ties -= r < cut;
    rebuild(slots_.size(), [&](const Value& v) {
      const auto r = rank(v);
      if (r < cut) return false;
      if (r > cut || ties == 0) return true;
      --ties;
      return false;
    });
    return before - size_;
  }

  std::size_t size() const { return size_; }

 private:
  static constexpr std::size_t kNone = ~std::size_t{0};

  std::size_t indexOf(std::uint64_t h, std::string_view key) const {
    if (slots_.empty()) return kNone;
    const std::uint32_t t = tag(h);
    for (std::size_t i = h & mask_;; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.tag == 0) return kNone;
      if (s.tag == t && s.key.view() == key) return i;
    }
  }

  Value& place(std::uint64_t h, SlotKey key, Value value) {
    for (std::size_t i = h & mask_;; i = (i + 1) & mask_) {
      Slot& s = slots_[i];
      if (s.tag == 0) {
        s.tag = tag(h);
        s.key = std::move(key);
        s.value = std::move(value);
        hashes_[i] = h;
        return s.value;
      }
    }
  }

  void reset(std::size_t capacity) {
    slots_ = std::vector<Slot>(capacity);
    hashes_.assign(capacity, 0);
    mask_ = capacity - 1;
    size_ = 0;
  }

  /// Moves every slot whose value passes `keep` into a fresh table of `capacity` slots.
  template <class Keep>
  void rebuild(std::size_t capacity, Keep keep) {
    std::vector<Slot> old;
    old.swap(slots_);
    std::vector<std::uint64_t> oldHashes;
    oldHashes.swap(hashes_);
    reset(capacity);
    for (std::size_t i = 0; i < old.size(); ++i)
      if (old[i].tag != 0 && keep(old[i].value)) {
        place(oldHashes[i], std::move(old[i].key), std::move(old[i].value));
        ++size_;
      }
  }

  std::vector<Slot> slots_;            ///< power-of-two capacity, load <= 70%
  std::vector<std::uint64_t> hashes_;  ///< full hash per slot, read only when moving slots
  std::size_t mask_ = 0;               ///< capacity - 1
  std::size_t size_ = 0;               ///< occupied slots
};

}  // namespace rl::detail
