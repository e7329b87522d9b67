#include "dialects/dialect.hpp"

#include <array>

#include "dialects/dialect_detail.hpp"
#include "dialects/dialect_text.hpp"

namespace rl {

namespace {
using namespace dialect;
const std::array<Dialect, 7> kDialects{{
    {"nginx", "limit_req_zone (rate r/s or r/m) + limit_req (burst, nodelay, delay=)", parseNginx, emitNginx},
    {"envoy", "the ratelimit service's descriptor YAML (rate_limit, shadow_mode, nested descriptors)", parseEnvoy,
     emitEnvoy},
    {"traefik", "the rateLimit middleware: average, period, burst (YAML, TOML or labels)", parseTraefik, emitTraefik},
    {"express-rate-limit", "rateLimit({ windowMs, limit | max, ... })", parseExpress, emitExpress},
    {"rate-limiter-flexible", "{ points, duration, blockDuration, execEvenly, ... }", parseFlexible, emitFlexible},
    {"limits", "Python limits strings: \"10/minute\", \"5 per second\", several joined by ;", parseLimits,
     emitLimits},
    {"redis_rate", "go-redis/redis_rate: Limit{Rate, Burst, Period} or PerSecond(n) / PerMinute / PerHour",
     parseRedisRate, emitRedisRate},
}};
}  // namespace

std::span<const Dialect> allDialects() { return kDialects; }

const Dialect* findDialect(std::string_view name) {
  for (const Dialect& d : kDialects)
    if (d.name == name) return &d;
  if (name == "express") return &kDialects[3];
  if (name == "rlf") return &kDialects[4];
  return nullptr;
}

std::string dialectNames() {
  std::string out;
  for (const Dialect& d : kDialects) out += (out.empty() ? "" : ", ") + std::string(d.name);
  return out;
}

Result<std::vector<DialectQuota>> parseDialect(std::string_view name, std::string_view text) {
  const Dialect* d = findDialect(name);
  if (!d) return invalidArgument("unknown dialect '" + std::string(name) + "': allowed " + dialectNames());
  return d->parse(text);
}

namespace dialect {

std::string windowVersusRate(Algorithm from, std::string_view tool) {
  if (isRateBased(from))
    return std::string(algorithmName(from)) + " refills steadily; " + std::string(tool) +
           " counts in windows: a client can pass the whole limit at the end of one window and again at the start "
           "of the next";
  return std::string(algorithmName(from)) + " counts in windows; " + std::string(tool) +
         " refills steadily: after a full burst one request passes per emission interval, never a whole limit at "
         "a window's start";
}

double windowSeconds(Algorithm a, const Quota& q) {
  return isRateBased(a) ? static_cast<double>(q.limit) / q.ratePerSecond() : static_cast<double>(q.window.count()) / 1e6;
}

Result<void> checkQuota(std::string_view dialect, std::string_view token, Algorithm a, const Quota& q) {
  if (auto ok = q.validate(a); !ok) return tokenError(dialect, token, "a quota RateLab can run (" + ok.error().message + ")");
  return {};
}

}  // namespace dialect
}  // namespace rl
