#include "redis/command_stats.hpp"

#include <algorithm>
#include <charconv>
#include <optional>

namespace rl {

namespace {
// The integer after "<name>=" in a "k=v,k=v" list, or nullopt.
std::optional<std::int64_t> field(std::string_view list, std::string_view name) {
  std::size_t at = 0;
  while (at < list.size()) {
    const auto end = std::min(list.find(',', at), list.size());
    const auto item = list.substr(at, end - at);
    if (item.size() > name.size() && item.starts_with(name) && item[name.size()] == '=') {
      std::int64_t v = 0;
      const auto digits = item.substr(name.size() + 1);
      if (std::from_chars(digits.data(), digits.data() + digits.size(), v).ec != std::errc{}) return std::nullopt;
      return v;
    }
    at = end + 1;
  }
  return std::nullopt;
}

bool isScript(const std::string& cmd) {
  return cmd == "evalsha" || cmd == "eval" || cmd == "fcall" || cmd == "evalsha_ro" || cmd == "eval_ro" ||
         cmd == "fcall_ro";
}
}  // namespace

Result<CommandStats> parseCommandStats(std::string_view info) {
  CommandStats out;
  constexpr std::string_view kPrefix = "cmdstat_";
  std::size_t at = 0;
  while (at < info.size()) {
    auto end = info.find('\n', at);
    if (end == std::string_view::npos) end = info.size();
    std::string_view line = info.substr(at, end - at);
    at = end + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (!line.starts_with(kPrefix)) continue;
    const auto colon = line.find(':');
    if (colon == std::string_view::npos) return protocolError("INFO commandstats line without ':': " + std::string(line));
    const auto calls = field(line.substr(colon + 1), "calls");
    const auto usec = field(line.substr(colon + 1), "usec");
    if (!calls || !usec) return protocolError("INFO commandstats line without calls/usec: " + std::string(line));
    out[std::string(line.substr(kPrefix.size(), colon - kPrefix.size()))] = {*calls, *usec};
  }
  return out;
}

Result<CommandStats> readCommandStats(RedisConnection& conn) {
  auto r = conn.command({"INFO", "commandstats"});
  if (!r) return r.error();
  if (!r->isString()) return protocolError("INFO commandstats returned " + r->describe());
  return parseCommandStats(r->str());
}

double redisMicrosPerDecision(const CommandStats& before, const CommandStats& after, std::int64_t decisions) {
  if (decisions <= 0) return 0;
  std::int64_t scripts = 0, all = 0;
  for (const auto& [cmd, stat] : after) {
    if (cmd == "info") continue;
    const auto b = before.find(cmd);
    const std::int64_t usec = stat.usec - (b == before.end() ? 0 : b->second.usec);
    (isScript(cmd) ? scripts : all) += usec;
  }
  return static_cast<double>(scripts > 0 ? scripts : all) / static_cast<double>(decisions);
}

}  // namespace rl
