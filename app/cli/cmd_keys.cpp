// ratelab-cli keys: the limiter keys under the prefix (SCAN, never KEYS):
// type, PTTL, the fields, value, ZSET or LIST size, and what the key means to
// the library that wrote it (RateLab, Python limits, rate-limiter-flexible,
// rate-limit-redis, go-redis/redis_rate); see keys/key_reading.hpp.
#include <cstdio>

#include "cli_flags.hpp"
#include "commands.hpp"
#include "common/json.hpp"
#include "common/printable_text.hpp"
#include "keys/key_reading.hpp"
#include "redis/key_inspector.hpp"
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
  j["warnings"] = r->warnings;
}

Json keyJson(const KeyInfo& k, const std::optional<KeyReading>& reading) {
  Json j;
  j["name"] = k.name;
  j["type"] = k.type;
  j["pttl_ms"] = k.pttlMs;
  if (k.pttlMs == -1) j["no_ttl"] = true;
  if (k.type == "string") j["value"] = k.value;
  if (!k.fields.empty()) {
    Json fields;
    for (const auto& [f, v] : k.fields) fields[f] = v;
    j["fields"] = std::move(fields);
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
std::string keyDetail(const KeyInfo& k) {
  if (k.type == "string" && k.fields.empty()) return printableText(k.value);
  if (k.type == "zset") return "size " + std::to_string(k.zsetSize);
  if (k.type == "list") return "length " + std::to_string(k.listSize);
  std::string out;
  for (const auto& [f, v] : k.fields) out += (out.empty() ? "" : " ") + printableText(f) + "=" + printableText(v);
  return out;
}
}  // namespace

int cmdKeys(const Args& args) {
  static constexpr FlagSpec kAllowed[] = {
      {"redis", true}, {"prefix", true}, {"match", true}, {"assume", true}, {"json", false}, {"help", false}};
  auto flags = Flags::parse(args, kAllowed);
  if (!flags) return badInput("keys", flags.error());
  if (flags->has("help")) {
    std::fputs("usage: ratelab-cli keys [--redis URL] [--prefix P (default ratelab:)] [--match GLOB] [--json]\n"
               "                       [--assume 'rate=10/s burst=20 limit=10']\n"
               "  Decodes RateLab's keys and those of Python limits (LIMITER/...), rate-limiter-flexible\n"
               "  (rlflx:...), rate-limit-redis (rl:...) and go-redis/redis_rate (rate:...). --assume gives\n"
               "  what a key does not hold: GCRA rate and burst, a counter's limit, a bucket's capacity.\n", stdout);
    return kExitOk;
  }
  const std::string prefix = flags->get("prefix").value_or(std::string(kDefaultPrefix));
  if (prefix.empty()) return badInput("keys", invalidArgument("--prefix is empty: allowed 1 to 200 characters"));
  auto assume = parseKeyAssumptions(flags->get("assume").value_or(""));
  if (!assume) return badInput("keys", invalidArgument("--assume: " + assume.error().message));
  std::optional<RedisTarget> redis;
  if (int rc = resolveRedisTarget(flags->get("redis"), "keys", redis); rc != kExitOk) return rc;
  auto keys = scanAllLimiterKeys(redis->endpoint, prefix, flags->get("match").value_or(""));
  if (!keys && keys.error().code == ErrorCode::Unavailable) {
    std::fprintf(stderr, "ratelab-cli keys: cannot reach Redis at %s: %s\n", redis->endpoint.toString().c_str(),
                 printableText(keys.error().message).c_str());
    return kExitNoRedis;
  }
  if (!keys) {
    std::fprintf(stderr, "ratelab-cli keys: %s\n", printableText(keys.error().message).c_str());
    return kExitFailed;
  }
  // The time the readings are taken at: one node's clock (cluster: the first seed).
  const RedisEndpoint& ep = redis->endpoint;
  auto conn = RedisConnection::connect(ep.cluster ? ep.node(ep.host, ep.port) : ep);
  auto now = conn ? serverTimeUs(conn.value()) : Result<std::int64_t>(conn.error());
  if (!now) {
    std::fprintf(stderr, "ratelab-cli keys: %s\n", printableText(now.error().message).c_str());
    return kExitFailed;
  }
  std::vector<std::optional<KeyReading>> readings;
  for (const KeyInfo& k : keys.value()) readings.push_back(readKey(k, now.value(), assume.value()));
  if (flags->has("json")) {
    Json arr = Json::array();
    for (std::size_t i = 0; i < keys->size(); ++i) arr.push_back(keyJson((*keys)[i], readings[i]));
    Json doc;
    doc["prefix"] = prefix;
    doc["keys"] = std::move(arr);
    std::printf("%s\n", dumpJson(doc, 2).c_str());
    return kExitOk;
  }
  const bool cluster = redis->endpoint.cluster;
  std::printf("%-48s %-7s %10s  %s%-22s %s\n", "key", "type", "pttl ms", cluster ? "node               slot " : "",
              "library", "value");
  std::vector<std::pair<std::string, int>> perNode;  // cluster: keys per master, in scan order
  for (std::size_t i = 0; i < keys->size(); ++i) {
    const KeyInfo& k = (*keys)[i];
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
  std::printf("%zu key(s) under '%s'", keys->size(), printableText(prefix).c_str());
  for (const auto& [node, n] : perNode) std::printf("%s %s: %d", &node == &perNode.front().first ? ";" : ",", node.c_str(), n);
  std::printf("\n");
  return kExitOk;
}

}  // namespace rl::cli
