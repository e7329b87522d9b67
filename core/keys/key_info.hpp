#pragma once
// One key as it was read from Redis: name, type, PTTL and a type-aware view of
// its value. core/redis/key_inspector.cpp fills it (SCAN, TYPE, PTTL, STRLEN +
// GETRANGE, HLEN + HSCAN, ZRANGE, LRANGE, MEMORY USAGE: heads, never a whole big value); everything in core/keys reads it
// without a server, so readers and the audit are tested from plain values.

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace rl {

/// One limiter key as Redis holds it.
struct KeyInfo {
  std::string name;        ///< full key name, prefix included
  std::string type;        ///< "string", "hash", "zset", ... ("none" if it vanished meanwhile)
  std::int64_t pttlMs = -2;  ///< PTTL: ms left, -1 = no TTL, -2 = gone
  std::string value;       ///< string keys: the value, at most its first kValueHead bytes
  std::int64_t valueBytes = 0;  ///< string keys: STRLEN (more than value.size(): value is a head)
  /// hash keys: field, value (at most kHashHead of them); RateLab's sliding_log string decoded
  /// (entries, oldest, newest)
  std::vector<std::pair<std::string, std::string>> fields;
  std::int64_t fieldCount = 0;  ///< hash keys: HLEN (more than fields.size(): fields is a head)
  std::int64_t zsetSize = 0;  ///< zset keys: ZCARD
  std::vector<std::pair<std::string, std::string>> zsetHead;  ///< zset keys: first entries (member, score)
  std::optional<std::pair<std::string, std::string>> zsetLast;  ///< zset keys: the entry with the highest score
  std::int64_t listSize = 0;  ///< list keys: LLEN
  std::vector<std::string> listHead;  ///< list keys: the first kListHead entries (head first)
  std::optional<std::int64_t> memoryBytes;  ///< MEMORY USAGE, when this key was sampled
  std::string node;        ///< cluster: host:port of the master holding it (empty on one server)
  int slot = -1;           ///< cluster: its slot (-1 on one server)
};

/// How many entries of a LIST key are read (Python limits' moving window keeps at most its limit).
inline constexpr int kListHead = 1000;
/// How many bytes of a string value are read (GETRANGE): every limiter's value
/// fits, a RateLab sliding_log of up to 131072 entries too; a 100 MB string is not fetched whole.
inline constexpr std::int64_t kValueHead = 1 << 20;
/// How many fields of a hash are read (HSCAN COUNT, never HGETALL): a 1M-field hash
/// stalls neither the listing nor the server's other clients.
inline constexpr int kHashHead = 1000;

}  // namespace rl
