#include "redis/foreign_keys/key_reading.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace rl {

namespace detail {

std::string spokenDuration(std::int64_t ms) {
  char buf[48];
  if (ms < 1000) std::snprintf(buf, sizeof buf, "%lld ms", static_cast<long long>(ms));
  else if (ms < 10'000) std::snprintf(buf, sizeof buf, "%.1f s", static_cast<double>(ms) / 1000.0);
  else std::snprintf(buf, sizeof buf, "%lld s", static_cast<long long>((ms + 500) / 1000));
  return buf;
}

std::optional<std::int64_t> wholeNumber(std::string_view t) {
  std::int64_t v = 0;
  if (t.empty()) return std::nullopt;
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec != std::errc{} || p != t.data() + t.size()) return std::nullopt;
  return v;
}

}  // namespace detail

namespace {
Error badAssumption(std::string_view part) {
  return invalidArgument("--assume: '" + std::string(part) +
                         "' is not valid: allowed rate=N/s|N/m|N/h (N > 0), burst=N and limit=N (N >= 1), "
                         "e.g. 'rate=10/s burst=20'");
}

Result<void> applyAssumption(KeyAssumptions& a, std::string_view part) {
  const auto eq = part.find('=');
  if (eq == std::string_view::npos) return badAssumption(part);
  const std::string_view name = part.substr(0, eq);
  std::string_view value = part.substr(eq + 1);
  if (name == "rate") {
    double per = 1;
    if (const auto slash = value.find('/'); slash != std::string_view::npos) {
      const std::string_view unit = value.substr(slash + 1);
      per = unit == "s" ? 1 : unit == "m" ? 60 : unit == "h" ? 3600 : 0;
      if (per == 0) return badAssumption(part);
      value = value.substr(0, slash);
    }
    double n = 0;
    auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
    if (ec != std::errc{} || p != value.data() + value.size() || !std::isfinite(n) || n <= 0) return badAssumption(part);
    a.ratePerSecond = n / per;
    return {};
  }
  const auto n = detail::wholeNumber(value);
  if (!n || *n < 1 || *n > 1'000'000'000'000) return badAssumption(part);
  if (name == "burst") a.burst = *n;
  else if (name == "limit") a.limit = *n;
  else return badAssumption(part);
  return {};
}
}  // namespace

Result<KeyAssumptions> parseKeyAssumptions(std::string_view text) {
  KeyAssumptions a;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && (text[i] == ' ' || text[i] == ',')) ++i;
    std::size_t j = i;
    while (j < text.size() && text[j] != ' ' && text[j] != ',') ++j;
    if (j > i)
      if (auto ok = applyAssumption(a, text.substr(i, j - i)); !ok) return ok.error();
    i = j;
  }
  return a;
}

std::optional<KeyReading> readKey(const KeyInfo& key, std::int64_t nowUs, const KeyAssumptions& assume) {
  if (auto r = detail::readRateLabKey(key, assume)) return r;
  if (auto r = detail::readPythonLimitsKey(key, nowUs)) return r;
  if (auto r = detail::readRedisRateKey(key, nowUs, assume)) return r;
  return detail::readCounterKey(key, assume);
}

}  // namespace rl
