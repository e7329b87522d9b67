#pragma once
// Key inspection: the limiter keys under a prefix (an empty prefix: every key),
// with their type, PTTL and a type-aware view of the value. SCAN with MATCH
// only (never KEYS). Used by `ratelab-cli keys` and the GUI inspector. One
// connection, one thread.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/result.hpp"
#include "redis/redis_connection.hpp"

namespace rl {

class RedisLink;

/// One limiter key as Redis holds it.
struct KeyInfo {
  std::string name;        ///< full key name, prefix included
  std::string type;        ///< "string", "hash", "zset", ... ("none" if it vanished meanwhile)
  std::int64_t pttlMs = -2;  ///< PTTL: ms left, -1 = no TTL, -2 = gone
  std::string value;       ///< string keys: the value
  /// hash keys: field, value; RateLab's sliding_log string decoded (entries, oldest, newest)
  std::vector<std::pair<std::string, std::string>> fields;
  std::int64_t zsetSize = 0;  ///< zset keys: ZCARD
  std::vector<std::pair<std::string, std::string>> zsetHead;  ///< zset keys: first entries (member, score)
  std::optional<std::pair<std::string, std::string>> zsetLast;  ///< zset keys: the entry with the highest score
  std::int64_t listSize = 0;  ///< list keys: LLEN
  std::vector<std::string> listHead;  ///< list keys: the first kListHead entries (head first)
  std::string node;        ///< cluster: host:port of the master holding it (empty on one server)
  int slot = -1;           ///< cluster: its slot (-1 on one server)
};

/// How many entries of a LIST key are read (Python limits' moving window keeps at most its limit).
inline constexpr int kListHead = 1000;

/// One SCAN step: the keys found and the cursor to continue (0 = done).
struct KeyPage {
  std::uint64_t nextCursor = 0;  ///< pass back to continue; 0 when the scan is complete
  std::vector<KeyInfo> keys;     ///< keys of this step (SCAN may return none on a step)
};

/// One SCAN step over keys matching `<prefix><pattern>` (the prefix is matched
/// literally, `pattern` is a glob within it, "" = "*"). `count` is SCAN's hint
/// (1..100000); `zsetHead` how many ZSET entries to show (0..1000).
Result<KeyPage> scanLimiterKeys(RedisConnection& conn, std::string_view prefix,
                                std::string_view pattern, std::uint64_t cursor, int count,
                                int zsetHead = 5);

/// Scans to the end and returns every matching key (small databases, tests, CLI).
Result<std::vector<KeyInfo>> scanAllLimiterKeys(RedisConnection& conn, std::string_view prefix,
                                                std::string_view pattern = "", int zsetHead = 5);

/// Every matching key of a server or, for a redis+cluster:// endpoint, of
/// every master (each key with its node and slot), masters in slot-map order.
Result<std::vector<KeyInfo>> scanAllLimiterKeys(const RedisEndpoint& endpoint, std::string_view prefix,
                                                std::string_view pattern = "");

/// The same through an open link (a cluster link fills node and slot); `zsetHead` as scanLimiterKeys.
Result<std::vector<KeyInfo>> scanAllLimiterKeys(RedisLink& link, std::string_view prefix,
                                                std::string_view pattern = "", int zsetHead = 5);

/// Deletes `keys`; refuses (InvalidArgument, nothing deleted) if any key does
/// not start with `prefix` or the prefix is empty. Returns how many existed.
Result<std::int64_t> deleteKeys(RedisConnection& conn, std::string_view prefix,
                                const std::vector<std::string>& keys);

/// The same through a link: on a cluster, one DEL per slot on the master that
/// holds it (checked against the prefix before anything is deleted).
Result<std::int64_t> deleteKeys(RedisLink& link, std::string_view prefix, const std::vector<std::string>& keys);

/// Redis TIME in microseconds since the epoch (the "now" key readings use).
Result<std::int64_t> serverTimeUs(RedisConnection& conn);

/// PTTL of each key in one round trip: ms left, -1 = no TTL, -2 = missing.
Result<std::vector<std::int64_t>> pttlOf(RedisConnection& conn,
                                         const std::vector<std::string>& keys);

}  // namespace rl
