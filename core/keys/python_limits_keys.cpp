// Python `limits` (verified with Debian python3-limits 2.8 and its Redis storage):
//   key   <namespace>/<identifiers joined by />/<amount>/<multiples>/<granularity>
//         namespace "LIMITER" by default; granularity second|minute|hour|day|month|year
//         (month = 30 days, year = 360 days). The strategy is NOT in the key.
//   fixed-window and fixed-window-elastic-expiry: a string counter, EXPIRE = the window
//         (elastic expiry re-arms it on every hit); get_window_stats: reset = now + TTL,
//         remaining = amount - count.
//   moving-window: a LIST of hit timestamps (float seconds), newest first, trimmed to
//         `amount`, EXPIRE = the window on every hit; get_window_stats counts the entries
//         newer than now - window, and reset = the newest of them + window.
#include <cmath>
#include <algorithm>
#include <cstdlib>
#include <vector>

#include "common/duration_text.hpp"
#include "keys/key_reading.hpp"

namespace rl::detail {

namespace {
struct LimitsName {
  std::int64_t amount = 0;
  std::int64_t multiples = 0;
  std::string granularity;
  std::int64_t windowS = 0;
};

std::int64_t granularitySeconds(std::string_view g) {
  if (g == "second") return 1;
  if (g == "minute") return 60;
  if (g == "hour") return 3600;
  if (g == "day") return 86400;
  if (g == "month") return 86400 * 30;
  if (g == "year") return 86400 * 30 * 12;
  return 0;
}

std::optional<LimitsName> parseName(std::string_view name) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= name.size(); ++i)
    if (i == name.size() || name[i] == '/') {
      parts.push_back(name.substr(start, i - start));
      start = i + 1;
    }
  if (parts.size() < 4) return std::nullopt;
  LimitsName n;
  n.granularity = std::string(parts.back());
  const auto amount = wholeNumber(parts[parts.size() - 3]);
  const auto multiples = wholeNumber(parts[parts.size() - 2]);
  const std::int64_t g = granularitySeconds(n.granularity);
  if (!amount || !multiples || *amount < 1 || *multiples < 1 || g == 0) return std::nullopt;
  n.amount = *amount;
  n.multiples = *multiples;
  n.windowS = g * *multiples;
  return n;
}

std::string quotaWords(const LimitsName& n) {
  return std::to_string(n.amount) + " per " + (n.multiples == 1 ? "" : std::to_string(n.multiples) + " ") +
         n.granularity + (n.multiples == 1 ? "" : "s");
}

KeyReading movingWindow(const KeyInfo& key, const LimitsName& n, std::int64_t nowUs) {
  KeyReading r;
  r.library = "limits (Python)";
  r.algorithm = "moving-window";
  r.limit = n.amount;
  r.used = 0;
  r.resetsByExpiry = false;  // the hits say when
  const double now = static_cast<double>(nowUs) / 1e6;
  const double cutoff = std::floor(now - static_cast<double>(n.windowS));  // the library's int(now - expiry)
  std::optional<double> newest, oldest;
  for (const std::string& e : key.listHead) {  // newest first
    char* end = nullptr;
    const double t = std::strtod(e.c_str(), &end);
    if (end == e.c_str() || t < cutoff) break;
    if (!newest) newest = t;
    oldest = t;
    *r.used += 1;
  }
  const auto msUntil = [&](double t) { return std::max<std::int64_t>(0, std::llround((t + n.windowS - now) * 1000)); };
  r.resetMs = newest ? msUntil(*newest) : 0;
  r.words = "limits moving window, " + quotaWords(n) + ": " + std::to_string(*r.used) + " used, " +
            std::to_string(std::max<std::int64_t>(0, n.amount - *r.used)) + " left";
  if (oldest) r.words += "; the oldest hit leaves the window in " + durationText(msUntil(*oldest));
  if (newest) r.words += ", all of them in " + durationText(*r.resetMs);
  r.words += ".";
  return r;
}

// The namespace: everything before the first '/' of the name, with it ("LIMITER/").
std::string namespaceOf(const std::string& name) { return name.substr(0, name.find('/') + 1); }

KeyReading withLimitsFacts(KeyReading r, const KeyInfo& key, const LimitsName& n) {
  r.prefix = namespaceOf(key.name);
  r.ttlBoundMs = n.windowS * 1000;
  r.assumed = "The strategy is not in the key: a string is a fixed window (plain or elastic expiry), a list a moving window.";
  return r;
}
}  // namespace

std::optional<KeyReading> readPythonLimitsKey(const KeyInfo& key, const ReadContext& context) {
  const auto n = parseName(key.name);
  if (!n) return std::nullopt;
  if (key.type == "list") return withLimitsFacts(movingWindow(key, *n, context.nowUs), key, *n);
  if (key.type != "string") return std::nullopt;
  const auto count = wholeNumber(key.value);
  if (!count) return std::nullopt;
  KeyReading r;
  r.library = "limits (Python)";
  r.algorithm = "fixed-window";
  r.limit = n->amount;
  r.used = *count;
  r.resetMs = std::max<std::int64_t>(0, key.pttlMs);
  r.words = "limits fixed window (or fixed window with elastic expiry: same key), " + quotaWords(*n) + ": " +
            std::to_string(*count) + " used, " + std::to_string(std::max<std::int64_t>(0, n->amount - *count)) +
            " left; " + resetWords("the window", "resets", key.pttlMs) + ".";
  return withLimitsFacts(std::move(r), key, *n);
}

}  // namespace rl::detail
