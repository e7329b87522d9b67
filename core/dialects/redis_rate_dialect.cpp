// go-redis/redis_rate: `redis_rate.Limit{Rate: 10, Burst: 20, Period: time.Second}`
// or `redis_rate.PerSecond(10)` / PerMinute / PerHour (burst = rate). GCRA:
// Burst requests at once, then Rate per Period: RateLab's gcra with limit Burst.
#include <cmath>

#include "dialects/dialect_detail.hpp"
#include "dialects/dialect_text.hpp"
#include "dialects/js_options.hpp"

namespace rl::dialect {

namespace {
constexpr std::string_view kName = "redis_rate";
struct Unit {
  std::string_view name;
  Micros length;
};
const Unit kUnits[] = {{"Hour", 3600 * kSecond}, {"Minute", 60 * kSecond}, {"Second", kSecond}, {"Millisecond", kMillisecond}};

// "time.Second", "2 * time.Minute", "time.Millisecond * 500".
std::optional<Micros> goPeriod(std::string_view text) {
  std::int64_t factor = 1;
  std::optional<Micros> unit;
  for (auto part : split(text, '*')) {
    if (auto n = wholeNumber(part)) factor *= std::min<std::int64_t>(*n, 1'000'000'000);
    else
      for (const Unit& u : kUnits)
        if (part == "time." + std::string(u.name)) unit = u.length;
  }
  if (!unit || factor < 1) return std::nullopt;
  return *unit * factor;
}

Result<std::vector<DialectQuota>> fromShorthand(std::string_view text) {
  for (const Unit& u : kUnits) {
    const std::string call = "Per" + std::string(u.name) + "(";
    const auto at = text.find(call);
    if (at == std::string_view::npos) continue;
    const auto close = text.find(')', at);
    const std::string_view arg = text.substr(at + call.size(), close == std::string_view::npos ? 0 : close - at - call.size());
    auto n = wholeNumber(arg);
    if (!n || *n < 1) return tokenError(kName, text.substr(at, close == std::string_view::npos ? 40 : close - at + 1), "Per" + std::string(u.name) + "(N) with N >= 1");
    DialectQuota d;
    d.name = call + std::to_string(*n) + ")";
    d.algorithm = Algorithm::Gcra;
    d.quota = Quota::perWindow(*n, u.length).withRefill(static_cast<double>(*n) * 1e6 / static_cast<double>(u.length.count()));
    if (auto ok = checkQuota(kName, d.name, d.algorithm, d.quota); !ok) return ok.error();
    return std::vector<DialectQuota>{d};
  }
  return tokenError(kName, trim(text).substr(0, 60), "Limit{Rate: N, Burst: N, Period: time.Second} or PerSecond(N), PerMinute(N), PerHour(N)");
}
}  // namespace

Result<std::vector<DialectQuota>> parseRedisRate(std::string_view text) {
  if (text.find('{') == std::string_view::npos) return fromShorthand(text);
  auto options = jsOptions(kName, text);
  if (!options) return options.error();
  std::optional<std::int64_t> rate, burst;
  std::optional<Micros> period;
  for (const JsOption& o : options.value()) {
    if (o.key == "Rate" || o.key == "Burst") {
      auto v = wholeNumber(o.value);
      if (!v || *v < 1) return tokenError(kName, o.key + ": " + o.value, "a whole number >= 1 (" + o.key + " 0 admits nothing)");
      (o.key == "Rate" ? rate : burst) = *v;
    } else if (o.key == "Period") {
      period = goPeriod(o.value);
      if (!period) return tokenError(kName, "Period: " + o.value, "time.Second, time.Minute, time.Hour or N * time.Millisecond");
    } else {
      return tokenError(kName, o.key + ": " + o.value, "Rate, Burst or Period");
    }
  }
  for (auto [name, missing] : {std::pair{"Rate", !rate}, std::pair{"Burst", !burst}, std::pair{"Period", !period}})
    if (missing) return tokenError(kName, trim(text).substr(0, 60), std::string(name) + ": ... in the Limit (redis_rate has no default)");
  DialectQuota d;
  d.name = "Limit";
  d.algorithm = Algorithm::Gcra;
  d.quota = Quota::perWindow(*burst, *period).withRefill(static_cast<double>(*rate) * 1e6 / static_cast<double>(period->count()));
  d.quota.limit = *burst;
  if (auto ok = checkQuota(kName, "Rate: " + std::to_string(*rate), d.algorithm, d.quota); !ok) return ok.error();
  return std::vector<DialectQuota>{d};
}

Emitted emitRedisRate(Algorithm a, const Quota& q) {
  Emitted e;
  const double rate = q.ratePerSecond();
  if (!isRateBased(a)) e.differences.push_back(windowVersusRate(a, "redis_rate"));
  if (a == Algorithm::LeakyBucket) e.differences.push_back("leaky_bucket delays queued requests; redis_rate answers at once (as gcra)");
  const Unit* unit = &kUnits[0];
  std::int64_t perUnit = std::max<std::int64_t>(1, std::llround(rate * 3600));
  for (const Unit& u : {kUnits[2], kUnits[1]}) {
    const double n = rate * static_cast<double>(u.length.count()) / 1e6;
    if (std::abs(n - std::round(n)) < 1e-9 && n >= 1) {
      unit = u.name == "Second" ? &kUnits[2] : &kUnits[1];
      perUnit = std::llround(n);
      break;
    }
  }
  if (std::abs(rate * static_cast<double>(unit->length.count()) / 1e6 - static_cast<double>(perUnit)) > 1e-6)
    e.differences.push_back("Rate is a whole number: " + std::to_string(perUnit) + " per " + lower(unit->name));
  if (perUnit == q.limit)
    e.text = "redis_rate.Per" + std::string(unit->name) + "(" + std::to_string(perUnit) + ")\n";
  else
    e.text = "redis_rate.Limit{Rate: " + std::to_string(perUnit) + ", Burst: " + std::to_string(q.limit) +
             ", Period: time." + std::string(unit->name) + "}\n";
  return e;
}

}  // namespace rl::dialect
