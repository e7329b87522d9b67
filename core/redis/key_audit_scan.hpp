#pragma once
// The key audit against a live server or cluster: SCAN in pages on every
// master, read each key, sample MEMORY USAGE, count it into a KeyAudit
// (core/keys/key_audit.hpp) and drop it, so memory stays bounded however many
// keys there are. maxmemory and maxmemory-policy come from INFO per master.
// `ratelab-cli keys --audit` and the window's Audit tab call auditKeys().

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>

#include "common/result.hpp"
#include "keys/key_audit.hpp"
#include "keys/key_reading.hpp"

namespace rl {

class RedisConnection;
class RedisLink;

/// What to audit and how.
struct KeyAuditOptions {
  std::string prefix;           ///< literal prefix ("" = every key)
  std::string pattern;          ///< glob within the prefix ("" = "*")
  ReadContext context;          ///< assumptions and Envoy descriptors (nowUs: taken per master)
  std::int64_t maxKeys = 0;     ///< stop after this many keys (0: no cap)
  int memoryEvery = 10;         ///< MEMORY USAGE of every n-th key (0: none)
  int pageCount = 1000;         ///< SCAN COUNT per page
  KeyAuditLimits limits;        ///< names and top-N kept per group
};

/// Called after each page with the keys read so far (on the calling thread).
using KeyAuditProgress = std::function<void(std::int64_t scanned)>;

/// The audit of every matching key on `link` (each master of a cluster);
/// stops early, report marked truncated, at maxKeys or when `cancel` turns true.
Result<KeyAuditReport> auditKeys(RedisLink& link, const KeyAuditOptions& options, const KeyAuditProgress& progress = {},
                                 const std::atomic<bool>* cancel = nullptr);

/// The version, maxmemory, maxmemory-policy and the database's keys / keys with a TTL (INFO server, memory, keyspace).
Result<ServerMemory> serverMemory(RedisConnection& conn);

}  // namespace rl
