// Traefik's rateLimit middleware: average requests per period (default 1 s),
// burst (default 1, and never below 1). Traefik keeps a token bucket of
// `burst` tokens refilled at average / period, so average=6, period=1m is
// one request every 10 s (traefik#8330), and a burst below the average caps
// what passes together (traefik#4549). Read from YAML, TOML or labels
// (`...ratelimit.average=100`).
#include <cctype>
#include <cmath>

#include "dialects/dialect_detail.hpp"
#include "dialects/dialect_text.hpp"

namespace rl::dialect {

namespace {
constexpr std::string_view kName = "traefik";

// A Go duration ("1m", "10s", "1h30m", "500ms") or whole seconds, in whole ms.
std::optional<Micros> goDuration(std::string_view text) {
  if (auto secs = wholeNumber(text)) return *secs * kSecond;
  std::int64_t us = 0;
  std::size_t i = 0;
  if (text.empty()) return std::nullopt;
  while (i < text.size()) {
    std::size_t j = i;
    while (j < text.size() && (std::isdigit(static_cast<unsigned char>(text[j])) || text[j] == '.')) ++j;
    auto n = decimalNumber(text.substr(i, j - i));
    std::size_t k = j;
    while (k < text.size() && std::isalpha(static_cast<unsigned char>(text[k]))) ++k;
    const std::string_view unit = text.substr(j, k - j);
    const double scale = unit == "h" ? 3.6e9 : unit == "m" ? 6e7 : unit == "s" ? 1e6 : unit == "ms" ? 1e3 : 0;
    if (!n || scale == 0 || *n * scale > 1e17) return std::nullopt;
    us += std::llround(*n * scale);
    i = k;
  }
  return Micros{us};
}

struct Settings {
  std::optional<std::string> average, period, burst;
  std::vector<std::string> notes;
};

// Each "key: value", "key = value" or "key=value" line inside the rateLimit block.
Settings collect(std::string_view text) {
  Settings s;
  const bool anyBlock = lower(text).find("ratelimit") != std::string::npos;
  bool inBlock = !anyBlock;
  std::size_t blockIndent = 0;
  for (auto rawLine : split(text, '\n')) {
    std::string_view line = rawLine.substr(0, rawLine.find('#'));
    const std::size_t indent = rawLine.find_first_not_of(" \t-");
    line = trim(line);
    if (line.empty()) continue;
    if (line.front() == '[') {  // TOML table
      inBlock = lower(line).find("ratelimit") != std::string::npos;
      blockIndent = 0;
      continue;
    }
    const std::size_t sep = line.find_first_of(":=");
    if (sep == std::string_view::npos) continue;
    const std::string key = lower(unquote(line.substr(0, sep)));
    std::string_view value = trim(line.substr(sep + 1));
    if (!value.empty() && value.back() == ',') value.remove_suffix(1);
    value = unquote(value);
    const std::string last = key.substr(key.rfind('.') == std::string::npos ? 0 : key.rfind('.') + 1);
    const bool label = key.find("ratelimit.") != std::string::npos;
    if (value.empty()) {
      if (last == "ratelimit") inBlock = true, blockIndent = indent;
      else if (anyBlock && !label && indent <= blockIndent && inBlock && blockIndent > 0) inBlock = false;
      continue;
    }
    if (anyBlock && !label && (!inBlock || (blockIndent > 0 && indent <= blockIndent))) continue;
    if (last == "average") s.average = std::string(value);
    else if (last == "period") s.period = std::string(value);
    else if (last == "burst") s.burst = std::string(value);
    else s.notes.push_back(std::string(line) + ": read, not modeled (RateLab keys one bucket per client)");
  }
  return s;
}
}  // namespace

Result<std::vector<DialectQuota>> parseTraefik(std::string_view text) {
  Settings s = collect(text);
  if (!s.average) return tokenError(kName, trim(text).substr(0, 60), "average: N (requests per period)");
  auto average = wholeNumber(*s.average);
  if (!average || *average < 1 || *average > 1'000'000'000)
    return tokenError(kName, "average: " + *s.average, "a whole number >= 1 (0 turns the limiter off)");
  Micros period = kSecond;
  if (s.period) {
    auto p = goDuration(*s.period);
    if (!p || p->count() <= 0 || p->count() % 1000 != 0)
      return tokenError(kName, "period: " + *s.period, "a duration such as 1s, 1m, 10s or 500ms (whole ms, > 0)");
    period = *p;
  }
  std::int64_t burst = 1;
  DialectQuota d;
  if (s.burst) {
    auto b = wholeNumber(*s.burst);
    if (!b || *b > 1'000'000'000) return tokenError(kName, "burst: " + *s.burst, "a whole number >= 0");
    if (*b < 1) d.notes.push_back("burst " + *s.burst + " is raised to 1 by Traefik");
    burst = std::max<std::int64_t>(1, *b);
  }
  d.name = "rateLimit";
  d.algorithm = Algorithm::TokenBucket;
  d.quota = Quota::perWindow(burst, period).withRefill(static_cast<double>(*average) * 1e6 / static_cast<double>(period.count()));
  d.quota.limit = burst;
  if (burst < *average)
    d.notes.push_back("burst " + std::to_string(burst) + " is below average " + std::to_string(*average) +
                      ": requests arriving together get at most " + std::to_string(burst) + "; the average is reached "
                      "only by evenly spaced requests (traefik#4549)");
  const double rate = *d.quota.refillPerSecond;
  d.unmodeled.push_back(std::string("a request whose token is due within ") +
                        (rate < 1 ? "500 ms" : "half an emission interval") +
                        " waits for it instead of being denied; RateLab's token_bucket denies it");
  // Traefik forgets a bucket idle for its ttl (2 s, or 1 + 1/rate s below 1/s): full again sooner than a refill.
  const double ttl = rate >= 1 ? 2 : 1 + std::floor(1 / rate);
  if (static_cast<double>(burst) / rate > ttl)
    d.unmodeled.push_back("a bucket idle for " + std::to_string(static_cast<long long>(ttl)) +
                          " s is forgotten, so it is full again sooner than refilling takes (" +
                          std::to_string(static_cast<long long>(std::ceil(static_cast<double>(burst) / rate))) + " s)");
  d.notes.insert(d.notes.end(), s.notes.begin(), s.notes.end());
  if (auto ok = checkQuota(kName, "average: " + *s.average, d.algorithm, d.quota); !ok) return ok.error();
  return std::vector<DialectQuota>{d};
}

Emitted emitTraefik(Algorithm a, const Quota& q) {
  Emitted e;
  const double rate = isRateBased(a) ? q.ratePerSecond() : static_cast<double>(q.limit) * 1e6 / static_cast<double>(q.window.count());
  // The shortest of 1 s, 1 min, 1 h over which the rate is a whole number of requests.
  std::string period = "1h";
  std::int64_t average = std::max<std::int64_t>(1, std::llround(rate * 3600));
  for (auto [secs, name] : {std::pair{1, "1s"}, std::pair{60, "1m"}})
    if (std::abs(rate * secs - std::round(rate * secs)) < 1e-9 && std::llround(rate * secs) >= 1) {
      average = std::llround(rate * secs);
      period = name;
      break;
    }
  if (std::abs(rate * 3600 - static_cast<double>(average)) > 1e-6 && period == "1h")
    e.differences.push_back("Traefik's average is a whole number: " + std::to_string(average) + " per hour");
  if (a == Algorithm::LeakyBucket)
    e.differences.push_back("leaky_bucket queues up to the limit; Traefik passes the burst at once and waits at most half an interval");
  if (!isRateBased(a)) e.differences.push_back(windowVersusRate(a, "Traefik"));
  e.text = "http:\n  middlewares:\n    ratelab:\n      rateLimit:\n        average: " + std::to_string(average) +
           "\n        period: " + period + "\n        burst: " + std::to_string(q.limit) + "\n";
  return e;
}

}  // namespace rl::dialect
