#include "tune/tune_grid.hpp"

#include <charconv>
#include <cmath>

namespace rl {

namespace {

template <class T>
bool parseNumber(std::string_view t, T& out) {
  if (t.empty()) return false;
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), out);
  if constexpr (std::is_floating_point_v<T>)
    if (!std::isfinite(out)) return false;
  return ec == std::errc{} && p == t.data() + t.size() && out > 0;
}

template <class T>
Result<std::vector<T>> parseAxis(std::string_view text, const std::string& flag, const std::string& what) {
  const Error bad = invalidArgument(flag + ": '" + std::string(text) + "' is not valid: allowed start:stop:step or a,b,c of " +
                                    what + " > 0, at most " + std::to_string(kMaxGridPoints) + " values");
  std::vector<T> out;
  if (text.find(':') != std::string_view::npos) {
    const auto c1 = text.find(':'), c2 = text.find(':', c1 + 1);
    T a{}, b{}, step{};
    if (c2 == std::string_view::npos || !parseNumber(text.substr(0, c1), a) ||
        !parseNumber(text.substr(c1 + 1, c2 - c1 - 1), b) || !parseNumber(text.substr(c2 + 1), step) || b < a)
      return bad;
    const double n = std::floor(static_cast<double>(b - a) / static_cast<double>(step) + 1e-9) + 1;
    if (n > static_cast<double>(kMaxGridPoints)) return bad;
    for (std::int64_t i = 0; i < static_cast<std::int64_t>(n); ++i)
      out.push_back(static_cast<T>(a + static_cast<T>(i) * step));  // a + i*step: no accumulated error
    return out;
  }
  while (true) {
    const auto comma = text.find(',');
    T v{};
    if (!parseNumber(text.substr(0, comma), v) || out.size() == kMaxGridPoints) return bad;
    out.push_back(v);
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return out;
}

}  // namespace

Result<std::vector<std::int64_t>> parseIntAxis(std::string_view text, const std::string& flag) {
  return parseAxis<std::int64_t>(text, flag, "integers");
}

Result<std::vector<double>> parseRateAxis(std::string_view text, const std::string& flag) {
  return parseAxis<double>(text, flag, "numbers");
}

bool sweepsRefill(Algorithm a, const TuneGrid& grid) { return isRateBased(a) && !grid.refillRates.empty(); }

Result<std::vector<Quota>> tuneGridQuotas(Algorithm a, const TuneGrid& grid) {
  if (grid.limits.empty()) return invalidArgument("--limit is missing: allowed start:stop:step or a,b,c");
  const std::vector<Micros> windows = grid.windows.empty() ? std::vector<Micros>{kSecond} : grid.windows;
  const bool refill = sweepsRefill(a, grid);
  const std::size_t second = refill ? grid.refillRates.size() : windows.size();
  if (grid.limits.size() * second > kMaxGridPoints)
    return invalidArgument("--limit x --" + std::string(refill ? "refill-rate" : "window-ms") + " is " +
                           std::to_string(grid.limits.size() * second) + " points: allowed at most " +
                           std::to_string(kMaxGridPoints) + " per algorithm");
  std::vector<Quota> out;
  for (std::int64_t limit : grid.limits) {
    for (std::size_t j = 0; j < second; ++j) {
      Quota q = refill ? Quota::perSecond(limit).withRefill(grid.refillRates[j]) : Quota::perWindow(limit, windows[j]);
      if (auto ok = q.validate(a); !ok)
        return invalidArgument(std::string(refill ? "--limit / --refill-rate" : "--limit / --window-ms") + " for " +
                               std::string(algorithmName(a)) + ": " + ok.error().message);
      out.push_back(q);
    }
  }
  return out;
}

}  // namespace rl
