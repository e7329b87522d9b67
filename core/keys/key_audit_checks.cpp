// The audit's checks (--require) and its JSON: the `"audit"` object of `keys --json`.
#include <algorithm>

#include "common/duration_text.hpp"
#include "keys/key_audit.hpp"

namespace rl {

namespace {
std::int64_t total(const KeyAuditReport& r, std::int64_t KeyAuditGroup::*field, bool known) {
  std::int64_t n = 0;
  for (const KeyAuditGroup& g : r.groups)
    if (g.library.empty() != known) n += g.*field;
  return n;
}

Json rankedJson(const std::vector<RankedKey>& keys, bool hot) {
  Json arr = Json::array();
  for (const RankedKey& k : keys) {
    Json j{{"name", k.name}};
    if (hot) {
      j["used"] = k.used;
      j["limit"] = k.limit;
      j["used_per_limit"] = k.score;
    } else {
      j["bytes"] = static_cast<std::int64_t>(k.score);
    }
    arr.push_back(std::move(j));
  }
  return arr;
}

Json groupJson(const KeyAuditGroup& g) {
  Json j{{"prefix", g.prefix}, {"library", g.library.empty() ? Json(nullptr) : Json(g.library)}, {"count", g.count},
         {"no_ttl", g.noTtl}, {"no_ttl_keys", g.noTtlNames}, {"long_ttl", g.longTtl}};
  Json longKeys = Json::array();
  for (const LongTtlKey& k : g.longTtlKeys) longKeys.push_back({{"name", k.name}, {"pttl_ms", k.pttlMs}, {"expected_max_ms", k.boundMs}});
  j["long_ttl_keys"] = std::move(longKeys);
  if (g.boundMs) j["ttl_bound_ms"] = *g.boundMs;
  j["memory"] = {{"sampled", g.memorySampled}, {"bytes", g.memoryBytes},
                 {"estimated_bytes", g.memorySampled ? g.memoryBytes * g.count / g.memorySampled : 0}};
  j["biggest"] = rankedJson(g.biggest, false);
  j["hottest"] = rankedJson(g.hottest, true);
  Json hist;
  for (std::size_t i = 0; i < kTtlBins; ++i) hist[std::string(ttlBinName(static_cast<TtlBin>(i)))] = g.ttlHistogram[i];
  j["ttl_histogram"] = std::move(hist);
  if (g.library.empty()) j["unknown_keys"] = g.unknownNames;
  return j;
}
}  // namespace

Result<std::vector<std::string>> parseAuditChecks(std::string_view text) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i <= text.size()) {
    const std::size_t j = std::min(text.find(',', i), text.size());
    const std::string_view part = text.substr(i, j - i);
    if (std::find(kAuditChecks.begin(), kAuditChecks.end(), part) == kAuditChecks.end())
      return invalidArgument("'" + std::string(part) + "' is not a check: allowed ttl, ttl-bound, known, eviction (comma-separated)");
    out.emplace_back(part);
    i = j + 1;
  }
  return out;
}

std::vector<std::string> failedAuditChecks(const KeyAuditReport& r, const std::vector<std::string>& required) {
  const auto wants = [&](std::string_view c) { return std::find(required.begin(), required.end(), c) != required.end(); };
  std::vector<std::string> failed;
  if (const auto n = total(r, &KeyAuditGroup::noTtl, true); n > 0)
    failed.push_back("ttl: " + std::to_string(n) + " limiter key(s) have no TTL");
  if (const auto n = total(r, &KeyAuditGroup::longTtl, true); wants("ttl-bound") && n > 0)
    failed.push_back("ttl-bound: " + std::to_string(n) + " limiter key(s) have a TTL far beyond their window or refill");
  if (const auto n = total(r, &KeyAuditGroup::count, false); wants("known") && n > 0)
    failed.push_back("known: " + std::to_string(n) + " key(s) no reader knows");
  if (wants("eviction") && !r.warnings.empty()) failed.push_back("eviction: " + r.warnings.front());
  return failed;
}

Json keyAuditJson(const KeyAuditReport& r, const std::vector<std::string>& failed) {
  Json groups = Json::array();
  for (const KeyAuditGroup& g : r.groups) groups.push_back(groupJson(g));
  Json servers = Json::array();
  for (const ServerMemory& s : r.servers)
    servers.push_back({{"node", s.node}, {"version", s.version}, {"maxmemory", s.maxmemory}, {"maxmemory_policy", s.policy}, {"keys", s.keys},
                       {"keys_with_ttl", s.keysWithTtl}});
  return Json{{"scanned", r.scanned}, {"limiter_keys", r.limiterKeys}, {"truncated", r.truncated},
              {"groups", std::move(groups)}, {"servers", std::move(servers)}, {"warnings", r.warnings},
              {"notes", r.notes}, {"failed", failed}, {"verdict", failed.empty() ? "pass" : "fail"}};
}

Json keyAuditDocument(const std::string& prefix, const KeyAuditReport& r, const std::vector<std::string>& failed) {
  Json keys = Json::array();
  for (const KeyAuditGroup& g : r.groups) {
    for (const std::string& n : g.noTtlNames)
      keys.push_back({{"name", n}, {"library", g.library.empty() ? Json(nullptr) : Json(g.library)}, {"pttl_ms", -1},
                      {"no_ttl", true}, {"warnings", {"No TTL"}}});
    for (const LongTtlKey& k : g.longTtlKeys)
      keys.push_back({{"name", k.name}, {"library", g.library}, {"pttl_ms", k.pttlMs},
                      {"warnings", {"TTL " + durationText(k.pttlMs) + ", expected at most " + durationText(k.boundMs)}}});
  }
  return Json{{"prefix", prefix}, {"keys", std::move(keys)}, {"audit", keyAuditJson(r, failed)}};
}

}  // namespace rl
