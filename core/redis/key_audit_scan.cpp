#include "redis/key_audit_scan.hpp"

#include <cstdlib>

#include "redis/key_inspector.hpp"
#include "redis/redis_link.hpp"
#include "redis/server_status.hpp"

namespace rl {

namespace {
// "keys=12,expires=3,avg_ttl=0" -> the number after `name=`.
std::int64_t keyspaceNumber(const std::string& entry, std::string_view name) {
  const auto at = entry.find(std::string(name) + "=");
  if (at == std::string::npos) return 0;
  return std::strtoll(entry.c_str() + at + name.size() + 1, nullptr, 10);
}

struct AuditScan {
  const KeyAuditOptions& options;
  const KeyAuditProgress& progress;
  const std::atomic<bool>* cancel;
  KeyAudit audit;
  std::int64_t scanned = 0;
  std::int64_t seen = 0;  // keys counted for memory sampling
  bool stopped = false;

  bool shouldStop() const { return stopped || (cancel && cancel->load()); }

  Result<void> master(RedisConnection& conn, bool cluster) {
    auto mem = serverMemory(conn);
    if (!mem) return mem.error();
    audit.addServer(*mem);
    auto now = serverTimeUs(conn);
    if (!now) return now.error();
    ReadContext ctx = options.context;
    ctx.nowUs = *now;
    std::uint64_t cursor = 0;
    do {
      if (shouldStop()) return {};
      auto page = scanLimiterKeys(conn, options.prefix, options.pattern, cursor, options.pageCount, 5);
      if (!page) return page.error();
      if (auto ok = sampleMemoryUsage(conn, page->keys, options.memoryEvery, &seen); !ok) return ok;
      for (KeyInfo& k : page->keys) {
        if (options.maxKeys > 0 && scanned >= options.maxKeys) {
          stopped = true;
          audit.setTruncated();
          break;
        }
        if (k.pttlMs == -2) continue;  // expired between SCAN and PTTL
        if (cluster) {
          k.node = conn.endpoint().address();
          k.slot = keySlot(k.name);
        }
        audit.add(k, readKey(k, ctx));
        ++scanned;
      }
      if (progress) progress(scanned);
      cursor = page->nextCursor;
    } while (cursor != 0);
    return {};
  }
};
}  // namespace

Result<ServerMemory> serverMemory(RedisConnection& conn) {
  ServerMemory s;
  s.node = conn.endpoint().address();
  auto memory = conn.command({"INFO", "memory"});
  if (!memory) return memory.error();
  if (memory->isError()) return protocolError("INFO memory: " + std::string(memory->str()));
  s.maxmemory = std::strtoll(infoField(memory->str(), "maxmemory").c_str(), nullptr, 10);
  s.policy = infoField(memory->str(), "maxmemory_policy");
  auto server = conn.command({"INFO", "server"});
  if (!server) return server.error();
  if (!server->isError()) s.version = infoField(server->str(), "redis_version");
  auto keyspace = conn.command({"INFO", "keyspace"});
  if (!keyspace) return keyspace.error();
  const std::string db = infoField(keyspace->str(), "db" + std::to_string(conn.endpoint().db));
  s.keys = keyspaceNumber(db, "keys");
  s.keysWithTtl = keyspaceNumber(db, "expires");
  return s;
}

Result<KeyAuditReport> auditKeys(RedisLink& link, const KeyAuditOptions& options, const KeyAuditProgress& progress,
                                 const std::atomic<bool>* cancel) {
  AuditScan scan{options, progress, cancel, KeyAudit(options.limits)};
  const bool cluster = link.router() != nullptr;
  auto ok = link.forEachMaster([&](RedisConnection& conn) { return scan.master(conn, cluster); });
  if (!ok) return ok.error();
  if (cancel && cancel->load()) scan.audit.setTruncated();
  return scan.audit.report();
}

}  // namespace rl
