#include "keys/key_audit.hpp"

#include <algorithm>

#include "common/duration_text.hpp"

namespace rl {

namespace {
constexpr std::size_t kMaxGroups = 1000;  ///< past this many, unknown keys share one group

std::string unknownPrefix(const std::string& name) {
  const auto sep = name.find_first_of(":/");
  return sep == std::string::npos ? std::string() : name.substr(0, sep + 1);
}

// Keeps `list` at most `cap` long, best first.
void rank(std::vector<RankedKey>& list, RankedKey key, std::size_t cap) {
  if (list.size() >= cap && key.score <= list.back().score) return;
  const auto at = std::find_if(list.begin(), list.end(), [&](const RankedKey& k) { return k.score < key.score; });
  list.insert(at, std::move(key));
  if (list.size() > cap) list.pop_back();
}

TtlBin binOf(std::int64_t pttlMs, const std::optional<std::int64_t>& bound) {
  if (pttlMs == -1) return TtlBin::NoTtl;
  if (!bound || *bound <= 0) return TtlBin::NoBound;
  const double ratio = static_cast<double>(pttlMs) / static_cast<double>(*bound);
  if (ratio <= 0.5) return TtlBin::HalfBound;
  if (ratio <= 1) return TtlBin::Bound;
  if (ratio <= 2) return TtlBin::TwiceBound;
  if (ratio <= 10) return TtlBin::TenTimesBound;
  return TtlBin::Beyond;
}

void countReading(KeyAuditGroup& g, const KeyInfo& key, const KeyReading& r, const KeyAuditLimits& limits) {
  if (r.ttlBoundMs) g.boundMs = std::max(g.boundMs.value_or(0), *r.ttlBoundMs);
  if (r.ttlBoundMs && key.pttlMs >= 0 && ttlFarBeyond(key.pttlMs, *r.ttlBoundMs)) {
    ++g.longTtl;
    if (g.longTtlKeys.size() < limits.named) g.longTtlKeys.push_back({key.name, key.pttlMs, *r.ttlBoundMs});
  }
  if (r.used && r.limit && *r.limit > 0)
    rank(g.hottest, {key.name, static_cast<double>(*r.used) / static_cast<double>(*r.limit), *r.used, *r.limit}, limits.top);
  ++g.ttlHistogram[static_cast<std::size_t>(binOf(key.pttlMs, r.ttlBoundMs))];
}

void evictionWarnings(const ServerMemory& s, std::int64_t limiterWithTtl, KeyAuditReport& out) {
  const std::string at = s.node.empty() ? std::string() : " on " + s.node;
  const std::int64_t withoutTtl = std::max<std::int64_t>(0, s.keys - s.keysWithTtl);
  if (s.policy.starts_with("volatile-") && withoutTtl > 0 && limiterWithTtl > 0) {
    out.warnings.push_back("maxmemory-policy " + s.policy + at + " evicts only keys with a TTL: the " +
                           std::to_string(limiterWithTtl) + " limiter key(s) with one are the candidates while the " +
                           std::to_string(withoutTtl) + " key(s) without a TTL are never evicted, so memory pressure "
                           "resets limits silently. Give every key a TTL, use an allkeys-* policy, or keep the limiter "
                           "in its own Redis.");
  } else if (s.policy.starts_with("allkeys-") && s.maxmemory > 0) {
    out.notes.push_back("maxmemory-policy " + s.policy + at + ": limiter keys are evicted like any other key when " +
                        "memory is full; an evicted key resets its client's limit.");
  } else if (s.policy == "noeviction" && s.maxmemory > 0) {
    out.notes.push_back("maxmemory-policy noeviction" + at + ": when memory is full, writes fail with OOM and the "
                        "limiter's failure policy decides (open, closed or local).");
  }
  if (s.maxmemory == 0) out.notes.push_back("maxmemory is 0" + at + " (no limit): Redis grows until the machine runs out.");
}
}  // namespace

std::string_view ttlBinName(TtlBin bin) {
  static constexpr std::array<std::string_view, kTtlBins> kNames{"<= 1/2 bound", "<= bound", "<= 2 x bound",
                                                                  "<= 10 x bound", "> 10 x bound", "no bound known", "no TTL"};
  return kNames[static_cast<std::size_t>(bin)];
}

bool ttlFarBeyond(std::int64_t pttlMs, std::int64_t boundMs) {
  return pttlMs > boundMs + std::max<std::int64_t>(boundMs, 1000);
}

void KeyAudit::add(const KeyInfo& key, const std::optional<KeyReading>& reading) {
  ++scanned_;
  std::pair<std::string, std::string> id{reading ? reading->library : std::string(),
                                         reading ? reading->prefix : unknownPrefix(key.name)};
  if (!reading && groups_.size() >= kMaxGroups && !groups_.count(id)) id.second = "(other)";
  KeyAuditGroup& g = groups_[id];
  if (g.count == 0) std::tie(g.library, g.prefix) = id;
  ++g.count;
  if (key.pttlMs == -1) {
    ++g.noTtl;
    if (g.noTtlNames.size() < limits_.named) g.noTtlNames.push_back(key.name);
  }
  if (key.memoryBytes) {
    ++g.memorySampled;
    g.memoryBytes += *key.memoryBytes;
    rank(g.biggest, {key.name, static_cast<double>(*key.memoryBytes), 0, 0}, limits_.top);
  }
  if (reading) countReading(g, key, *reading, limits_);
  else {
    ++g.ttlHistogram[static_cast<std::size_t>(binOf(key.pttlMs, std::nullopt))];
    if (g.unknownNames.size() < limits_.named) g.unknownNames.push_back(key.name);
  }
}

KeyAuditReport KeyAudit::report() const {
  KeyAuditReport out;
  out.scanned = scanned_;
  out.truncated = truncated_;
  out.servers = servers_;
  std::int64_t limiterWithTtl = 0;
  for (const auto& [id, g] : groups_) {
    out.groups.push_back(g);
    if (!g.library.empty()) {
      out.limiterKeys += g.count;
      limiterWithTtl += g.count - g.noTtl;
    }
  }
  std::stable_sort(out.groups.begin(), out.groups.end(), [](const KeyAuditGroup& a, const KeyAuditGroup& b) {
    if (a.library.empty() != b.library.empty()) return b.library.empty();
    return a.count > b.count;
  });
  for (const ServerMemory& s : servers_) evictionWarnings(s, limiterWithTtl, out);
  if (truncated_) out.notes.push_back("The scan stopped at --max-keys after " + std::to_string(scanned_) + " keys.");
  return out;
}

}  // namespace rl
