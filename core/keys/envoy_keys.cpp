// Envoy's ratelimit service (envoyproxy/ratelimit), redis backend, from its
// documented layout (the service is not run here; tests write the same keys):
//   key    [CACHE_KEY_PREFIX]<domain>_<key>_<value>_..._<window start>
//          one <key>_<value>_ per descriptor entry, the window start in unix
//          seconds rounded down to the unit (second, minute, hour, day, ...);
//          '_' inside keys and values is NOT escaped.
//   value  the count: INCRBY hits, EXPIRE <unit> + a random jitter of up to
//          EXPIRATION_JITTER_MAX_SECONDS (so a TTL far beyond the unit is jitter).
// The key can only be split against the descriptors it came from: with
// --envoy-config (ReadContext::envoy) the reader matches the key to one
// descriptor and reads its limit and unit; without it, or when several
// descriptors fit, the reading says "ambiguous" rather than guess.
#include <algorithm>

#include "common/duration_text.hpp"
#include "keys/envoy_config.hpp"
#include "keys/key_reading.hpp"

namespace rl::detail {

namespace {
constexpr std::int64_t kYearS = 366 * 86400;

struct EnvoyMatch {
  std::string domain;       ///< the domain matched
  std::string entries;      ///< key=value, ... of the descriptor path
  const EnvoyLimit* limit;  ///< the limit of the innermost descriptor
};

bool allDigits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

void matchLevel(std::string_view rest, const std::vector<EnvoyDescriptor>& level, const std::string& path,
                const std::string& domain, std::vector<EnvoyMatch>& out);

// `rest` follows the entry `d` (its key and value consumed): the window start, or more entries.
void matchAfter(std::string_view rest, const EnvoyDescriptor& d, const std::string& path, const std::string& domain,
                std::vector<EnvoyMatch>& out) {
  if (d.limit && allDigits(rest)) {
    const auto start = wholeNumber(rest);
    if (start && *start % d.limit->unitSeconds == 0) out.push_back({domain, path, &*d.limit});
  }
  matchLevel(rest, d.children, path, domain, out);
}

void matchLevel(std::string_view rest, const std::vector<EnvoyDescriptor>& level, const std::string& path,
                const std::string& domain, std::vector<EnvoyMatch>& out) {
  for (const EnvoyDescriptor& d : level) {
    const std::string head = d.key + "_";
    if (!rest.starts_with(head)) continue;
    const std::string_view after = rest.substr(head.size());
    const std::string sep = path.empty() ? "" : ", ";
    if (d.value) {
      const std::string v = *d.value + "_";
      if (after.starts_with(v)) matchAfter(after.substr(v.size()), d, path + sep + d.key + "=" + *d.value, domain, out);
      continue;
    }
    for (std::size_t p = after.find('_'); p != std::string_view::npos; p = after.find('_', p + 1))
      matchAfter(after.substr(p + 1), d, path + sep + d.key + "=" + std::string(after.substr(0, p)), domain, out);
  }
}

std::vector<EnvoyMatch> matchesOf(std::string_view name, const EnvoyConfig& config) {
  std::vector<EnvoyMatch> out;
  for (const EnvoyDomain& d : config.domains)
    for (std::size_t at = name.find(d.domain + "_"); at != std::string_view::npos; at = name.find(d.domain + "_", at + 1))
      if (at == 0 || name[at - 1] == '_' || name[at - 1] == ':')  // a CACHE_KEY_PREFIX may come first
        matchLevel(name.substr(at + d.domain.size() + 1), d.descriptors, "", d.domain, out);
  return out;
}

KeyReading matched(const KeyInfo& key, const EnvoyMatch& m, std::int64_t startS, std::int64_t count, std::int64_t nowUs) {
  KeyReading r;
  r.library = "Envoy ratelimit";
  r.algorithm = "fixed-window";
  r.prefix = m.domain + "_";
  r.limit = m.limit->requestsPerUnit;
  r.used = count;
  r.ttlBoundMs = m.limit->unitSeconds * 1000;
  r.resetMs = std::max<std::int64_t>(0, (startS + m.limit->unitSeconds) * 1000 - nowUs / 1000);
  r.assumed = "Matched to the descriptor of --envoy-config; a TTL beyond the unit is the service's expiration jitter.";
  r.words = "Envoy ratelimit, domain " + m.domain + ", " + m.entries + ": " + std::to_string(count) + " of " +
            std::to_string(*r.limit) + " per " + m.limit->unit + " used; the window ends in " + durationText(*r.resetMs);
  if (key.pttlMs > *r.ttlBoundMs) r.words += " (the key lives " + durationText(key.pttlMs - *r.resetMs) + " longer: jitter)";
  r.words += ".";
  return r;
}

KeyReading ambiguous(const KeyInfo& key, std::int64_t count, std::string why) {
  KeyReading r;
  r.library = "Envoy ratelimit";
  r.algorithm = "fixed-window";
  r.prefix = key.name.substr(0, key.name.find('_') + 1);
  r.used = count;
  r.assumed = "Ambiguous: the name ends in a window start, as Envoy's keys do; " + why;
  r.words = "Envoy ratelimit (ambiguous): " + std::to_string(count) + " hits in the window; " + why + " " +
            resetWords("The key", "expires", key.pttlMs) + ".";
  return r;
}
}  // namespace

std::optional<KeyReading> readEnvoyKey(const KeyInfo& key, const ReadContext& context) {
  if (key.type != "string") return std::nullopt;
  const auto count = wholeNumber(key.value);
  const auto last = key.name.rfind('_');
  if (!count || last == std::string::npos || last == 0 || key.name.find('_') == last) return std::nullopt;
  const auto startS = wholeNumber(std::string_view(key.name).substr(last + 1));
  const std::int64_t nowS = context.nowUs / 1'000'000;
  if (!startS || *startS > nowS + 1 || *startS < nowS - kYearS) return std::nullopt;  // not a recent window start
  if (!context.envoy)
    return ambiguous(key, *count, "keys and values are not escaped, so its domain, descriptor and unit need "
                                  "--envoy-config FILE (the service's descriptor YAML).");
  const std::vector<EnvoyMatch> found = matchesOf(key.name, *context.envoy);
  if (found.empty()) return ambiguous(key, *count, "no descriptor of --envoy-config matches it.");
  for (const EnvoyMatch& m : found)
    if (m.limit->requestsPerUnit != found.front().limit->requestsPerUnit || m.limit->unit != found.front().limit->unit)
      return ambiguous(key, *count, "several descriptors of --envoy-config match it (" + found.front().entries + "; " +
                                        m.entries + ").");
  return matched(key, found.front(), *startS, *count, context.nowUs);
}

}  // namespace rl::detail
