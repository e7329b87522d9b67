#include "keys/key_reading.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdlib>

#include "common/duration_text.hpp"

namespace rl {

namespace detail {

std::string resetWords(std::string_view subject, std::string_view verbs, std::int64_t pttlMs) {
  const std::string s = subject.empty() ? std::string() : std::string(subject) + " ";
  if (pttlMs == -1) return s + "never " + std::string(verbs) + ": the key has no TTL";
  return s + std::string(verbs) + " in " + durationText(std::max<std::int64_t>(0, pttlMs));
}

std::optional<std::int64_t> wholeNumber(std::string_view t) {
  std::int64_t v = 0;
  if (t.empty()) return std::nullopt;
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec != std::errc{} || p != t.data() + t.size()) return std::nullopt;
  return v;
}

std::optional<double> decimalNumber(std::string_view text) {
  const std::string s(text);
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (s.empty() || end != s.c_str() + s.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::optional<std::string> fieldOf(const KeyInfo& k, std::string_view name) {
  for (const auto& [f, v] : k.fields)
    if (f == name) return v;
  return std::nullopt;
}

}  // namespace detail

namespace {
Error badAssumption(std::string_view part) {
  return invalidArgument("'" + std::string(part) +
                         "' is not valid: allowed rate=N/s|N/m|N/h (N > 0), burst=N and limit=N (N >= 1), "
                         "window=N(ms|s|m|h), e.g. 'rate=10/s burst=20'");
}

Result<void> applyRate(KeyAssumptions& a, std::string_view part, std::string_view value) {
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

Result<void> applyWindow(KeyAssumptions& a, std::string_view part, std::string_view value) {
  std::size_t digits = 0;
  while (digits < value.size() && value[digits] >= '0' && value[digits] <= '9') ++digits;
  const std::string_view unit = value.substr(digits);
  const std::int64_t per = unit == "ms" ? 1 : unit == "s" || unit.empty() ? 1000 : unit == "m" ? 60'000 : unit == "h" ? 3'600'000 : 0;
  const auto n = detail::wholeNumber(value.substr(0, digits));
  if (per == 0 || !n || *n < 1 || *n > 1'000'000'000) return badAssumption(part);
  a.windowMs = *n * per;
  return {};
}

Result<void> applyAssumption(KeyAssumptions& a, std::string_view part) {
  const auto eq = part.find('=');
  if (eq == std::string_view::npos) return badAssumption(part);
  const std::string_view name = part.substr(0, eq);
  const std::string_view value = part.substr(eq + 1);
  if (name == "rate") return applyRate(a, part, value);
  if (name == "window") return applyWindow(a, part, value);
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

std::int64_t timestampUnitUs(double value, std::int64_t nowUs) {
  constexpr double kTenYearsUs = 10.0 * 365.25 * 86400e6;
  for (const std::int64_t unit : {std::int64_t{1'000'000}, std::int64_t{1000}, std::int64_t{1}})
    if (std::isfinite(value) && std::abs(value * static_cast<double>(unit) - static_cast<double>(nowUs)) <= kTenYearsUs)
      return unit;
  return 0;
}

std::string_view timestampUnitName(std::int64_t unitUs) {
  return unitUs == 1'000'000 ? "s" : unitUs == 1000 ? "ms" : unitUs == 1 ? "us" : "";
}

std::span<const KeyReaderRow> keyReaders() {
  static constexpr std::array<KeyReaderRow, 13> kRows{{
      {"RateLab", &detail::readRateLabKey},
      {"limits (Python)", &detail::readPythonLimitsKey},
      {"go-redis/redis_rate", &detail::readRedisRateKey},
      {"Kong", &detail::readKongKey},
      {"Envoy ratelimit", &detail::readEnvoyKey},
      {"rate-limit-redis", &detail::readRateLimitRedisKey},
      {"@fastify/rate-limit", &detail::readFastifyKey},
      {"rate-limiter-flexible", &detail::readRateLimiterFlexibleKey},
      {"redis-cell", &detail::readRedisCellKey},
      {"Traefik", &detail::readTraefikKey},
      {"hash token bucket (seed script)", &detail::readSeedHashKey},
      {"sorted-set log (hand-written Lua)", &detail::readZsetLogKey},
      {"counter (rate-limiter-flexible shape)", &detail::readAnyCounterKey},
  }};
  return kRows;
}

namespace {
// The warning of a key without a TTL, and no reset time where only the expiry would reset it.
void warnWithoutTtl(KeyReading& r) {
  if (r.resetsByExpiry) {
    r.resetMs.reset();
    r.warnings.push_back("No TTL: this key never expires, so its count never resets and its client stays locked out "
                         "once it reaches the limit. Set the expiry in the same write (SET ... PX, or PEXPIRE in the "
                         "same script).");
  } else {
    r.warnings.push_back("No TTL: this key is never removed, so every client that ever came keeps a key in Redis. "
                         "Set an expiry with each write.");
  }
}
}  // namespace

std::optional<KeyReading> readKey(const KeyInfo& key, const ReadContext& context) {
  for (const KeyReaderRow& row : keyReaders()) {
    std::optional<KeyReading> r = row.read(key, context);
    if (!r) continue;
    if (key.pttlMs == -1) warnWithoutTtl(*r);
    return r;
  }
  return std::nullopt;
}

std::optional<KeyReading> readKey(const KeyInfo& key, std::int64_t nowUs, const KeyAssumptions& assume) {
  return readKey(key, ReadContext{nowUs, assume, nullptr});
}

}  // namespace rl
