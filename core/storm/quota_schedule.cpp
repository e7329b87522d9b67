#include "storm/quota_schedule.hpp"

#include <algorithm>
#include <cstdio>

#include "common/number_text.hpp"

namespace rl {

namespace {
constexpr std::string_view kForm = "AT_MS:limit=N,window_ms=W,refill_rate=R (any of the three, at least one)";

Error bad(const std::string& shownAs, std::string_view part, std::string_view allowed) {
  return invalidArgument(shownAs + ": '" + std::string(part) + "' is not valid: allowed " + std::string(allowed));
}

Result<void> setField(QuotaChange& c, std::string_view name, std::string_view value, std::string_view part,
                      const std::string& shownAs) {
  if (name == "limit") {
    std::int64_t v = 0;
    if (!parseWholeText(value, v) || v < 1 || v > 1'000'000'000'000) return bad(shownAs, part, "limit=N, N an integer 1 to 1000000000000");
    c.limit = v;
  } else if (name == "window_ms") {
    std::int64_t v = 0;
    if (!parseWholeText(value, v) || v < 1 || v > kYear.count() / 1000) return bad(shownAs, part, "window_ms=W, W an integer 1 to 31536000000");
    c.window = Micros{v * 1000};
  } else if (name == "refill_rate") {
    double v = 0;
    if (!parseWholeText(value, v) || v <= 0 || v > 1e6) return bad(shownAs, part, "refill_rate=R, R a number > 0 and <= 1000000 (per second)");
    c.refillPerSecond = v;
  } else {
    return bad(shownAs, part, "limit=, window_ms= or refill_rate=");
  }
  return {};
}
}  // namespace

Result<QuotaChange> parseQuotaChange(std::string_view text, const std::string& shownAs) {
  const auto colon = text.find(':');
  if (colon == std::string_view::npos) return bad(shownAs, text, kForm);
  QuotaChange c;
  std::int64_t atMs = 0;
  const std::string_view at = text.substr(0, colon);
  if (!parseWholeText(at, atMs) || atMs < 0 || atMs > kYear.count() / 1000)
    return bad(shownAs, at, "a time AT_MS, an integer 0 to 31536000000 (ms since the run's start), then ':'");
  c.at = Micros{atMs * 1000};
  std::string_view rest = text.substr(colon + 1);
  if (rest.empty()) return bad(shownAs, text, kForm);
  while (true) {
    const auto comma = rest.find(',');
    const std::string_view part = rest.substr(0, comma);
    const auto eq = part.find('=');
    if (eq == std::string_view::npos) return bad(shownAs, part, "limit=N, window_ms=W or refill_rate=R");
    const std::string_view name = part.substr(0, eq);
    if ((name == "limit" && c.limit) || (name == "window_ms" && c.window) || (name == "refill_rate" && c.refillPerSecond))
      return bad(shownAs, part, "each of limit, window_ms, refill_rate at most once per change");
    if (auto ok = setField(c, name, part.substr(eq + 1), part, shownAs); !ok) return ok.error();
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return c;
}

std::string quotaChangeText(const QuotaChange& c) {
  std::string out = std::to_string(c.at.count() / 1000) + ":";
  std::string sep;
  if (c.limit) { out += "limit=" + std::to_string(*c.limit); sep = ","; }
  if (c.window) { out += sep + "window_ms=" + std::to_string(c.window->count() / 1000); sep = ","; }
  if (c.refillPerSecond) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.17g", *c.refillPerSecond);
    out += sep + "refill_rate=" + buf;
  }
  return out;
}

Quota appliedTo(const QuotaChange& c, Quota q) {
  if (c.limit) q.limit = *c.limit;
  if (c.window) q.window = *c.window;
  if (c.refillPerSecond) q.refillPerSecond = *c.refillPerSecond;
  return q;
}

void insertQuotaChange(std::vector<QuotaChange>& changes, QuotaChange change) {
  const auto pos = std::upper_bound(changes.begin(), changes.end(), change.at,
                                    [](Micros at, const QuotaChange& c) { return at < c.at; });
  changes.insert(pos, std::move(change));
}

std::vector<QuotaChange> withLiveChanges(std::span<const QuotaChange> scheduled, std::span<const QuotaMarker> live) {
  std::vector<QuotaChange> out(scheduled.begin(), scheduled.end());
  for (const QuotaMarker& m : live) insertQuotaChange(out, quotaChangeOf(m));
  return out;
}

QuotaChange quotaChangeOf(const QuotaMarker& marker) {
  QuotaChange c;
  c.at = Micros{marker.atUs};
  c.limit = marker.limit;
  c.window = Micros{marker.windowUs};
  // 0 is "limit per window": written as that rate, which runs on the same interval.
  c.refillPerSecond = marker.refillPerSecond > 0
                          ? marker.refillPerSecond
                          : static_cast<double>(marker.limit) * 1e6 / static_cast<double>(marker.windowUs);
  return c;
}

Quota quotaOf(const QuotaMarker& m) {
  Quota q = Quota::perWindow(m.limit, Micros{m.windowUs});
  if (m.refillPerSecond > 0) q.refillPerSecond = m.refillPerSecond;
  return q;
}

std::vector<TimedQuota> quotaTimeline(const Quota& start, std::span<const QuotaChange> scheduled,
                                      std::span<const QuotaMarker> live) {
  std::vector<TimedQuota> out{{0, start}};
  std::size_t s = 0;
  std::size_t l = 0;
  while (s < scheduled.size() || l < live.size()) {
    const bool takeLive = s == scheduled.size() || (l < live.size() && live[l].atUs < scheduled[s].at.count());
    if (takeLive) {
      out.push_back({live[l].atUs, quotaOf(live[l])});
      ++l;
    } else {
      const QuotaChange& c = scheduled[s++];
      out.push_back({c.at.count(), appliedTo(c, out.back().quota)});
    }
  }
  return out;
}

}  // namespace rl
