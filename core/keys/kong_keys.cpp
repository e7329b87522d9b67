// Kong's rate-limiting plugin, redis policy, from its documented layout (Kong
// is not run here; tests write the same keys):
//   key    ratelimit:<route id>:<service id>:<identifier>:<period date>:<period>
//          period second|minute|hour|day|month|year; period date = the start of
//          the period in ms since the epoch; route and service are UUIDs (the
//          all-zero UUID when the plugin is global); the identifier (consumer,
//          credential, ip, header, path) may itself hold ':'.
//   value  the count: INCRBY, EXPIRE <period length> when the count is new
//          (second 1, minute 60, hour 3600, day 86400, month 2592000, year 31536000).
//   The limit per period is in the plugin's config, not in the key.
#include <algorithm>

#include "common/duration_text.hpp"
#include "keys/key_reading.hpp"

namespace rl::detail {

namespace {
std::int64_t periodSeconds(std::string_view p) {
  if (p == "second") return 1;
  if (p == "minute") return 60;
  if (p == "hour") return 3600;
  if (p == "day") return 86400;
  if (p == "month") return 2'592'000;
  if (p == "year") return 31'536'000;
  return 0;
}

std::vector<std::string_view> splitColons(std::string_view s) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= s.size(); ++i)
    if (i == s.size() || s[i] == ':') {
      parts.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  return parts;
}
}  // namespace

std::optional<KeyReading> readKongKey(const KeyInfo& key, const ReadContext& context) {
  if (key.type != "string" || !key.name.starts_with("ratelimit:")) return std::nullopt;
  const auto parts = splitColons(key.name);
  if (parts.size() < 6) return std::nullopt;
  const std::string_view period = parts.back();
  const std::int64_t lengthS = periodSeconds(period);
  const auto startMs = wholeNumber(parts[parts.size() - 2]);
  const auto count = wholeNumber(key.value);
  if (lengthS == 0 || !startMs || !count) return std::nullopt;
  const std::string_view name(key.name);
  const std::size_t idStart = parts[0].size() + parts[1].size() + parts[2].size() + 3;
  const std::size_t idEnd = name.size() - period.size() - parts[parts.size() - 2].size() - 2;
  KeyReading r;
  r.library = "Kong";
  r.algorithm = "fixed-window";
  r.prefix = "ratelimit:";
  r.used = *count;
  r.limit = context.assume.limit;
  r.ttlBoundMs = lengthS * 1000;
  const std::int64_t endMs = *startMs + lengthS * 1000;
  r.resetMs = std::max<std::int64_t>(0, endMs - context.nowUs / 1000);
  r.assumed = "The limit per " + std::string(period) + " is in the plugin's config, not in the key.";
  r.words = "Kong rate-limiting (redis policy), per " + std::string(period) + ", route " + std::string(parts[1]) +
            ", service " + std::string(parts[2]) + ", identifier '" + std::string(name.substr(idStart, idEnd - idStart)) +
            "': " + std::to_string(*count) + (r.limit ? " of " + std::to_string(*r.limit) : std::string()) +
            " used; the period ends in " + durationText(*r.resetMs);
  if (!r.limit) r.needs = "limit=N";
  r.words += ".";
  return r;
}

}  // namespace rl::detail
