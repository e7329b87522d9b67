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
#include "keys/key_info.hpp"
#include "redis/redis_connection.hpp"

namespace rl {

class RedisLink;

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

/// Reads the named keys as a scan would (TYPE, PTTL, value); a missing key comes back with type "none", PTTL -2.
Result<std::vector<KeyInfo>> readKeysNamed(RedisConnection& conn, const std::vector<std::string>& names, int zsetHead = 5);

/// Keys measured with MEMORY USAGE before sampling starts (sampleMemoryUsage).
inline constexpr std::int64_t kMemoryAllFirst = 1000;

/// MEMORY USAGE of the first kMemoryAllFirst keys, then of every `every`-th key (counting on from
/// `*seen`, which it advances), pipelined; `every` 0: none.
Result<void> sampleMemoryUsage(RedisConnection& conn, std::vector<KeyInfo>& keys, int every, std::int64_t* seen);

/// The prefix as a literal glob: escapes * ? [ ] and backslash.
std::string globEscape(std::string_view s);

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
