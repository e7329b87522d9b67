#pragma once
// The key audit: the limiter keys that will hurt in production, counted per
// prefix and library as the scan goes (bounded memory: counts, capped name
// lists, top-N tables and a histogram per group, never every key).
//   - keys without a TTL (a counter that never resets locks its client out);
//   - TTLs far beyond what the decoded window or refill needs (named with the bound);
//   - MEMORY USAGE of the sampled keys and the biggest of them;
//   - the hottest clients (highest used / limit);
//   - maxmemory and maxmemory-policy per server, with the volatile-* warning;
//   - keys no reader knows.
// `ratelab-cli keys --audit` and the window's Audit tab run the same code.

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/json.hpp"
#include "keys/key_reading.hpp"

namespace rl {

/// How much of each kind the audit keeps per group.
struct KeyAuditLimits {
  std::size_t named = 20;  ///< names kept per list (no TTL, TTL beyond, unknown)
  std::size_t top = 5;     ///< biggest and hottest keys kept per group
};

/// One server's memory settings and key counts (INFO memory + keyspace).
struct ServerMemory {
  std::string node;              ///< host:port
  std::int64_t maxmemory = 0;    ///< bytes; 0 = no limit
  std::string policy;            ///< maxmemory-policy ("noeviction", "volatile-lru", ...)
  std::int64_t keys = 0;         ///< keys in the database
  std::int64_t keysWithTtl = 0;  ///< of them with a TTL (INFO keyspace expires=)
  std::string version;           ///< redis_version (INFO server), empty when not told
};

/// A key with a TTL far beyond the time it needs.
struct LongTtlKey {
  std::string name;        ///< the key
  std::int64_t pttlMs = 0;  ///< its TTL
  std::int64_t boundMs = 0; ///< the most it needs (window, refill to full)
};

/// A key and a number: its MEMORY USAGE, or its used / limit.
struct RankedKey {
  std::string name;         ///< the key
  double score = 0;         ///< bytes, or used / limit
  std::int64_t used = 0;    ///< hottest: used
  std::int64_t limit = 0;   ///< hottest: limit
};

/// The TTL histogram's bins, against the key's own bound.
enum class TtlBin { HalfBound, Bound, TwiceBound, TenTimesBound, Beyond, NoBound, NoTtl };
inline constexpr std::size_t kTtlBins = 7;
/// "<= 1/2 bound", "<= bound", ... for a bin.
std::string_view ttlBinName(TtlBin bin);

/// One prefix of one library (library empty: keys no reader knows).
struct KeyAuditGroup {
  std::string prefix;                     ///< "rl:", "LIMITER/", ...
  std::string library;                    ///< as KeyReading::library; empty for unknown keys
  std::int64_t count = 0;                 ///< keys
  std::int64_t noTtl = 0;                 ///< keys without a TTL
  std::vector<std::string> noTtlNames;    ///< the first of them
  std::int64_t longTtl = 0;               ///< keys with a TTL far beyond their bound
  std::vector<LongTtlKey> longTtlKeys;    ///< the first of them
  std::optional<std::int64_t> boundMs;    ///< the largest bound seen
  std::int64_t memorySampled = 0;         ///< keys measured with MEMORY USAGE
  std::int64_t memoryBytes = 0;           ///< their total
  std::vector<RankedKey> biggest;         ///< the largest measured, largest first
  std::vector<RankedKey> hottest;         ///< the highest used / limit, highest first
  std::vector<std::string> unknownNames;  ///< unknown keys: the first of them
  std::array<std::int64_t, kTtlBins> ttlHistogram{};  ///< keys per TtlBin
};

/// The audit's result.
struct KeyAuditReport {
  std::vector<KeyAuditGroup> groups;   ///< known groups (most keys first), then unknown ones
  std::vector<ServerMemory> servers;   ///< one per server (cluster: per master)
  std::vector<std::string> warnings;   ///< eviction and the like, one sentence each
  std::vector<std::string> notes;      ///< facts about the servers that are not failures
  std::int64_t scanned = 0;            ///< keys read
  std::int64_t limiterKeys = 0;        ///< of them known to a reader
  bool truncated = false;              ///< the scan stopped at --max-keys
};

/// Is a TTL of `pttlMs` far beyond `boundMs`? (more than the bound plus max(bound, 1 s))
bool ttlFarBeyond(std::int64_t pttlMs, std::int64_t boundMs);

/// Accumulates keys as they are scanned; one thread.
class KeyAudit {
 public:
  explicit KeyAudit(KeyAuditLimits limits = {}) : limits_(limits) {}
  /// Counts one key with its reading (nullopt: no reader knew it).
  void add(const KeyInfo& key, const std::optional<KeyReading>& reading);
  /// Records one server's memory settings.
  void addServer(ServerMemory server) { servers_.push_back(std::move(server)); }
  /// Marks the scan as stopped early.
  void setTruncated() { truncated_ = true; }
  /// The report so far, warnings included.
  KeyAuditReport report() const;

 private:
  KeyAuditLimits limits_;                                                    ///< caps
  std::map<std::pair<std::string, std::string>, KeyAuditGroup> groups_;      ///< by (library, prefix)
  std::vector<ServerMemory> servers_;                                        ///< servers seen
  std::int64_t scanned_ = 0;                                                 ///< keys added
  bool truncated_ = false;                                                   ///< stopped early
};

/// The checks `--require` can name: "ttl-bound", "known", "eviction" ("ttl" always applies).
inline constexpr std::array<std::string_view, 4> kAuditChecks{"ttl", "ttl-bound", "known", "eviction"};

/// The checks of `required` that `report` fails, each as one sentence; "ttl" is always checked.
std::vector<std::string> failedAuditChecks(const KeyAuditReport& report, const std::vector<std::string>& required);

/// Parses "ttl-bound,known"; InvalidArgument names the bad check and the allowed ones.
Result<std::vector<std::string>> parseAuditChecks(std::string_view text);

/// The `"audit"` object of `keys --json` (docs/cli.md): groups, servers, warnings, failed checks.
Json keyAuditJson(const KeyAuditReport& report, const std::vector<std::string>& failed);

/// The whole `keys --audit --json` document: the prefix, the keys the audit names (no TTL, TTL far
/// beyond its bound) and the "audit" object. The CLI prints it; the HTML report of either surface embeds it.
Json keyAuditDocument(const std::string& prefix, const KeyAuditReport& report, const std::vector<std::string>& failed);

}  // namespace rl
