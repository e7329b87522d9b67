// Python `limits` strings: "10/minute", "5 per second", "1 per 2 minutes",
// several joined by ';', ',' or '|'. Units second, minute, hour, day, month
// (30 days) and year (360 days), as limits counts them. The strategy is chosen
// in code, not in the string: fixed-window (the default) is RateLab's
// fixed_window; moving-window would be sliding_log.
#include <cctype>
#include <cmath>

#include "dialects/dialect_detail.hpp"
#include "dialects/dialect_text.hpp"

namespace rl::dialect {

namespace {
constexpr std::string_view kName = "limits";
struct Unit {
  std::string_view name;
  std::int64_t seconds;
};
constexpr Unit kUnits[] = {{"year", 31'104'000}, {"month", 2'592'000}, {"day", 86'400},
                           {"hour", 3'600},      {"minute", 60},       {"second", 1}};
constexpr std::string_view kExpected = "N/unit or N per [M] unit, unit one of second, minute, hour, day, month, year";

Result<DialectQuota> parseOne(std::string_view item) {
  std::string t = lower(item);
  std::string_view rest = t;
  std::size_t digits = 0;
  while (digits < rest.size() && std::isdigit(static_cast<unsigned char>(rest[digits]))) ++digits;
  auto amount = wholeNumber(rest.substr(0, digits));
  if (!amount) return tokenError(kName, item, kExpected);
  rest = trim(rest.substr(digits));
  if (rest.starts_with("/")) rest = trim(rest.substr(1));
  else if (rest.starts_with("per")) rest = trim(rest.substr(3));
  else return tokenError(kName, item, "'/' or 'per' after the amount (" + std::string(kExpected) + ")");
  std::int64_t multiples = 1;
  std::size_t n = 0;
  while (n < rest.size() && std::isdigit(static_cast<unsigned char>(rest[n]))) ++n;
  if (n > 0) {
    multiples = wholeNumber(rest.substr(0, n)).value_or(0);
    rest = trim(rest.substr(n));
  }
  if (rest.ends_with("s")) rest.remove_suffix(1);
  const Unit* unit = nullptr;
  for (const Unit& u : kUnits)
    if (rest == u.name) unit = &u;
  if (!unit || multiples < 1 || multiples > 1000) return tokenError(kName, item, kExpected);
  DialectQuota d;
  d.name = std::string(item);
  d.algorithm = Algorithm::FixedWindow;
  d.quota = Quota::perWindow(*amount, multiples * unit->seconds * kSecond);
  d.notes.push_back("the strategy is set in code: fixed-window (the default) shown; moving-window is sliding_log, "
                    "sliding-window-counter is sliding_counter");
  if (auto ok = checkQuota(kName, item, d.algorithm, d.quota); !ok) return ok.error();
  return d;
}
}  // namespace

Result<std::vector<DialectQuota>> parseLimits(std::string_view text) {
  std::string joined(text);
  for (char& c : joined)
    if (c == ',' || c == '|' || c == '\n') c = ';';
  std::vector<DialectQuota> out;
  for (auto item : split(joined, ';')) {
    auto d = parseOne(unquote(item));
    if (!d) return d.error();
    out.push_back(d.value());
  }
  if (out.empty()) return tokenError(kName, text, kExpected);
  return out;
}

Emitted emitLimits(Algorithm a, const Quota& q) {
  Emitted e;
  std::int64_t seconds = std::llround(std::floor(windowSeconds(a, q) * 1000) / 1000);
  if (isRateBased(a)) {
    e.differences.push_back(windowVersusRate(a, "limits (fixed-window)"));
  } else if (a == Algorithm::SlidingLog) {
    e.differences.push_back("use the moving-window strategy for sliding_log (MovingWindowRateLimiter)");
  } else if (a == Algorithm::SlidingCounter) {
    e.differences.push_back("use the sliding-window-counter strategy for sliding_counter (SlidingWindowCounterRateLimiter)");
  }
  seconds = std::max<std::int64_t>(1, seconds);
  if (q.window.count() % 1'000'000 != 0 && !isRateBased(a))
    e.differences.push_back("limits counts whole seconds: per " + std::to_string(seconds) + " s, not per " +
                            windowPhrase(q.window));
  std::string per = std::to_string(seconds) + " seconds";
  for (const Unit& u : kUnits)
    if (seconds % u.seconds == 0) {
      const std::int64_t m = seconds / u.seconds;
      per = m == 1 ? std::string(u.name) : std::to_string(m) + " " + std::string(u.name) + "s";
      break;
    }
  e.text = std::to_string(q.limit) + " per " + per + "\n";
  return e;
}

}  // namespace rl::dialect
