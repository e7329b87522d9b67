// ratelab-cli keys --audit: the keys that will hurt in production, counted per
// prefix and library by redis/key_audit_scan.hpp (SCAN in pages, bounded
// memory). Prints a table or the keys document with its "audit" object; exit 1
// when a limiter key has no TTL or a --require'd check fails.
#include <chrono>
#include <cstdio>
#include <unistd.h>

#include "commands.hpp"
#include "common/byte_text.hpp"
#include "common/duration_text.hpp"
#include "common/json.hpp"
#include "common/printable_text.hpp"
#include "interrupt.hpp"
#include "keys_modes.hpp"
#include "progress_line.hpp"
#include "redis/key_audit_scan.hpp"
#include "redis/redis_link.hpp"
#include "report/html_report.hpp"
#include "report_flag.hpp"

namespace rl::cli {

namespace {
std::string libraryText(const KeyAuditGroup& g) { return g.library.empty() ? "(no reader knows)" : g.library; }

// Progress on stderr: a redrawn line on a terminal, else one line per 100,000 keys.
KeyAuditProgress auditProgress() {
  const bool tty = ::isatty(2) != 0;
  return [tty, last = std::int64_t{0}, t0 = std::chrono::steady_clock::now()](std::int64_t n) mutable {
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    char text[96];
    std::snprintf(text, sizeof text, "keys --audit: %lld keys read (%.1f s)", static_cast<long long>(n), s);
    if (tty) drawProgressLine(text);
    else if (n / 100'000 > last / 100'000) std::fprintf(stderr, "%s\n", text);
    last = n;
  };
}

void printGroups(const KeyAuditReport& r) {
  std::printf("%-24s %-38s %9s %7s %8s %18s  %s\n", "prefix", "library", "keys", "no TTL", "long TTL", "memory (sampled)",
              "hottest (used/limit)");
  for (const KeyAuditGroup& g : r.groups) {
    const std::string mem = g.memorySampled ? bytesText(g.memoryBytes) + " (" + std::to_string(g.memorySampled) + ")" : "-";
    const std::string hot = g.hottest.empty() ? "-" : printableText(g.hottest[0].name) + " " + std::to_string(g.hottest[0].used) +
                                                         "/" + std::to_string(g.hottest[0].limit);
    std::printf("%-24s %-38s %9lld %7lld %8lld %18s  %s\n", printableText(g.prefix.empty() ? "(none)" : g.prefix).c_str(),
                libraryText(g).c_str(), static_cast<long long>(g.count), static_cast<long long>(g.noTtl),
                static_cast<long long>(g.longTtl), mem.c_str(), hot.c_str());
  }
}

void printFindings(const KeyAuditReport& r) {
  for (const KeyAuditGroup& g : r.groups) {
    for (const std::string& n : g.library.empty() ? std::vector<std::string>{} : g.noTtlNames)
      std::printf("no TTL: %s (%s): never expires\n", printableText(n).c_str(), libraryText(g).c_str());
    if (!g.library.empty() && g.noTtl > static_cast<std::int64_t>(g.noTtlNames.size()))
      std::printf("no TTL: %lld more under '%s'\n", static_cast<long long>(g.noTtl - static_cast<std::int64_t>(g.noTtlNames.size())),
                  printableText(g.prefix).c_str());
    for (const LongTtlKey& k : g.longTtlKeys)
      std::printf("TTL far beyond its window: %s (%s): %s, expected at most %s\n", printableText(k.name).c_str(),
                  libraryText(g).c_str(), durationText(k.pttlMs).c_str(), durationText(k.boundMs).c_str());
    for (std::size_t i = 0; i < g.biggest.size() && i < 3; ++i)
      std::printf("big: %s (%s): %s\n", printableText(g.biggest[i].name).c_str(), libraryText(g).c_str(),
                  bytesText(static_cast<std::int64_t>(g.biggest[i].score)).c_str());
    for (const std::string& n : g.unknownNames) std::printf("unknown shape: %s\n", printableText(n).c_str());
  }
  for (const ServerMemory& s : r.servers)
    std::printf("server %s: maxmemory %s, maxmemory-policy %s, %lld keys, %lld with a TTL\n", s.node.c_str(),
                s.maxmemory ? bytesText(s.maxmemory).c_str() : "0 (no limit)", s.policy.c_str(),
                static_cast<long long>(s.keys), static_cast<long long>(s.keysWithTtl));
  for (const std::string& w : r.warnings) std::printf("warning: %s\n", w.c_str());
  for (const std::string& n : r.notes) std::printf("note: %s\n", n.c_str());
}
}  // namespace

int runKeysAudit(const Args& args, const Flags& flags, RedisTarget& redis, const std::string& prefix, const ReadContext& context) {
  KeyAuditOptions o;
  o.prefix = prefix;
  o.pattern = flags.get("match").value_or("");
  o.context = context;
  const auto maxKeys = numberFlag(flags, "max-keys", 0, 1, 1'000'000'000);
  if (!maxKeys) return kExitBadInput;
  o.maxKeys = *maxKeys;
  auto required = flags.get("require") ? parseAuditChecks(*flags.get("require")) : Result<std::vector<std::string>>(std::vector<std::string>{});
  if (!required) return badInput("keys", invalidArgument("--require: " + required.error().message));
  auto link = RedisLink::connect(redis.endpoint);
  if (!link) {
    std::fprintf(stderr, "ratelab-cli keys: cannot reach Redis at %s: %s\n", redis.endpoint.toString().c_str(),
                 printableText(link.error().message).c_str());
    return kExitNoRedis;
  }
  if (!redis.managed()) catchInterrupt();  // a private server has its own handler
  auto report = auditKeys(*link, o, auditProgress(), &interruptFlag());
  endProgressLine();
  if (!report) {
    std::fprintf(stderr, "ratelab-cli keys: %s\n", printableText(report.error().message).c_str());
    return kExitFailed;
  }
  const auto failed = failedAuditChecks(*report, *required);
  if (flags.has("json")) {
    std::printf("%s\n", dumpJson(keyAuditDocument(prefix, *report, failed), 2).c_str());
  } else {
    std::printf("key audit of %s, %s: %lld key(s), %lld limiter key(s)%s\n", redis.endpoint.toString().c_str(),
                prefix.empty() ? "every key" : ("prefix '" + printableText(prefix) + "'").c_str(),
                static_cast<long long>(report->scanned), static_cast<long long>(report->limiterKeys),
                report->truncated ? " (stopped early)" : "");
    printGroups(*report);
    printFindings(*report);
    for (const std::string& f : failed) std::printf("FAILED %s\n", f.c_str());
    std::printf("verdict: %s\n", failed.empty() ? "pass" : "fail");
  }
  if (flags.has("report")) {
    ReportHeader header;
    header.title = "Key audit of " + redis.endpoint.toString();
    header.command = commandLine("keys", args);
    const std::string html = keyAuditReportHtml(*report, failed, redis.endpoint.toString(),
                                                keyAuditDocument(prefix, *report, failed), header);
    if (int rc = writeReportFlag("keys", flags, html); rc != kExitOk) return rc;
  }
  if (interruptFlag().load()) return interruptedExitCode();
  return failed.empty() ? kExitOk : kExitFailed;
}

}  // namespace rl::cli
