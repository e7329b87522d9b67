#include "redis/redis_store.hpp"

#include <array>

#include "redis/lua_reply.hpp"
#include "redis/lua_scripts.hpp"

namespace rl {

namespace {
constexpr std::int64_t kExactLimit = std::int64_t{1} << 53;  // Lua doubles are exact below this
}  // namespace

std::array<std::string, 6> scriptArguments(const DecisionRequest& req, std::string_view prefix, bool serverClock) {
  return {limiterKey(prefix, req.algorithm, req.client), serverClock ? std::string() : std::to_string(req.now.count()),
          std::to_string(req.quota.limit), std::to_string(req.quota.window.count()),
          std::to_string(req.quota.interval().count()), std::to_string(req.cost)};
}

Result<RedisConnection> RedisStoreBase::connectFor(const RedisStoreOptions& o) {
  if (o.watchRetries < 1)
    return invalidArgument("watch retries " + std::to_string(o.watchRetries) + " is out of range: allowed 1 or more");
  if (o.thinkTime < Micros{0} || o.thinkTime > 10 * kSecond)
    return invalidArgument("think time " + std::to_string(o.thinkTime.count()) +
                           " us is out of range: allowed 0 to 10000000 us (10 s)");
  if (o.endpoint.connectTimeout <= Micros{0} || o.endpoint.commandTimeout <= Micros{0})
    return invalidArgument("Redis timeouts must be > 0 (connect " + std::to_string(o.endpoint.connectTimeout.count()) +
                           " us, command " + std::to_string(o.endpoint.commandTimeout.count()) + " us)");
  return RedisConnection::connect(o.endpoint);
}

Result<void> RedisStoreBase::validateRequest(const DecisionRequest& r) const {
  return validateScriptRequest(r, options_.serverClock);
}

Result<void> validateScriptRequest(const DecisionRequest& r, bool serverClock) {
  if (auto ok = r.quota.validate(r.algorithm); !ok) return ok;
  if (auto ok = validateCost(r.cost, r.quota); !ok) return ok;
  if (r.algorithm == Algorithm::SlidingCounter && r.quota.limit > kExactLimit / 2 / r.quota.window.count())
    return invalidArgument("sliding_counter on Redis needs 2 x limit x window (us) below 2^53 for exact "
                           "arithmetic: limit " + std::to_string(r.quota.limit) + " with window " +
                           std::to_string(r.quota.window.count() / 1000) + " ms is too large");
  if (!serverClock && (r.now.count() < 0 || r.now.count() > kExactLimit / 2))
    return invalidArgument("now " + std::to_string(r.now.count()) + " us is out of range: allowed 0 to 2^52");
  return {};
}

// ---- redis-lua ------------------------------------------------------------------

Result<std::unique_ptr<RedisLuaStore>> RedisLuaStore::make(const RedisStoreOptions& options) {
  auto conn = connectFor(options);
  if (!conn) return conn.error();
  std::unique_ptr<RedisLuaStore> s(new RedisLuaStore(std::move(conn).value(), options));
  if (auto ok = s->loadScripts(); !ok) return ok.error();
  return s;
}

Result<void> RedisLuaStore::loadScripts() {
  for (Algorithm a : kAllAlgorithms) {
    auto r = conn_.command({"SCRIPT", "LOAD", luaScript(a)});
    if (!r) return Error{r.error().code, "SCRIPT LOAD " + std::string(algorithmName(a)) + ": " +
                                             r.error().message};
    sha_[static_cast<int>(a)] = std::string(r->str());
  }
  return {};
}

Result<Decision> RedisLuaStore::decide(const DecisionRequest& req) {
  if (auto ok = validateRequest(req); !ok) return ok.error();
  const auto args = scriptArguments(req, options_.prefix, options_.serverClock);
  const std::string& sha = sha_[static_cast<int>(req.algorithm)];
  auto r = conn_.command({"EVALSHA", sha, "1", args[0], args[1], args[2], args[3], args[4], args[5]});
  if (!r && r.error().code == ErrorCode::Protocol && r.error().message.starts_with("NOSCRIPT")) {
    // The server lost its scripts (SCRIPT FLUSH, restart): run the source, then load them again.
    ++reloads_;
    r = conn_.command({"EVAL", luaScript(req.algorithm), "1", args[0], args[1], args[2], args[3], args[4], args[5]});
    if (r) (void)loadScripts();
  }
  if (!r) return r.error();
  return parseLuaDecision(*r, req.algorithm, req.quota);
}

// ---- factory ----------------------------------------------------------------------

Result<std::unique_ptr<Store>> makeRedisStore(Backend backend, const RedisStoreOptions& options) {
  auto wrap = [](auto made) -> Result<std::unique_ptr<Store>> {
    if (!made) return made.error();
    return std::unique_ptr<Store>(std::move(made).value());
  };
  switch (backend) {
    case Backend::RedisLua: return wrap(RedisLuaStore::make(options));
    case Backend::RedisNaive: return wrap(RedisNaiveStore::make(options));
    case Backend::RedisWatch: return wrap(RedisWatchStore::make(options));
    default:
      return invalidArgument("backend is not a Redis backend: allowed redis-lua, redis-naive, redis-watch");
  }
}

std::int64_t redisRetries(const Store& store) {
  const auto* s = dynamic_cast<const RedisStoreBase*>(&store);
  return s ? s->retries() : 0;
}

}  // namespace rl
