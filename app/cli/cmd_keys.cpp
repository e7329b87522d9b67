// ratelab-cli keys: the limiter keys under the prefix (SCAN, never KEYS):
// type, PTTL, the fields, value, ZSET or LIST size, and what the key means to
// the library that wrote it (RateLab, Python limits, rate-limiter-flexible,
// rate-limit-redis, go-redis/redis_rate); see keys/key_reading.hpp. On Sentinel
// and on a server with replicas, a first line names the master and its
// replicas' lag (redis/replication_status.hpp, the window's line too).
#include <algorithm>
#include <charconv>
#include <cstdio>

#include "cli_flags.hpp"
#include "commands.hpp"
#include "common/json.hpp"
#include "common/file_read.hpp"
#include "common/printable_text.hpp"
#include "keys/envoy_config.hpp"
#include "keys/key_reading.hpp"
#include "redis/key_inspector.hpp"
#include "redis/replication_status.hpp"
#include "keys_modes.hpp"
#include "report_flag.hpp"
#include "redis_target.hpp"
#include "store/store.hpp"

namespace rl::cli {

namespace {
// The reading in words, with where to give what the key does not hold.
std::string explained(const KeyReading& r) {
  return r.needs.empty() ? r.words : r.words + " --assume '" + r.needs + "' supplies what it lacks.";
}

void addReading(Json& j, const std::optional<KeyReading>& r) {
  if (!r) return;
  j["library"] = r->library;
  j["algorithm"] = r->algorithm;
  if (r->limit) j["limit"] = *r->limit;
  if (r->used) j["used"] = *r->used;
  if (r->resetMs) j["reset_ms"] = *r->resetMs;  // absent when unknown or never (no TTL)
  j["explained"] = explained(*r);
  if (!r->assumed.empty()) j["assumed"] = r->assumed;
  if (r->ttlBoundMs) j["ttl_bound_ms"] = *r->ttlBoundMs;
  j["warnings"] = r->warnings;
}

Json keyJson(const KeyInfo& k, const std::optional<KeyReading>& reading) {
  Json j;
  j["name"] = k.name;
  j["type"] = k.type;
  j["pttl_ms"] = k.pttlMs;
  if (k.pttlMs == -1) j["no_ttl"] = true;
  if (k.type == "string") {
    // At most 64 KiB of it (an escaped NUL takes 6 bytes of JSON); value_bytes says how long it is.
    constexpr std::size_t kJsonValueBytes = 64 * 1024;
    const std::string_view shown = std::string_view(k.value).substr(0, kJsonValueBytes);
    j["value"] = std::string(shown);
    j["value_bytes"] = k.valueBytes;
    if (k.valueBytes > static_cast<std::int64_t>(shown.size())) j["value_truncated"] = true;
  }
  if (!k.fields.empty()) {
    Json fields;
    for (const auto& [f, v] : k.fields) fields[f] = v;
    j["fields"] = std::move(fields);
  }
  if (k.type == "hash") {
    j["field_count"] = k.fieldCount;  // fields holds at most kHashHead of them
    if (k.fieldCount > static_cast<std::int64_t>(k.fields.size())) j["fields_truncated"] = true;
  }
  if (k.type == "zset") j["zset_size"] = k.zsetSize;
  if (k.type == "list") j["list_size"] = k.listSize;
  addReading(j, reading);
  if (!k.node.empty()) {
    j["node"] = k.node;
    j["slot"] = k.slot;
  }
  return j;
}

// Key names and values come from Redis as bytes: printed through printableText.
// A table cell shows at most kDetailBytes of a value and kDetailFields fields, then says how much there is.
std::string keyDetail(const KeyInfo& k) {
  constexpr std::size_t kDetailBytes = 200, kDetailFields = 20;
  if (k.type == "string" && k.fields.empty()) {
    if (k.value.size() <= kDetailBytes && k.valueBytes <= static_cast<std::int64_t>(kDetailBytes))
      return printableText(k.value);
    return printableText(std::string_view(k.value).substr(0, kDetailBytes)) + "... (" + std::to_string(k.valueBytes) +
           " bytes)";
  }
  if (k.type == "zset") return "size " + std::to_string(k.zsetSize);
  if (k.type == "list") return "length " + std::to_string(k.listSize);
  std::string out;
  for (std::size_t i = 0; i < k.fields.size() && i < kDetailFields; ++i)
    out += (out.empty() ? "" : " ") + printableText(k.fields[i].first) + "=" + printableText(k.fields[i].second);
  const auto total = std::max<std::int64_t>(k.fieldCount, static_cast<std::int64_t>(k.fields.size()));
  if (total > static_cast<std::int64_t>(kDetailFields)) out += " ... (" + std::to_string(total) + " fields)";
  return out;
}

constexpr FlagSpec kKeysFlags[] = {
    {"redis", true},        {"prefix", true},       {"match", true},        {"assume", true},
    {"json", false},        {"help", false},        {"audit", false},       {"require", true},
    {"max-keys", true},     {"envoy-config", true}, {"watch", false},       {"interval-ms", true},
    {"duration-ms", true},  {"jsonl", false},       {"enable-notifications", false}, {"report", true}};

constexpr const char* kKeysUsage =
    "usage: ratelab-cli keys [--redis URL] [--prefix P (default ratelab:; '' every key)] [--match GLOB]\n"
    "                       [--json] [--assume 'rate=10/s burst=20 limit=10 window=60s'] [--envoy-config FILE]\n"
    "       ratelab-cli keys --audit [--prefix P (default: every key)] [--require ttl-bound,known,eviction]\n"
    "                       [--max-keys N] [--json] [--report FILE.html]\n"
    "       ratelab-cli keys --watch --prefix P [--interval-ms MS (250)] [--duration-ms D (10000)] [--jsonl]\n"
    "                       [--enable-notifications]\n"
    "  Decodes RateLab's keys and those of Python limits, rate-limiter-flexible, rate-limit-redis\n"
    "  (express), @fastify/rate-limit, go-redis/redis_rate, Envoy ratelimit (--envoy-config: its\n"
    "  descriptor YAML), Traefik, Kong, redis-cell and hand-written Lua (a hash bucket, a ZSET log).\n"
    "  --assume gives what a key does not hold: GCRA rate and burst, a counter's limit and window.\n"
    "  --audit exits 1 when a limiter key has no TTL or a --require'd check fails.\n";

// The reading context of the flags: --assume and --envoy-config. Exit code when wrong.
int contextFromFlags(const Flags& flags, ReadContext& context, std::optional<EnvoyConfig>& envoy) {
  auto assume = parseKeyAssumptions(flags.get("assume").value_or(""));
  if (!assume) return badInput("keys", invalidArgument("--assume: " + assume.error().message));
  context.assume = *assume;
  if (const auto file = flags.get("envoy-config")) {
    auto text = readWholeFile(*file, "--envoy-config");
    if (!text) return badInput("keys", text.error());
    auto parsed = parseEnvoyConfig(*text);
    if (!parsed) return badInput("keys", invalidArgument("--envoy-config " + *file + ": " + parsed.error().message));
    envoy = std::move(*parsed);
    context.envoy = &*envoy;
  }
  return kExitOk;
}

// The listing as a table: which node is the master and its replicas' lag (Sentinel, or a server with replicas),
// one line per key, its reading and warnings under it, keys per master on a cluster.
void printKeyTable(const std::vector<KeyInfo>& keys, const std::vector<std::optional<KeyReading>>& readings,
                   const std::string& prefix, bool cluster, const std::string& replication) {
  if (!replication.empty()) std::printf("%s\n", replication.c_str());
  std::printf("%-48s %-7s %10s  %s%-22s %s\n", "key", "type", "pttl ms", cluster ? "node               slot " : "",
              "library", "value");
  std::vector<std::pair<std::string, int>> perNode;  // cluster: keys per master, in scan order
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const KeyInfo& k = keys[i];
    const auto& r = readings[i];
    char where[96] = "";
    if (cluster) std::snprintf(where, sizeof where, "%-16s %6d ", k.node.c_str(), k.slot);
    std::printf("%-48s %-7s %10lld  %s%-22s %s\n", printableText(k.name).c_str(), printableText(k.type).c_str(),
                static_cast<long long>(k.pttlMs), where, r ? r->library.c_str() : "-", keyDetail(k).c_str());
    if (r) std::printf("    %s: %s\n", r->algorithm.c_str(), printableText(explained(*r)).c_str());
    if (r)
      for (const std::string& w : r->warnings) std::printf("    warning: %s\n", printableText(w).c_str());
    if (cluster && (perNode.empty() || perNode.back().first != k.node)) perNode.emplace_back(k.node, 0);
    if (cluster) ++perNode.back().second;
  }
  std::printf("%zu key(s) under '%s'", keys.size(), printableText(prefix).c_str());
  for (const auto& [node, n] : perNode) std::printf("%s %s: %d", &node == &perNode.front().first ? ";" : ",", node.c_str(), n);
  std::printf("\n");
}

// `keys` without --audit or --watch: every key under the prefix, read and listed.
int listKeys(const Flags& flags, RedisTarget& redis, const std::string& prefix, ReadContext context) {
  auto keys = scanAllLimiterKeys(redis.endpoint, prefix, flags.get("match").value_or(""));
  if (!keys && keys.error().code == ErrorCode::Unavailable) {
    std::fprintf(stderr, "ratelab-cli keys: cannot reach Redis at %s: %s\n", redis.endpoint.toString().c_str(),
                 printableText(keys.error().message).c_str());
    return kExitNoRedis;
  }
  if (!keys) {
    std::fprintf(stderr, "ratelab-cli keys: %s\n", printableText(keys.error().message).c_str());
    return kExitFailed;
  }
  // The time the readings are taken at: one node's clock (cluster: the first seed).
  const RedisEndpoint& ep = redis.endpoint;
  auto conn = RedisConnection::connect(ep.cluster ? ep.node(ep.host, ep.port) : ep);
  auto now = conn ? serverTimeUs(conn.value()) : Result<std::int64_t>(conn.error());
  if (!now) {
    std::fprintf(stderr, "ratelab-cli keys: %s\n", printableText(now.error().message).c_str());
    return kExitFailed;
  }
  context.nowUs = *now;
  std::vector<std::optional<KeyReading>> readings;
  for (const KeyInfo& k : keys.value()) readings.push_back(readKey(k, context));
  if (flags.has("json")) {
    Json arr = Json::array();
    for (std::size_t i = 0; i < keys->size(); ++i) arr.push_back(keyJson((*keys)[i], readings[i]));
    Json doc;
    doc["prefix"] = prefix;
    doc["keys"] = std::move(arr);
    std::printf("%s\n", dumpJson(doc, 2).c_str());
    return kExitOk;
  }
  // One server: the master and its replicas' lag (a cluster has its keys-per-master line instead); the table only.
  const std::string replication = ep.cluster ? std::string() : replicationLine(conn.value());
  printKeyTable(*keys, readings, prefix, redis.endpoint.cluster, replication);
  return kExitOk;
}

}  // namespace

std::optional<std::int64_t> numberFlag(const Flags& flags, std::string_view name, std::int64_t fallback, std::int64_t lo,
                                       std::int64_t hi) {
  const auto text = flags.get(name);
  if (!text) return fallback;
  std::int64_t v = 0;
  auto [p, ec] = std::from_chars(text->data(), text->data() + text->size(), v);
  if (ec != std::errc{} || p != text->data() + text->size() || v < lo || v > hi) {
    badInput("keys", invalidArgument("--" + std::string(name) + " '" + *text + "' is not valid: allowed a whole number from " +
                                     std::to_string(lo) + " to " + std::to_string(hi)));
    return std::nullopt;
  }
  return v;
}

int cmdKeys(const Args& args) {
  auto flags = Flags::parse(args, kKeysFlags);
  if (!flags) return badInput("keys", flags.error());
  if (flags->has("help")) {
    std::fputs(kKeysUsage, stdout);
    return kExitOk;
  }
  if (flags->has("audit") && flags->has("watch"))
    return badInput("keys", invalidArgument("--audit and --watch are two modes: allowed one of them"));
  const bool audit = flags->has("audit");
  if (flags->has("report") && !audit)
    return badInput("keys", invalidArgument("--report is the audit's page: allowed with --audit only"));
  if (int rc = checkReportFlag("keys", *flags); rc != kExitOk) return rc;  // before the scan, not after it
  if (flags->has("watch") && !flags->get("prefix"))
    return badInput("keys", invalidArgument("--watch needs --prefix: allowed the prefix of one limiter's keys, e.g. rl:"));
  const std::string prefix = flags->get("prefix").value_or(audit ? std::string() : std::string(kDefaultPrefix));
  if (prefix.empty() && flags->has("watch"))
    return badInput("keys", invalidArgument("--watch --prefix is empty: allowed the prefix of one limiter's keys, e.g. rl:"));
  ReadContext context;
  std::optional<EnvoyConfig> envoy;
  if (int rc = contextFromFlags(*flags, context, envoy); rc != kExitOk) return rc;
  std::optional<RedisTarget> redis;
  if (int rc = resolveRedisTarget(flags->get("redis"), "keys", redis); rc != kExitOk) return rc;
  if (audit) return runKeysAudit(args, *flags, *redis, prefix, context);
  if (flags->has("watch")) return runKeysWatch(*flags, *redis, prefix, context);
  return listKeys(*flags, *redis, prefix, context);
}

}  // namespace rl::cli
