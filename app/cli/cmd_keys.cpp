// ratelab-cli keys: the limiter keys under the prefix (SCAN, never KEYS):
// type, PTTL, and the fields, value or ZSET size.
#include <cstdio>

#include "cli_flags.hpp"
#include "commands.hpp"
#include "common/json.hpp"
#include "redis/key_inspector.hpp"
#include "redis_target.hpp"
#include "store/store.hpp"

namespace rl::cli {

namespace {
Json keyJson(const KeyInfo& k) {
  Json j;
  j["name"] = k.name;
  j["type"] = k.type;
  j["pttl_ms"] = k.pttlMs;
  if (k.type == "string") j["value"] = k.value;
  if (k.type == "hash") {
    Json fields;
    for (const auto& [f, v] : k.fields) fields[f] = v;
    j["fields"] = std::move(fields);
  }
  if (k.type == "zset") j["zset_size"] = k.zsetSize;
  if (!k.node.empty()) {
    j["node"] = k.node;
    j["slot"] = k.slot;
  }
  return j;
}

std::string keyDetail(const KeyInfo& k) {
  if (k.type == "string") return k.value;
  if (k.type == "zset") return "size " + std::to_string(k.zsetSize);
  std::string out;
  for (const auto& [f, v] : k.fields) out += (out.empty() ? "" : " ") + f + "=" + v;
  return out;
}
}  // namespace

int cmdKeys(const Args& args) {
  static constexpr FlagSpec kAllowed[] = {
      {"redis", true}, {"prefix", true}, {"match", true}, {"json", false}, {"help", false}};
  auto flags = Flags::parse(args, kAllowed);
  if (!flags) return badInput("keys", flags.error());
  if (flags->has("help")) {
    std::fputs("usage: ratelab-cli keys [--redis URL] [--prefix P (default ratelab:)] [--match GLOB] [--json]\n", stdout);
    return kExitOk;
  }
  const std::string prefix = flags->get("prefix").value_or(std::string(kDefaultPrefix));
  if (prefix.empty()) return badInput("keys", invalidArgument("--prefix is empty: allowed 1 to 200 characters"));
  std::optional<RedisTarget> redis;
  if (int rc = resolveRedisTarget(flags->get("redis"), "keys", redis); rc != kExitOk) return rc;
  auto keys = scanAllLimiterKeys(redis->endpoint, prefix, flags->get("match").value_or(""));
  if (!keys && keys.error().code == ErrorCode::Unavailable) {
    std::fprintf(stderr, "ratelab-cli keys: cannot reach Redis at %s: %s\n", redis->endpoint.toString().c_str(),
                 keys.error().message.c_str());
    return kExitNoRedis;
  }
  if (!keys) {
    std::fprintf(stderr, "ratelab-cli keys: %s\n", keys.error().message.c_str());
    return kExitFailed;
  }
  if (flags->has("json")) {
    Json arr = Json::array();
    for (const KeyInfo& k : keys.value()) arr.push_back(keyJson(k));
    Json doc;
    doc["prefix"] = prefix;
    doc["keys"] = std::move(arr);
    std::printf("%s\n", dumpJson(doc, 2).c_str());
    return kExitOk;
  }
  const bool cluster = redis->endpoint.cluster;
  std::printf("%-48s %-7s %10s  %s%s\n", "key", "type", "pttl ms", cluster ? "node               slot " : "", "value");
  std::vector<std::pair<std::string, int>> perNode;  // cluster: keys per master, in scan order
  for (const KeyInfo& k : keys.value()) {
    char where[96] = "";
    if (cluster) std::snprintf(where, sizeof where, "%-16s %6d ", k.node.c_str(), k.slot);
    std::printf("%-48s %-7s %10lld  %s%s\n", k.name.c_str(), k.type.c_str(), static_cast<long long>(k.pttlMs),
                where, keyDetail(k).c_str());
    if (cluster && (perNode.empty() || perNode.back().first != k.node)) perNode.emplace_back(k.node, 0);
    if (cluster) ++perNode.back().second;
  }
  std::printf("%zu key(s) under '%s'", keys->size(), prefix.c_str());
  for (const auto& [node, n] : perNode) std::printf("%s %s: %d", &node == &perNode.front().first ? ";" : ",", node.c_str(), n);
  std::printf("\n");
  return kExitOk;
}

}  // namespace rl::cli
