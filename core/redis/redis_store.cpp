#include "redis/redis_store.hpp"

#include <array>
#include <charconv>
#include <chrono>

#include "redis/cluster/key_slot.hpp"
#include "redis/lua_reply.hpp"
#include "redis/lua_scripts.hpp"
#include "redis/state_codec.hpp"

namespace rl {

namespace {
constexpr std::int64_t kExactLimit = std::int64_t{1} << 53;  // Lua doubles are exact below this
}  // namespace

ScriptCall scriptCall(const DecisionRequest& req, const std::string& base, bool serverClock,
                      std::optional<std::int64_t> windowAt) {
  std::int64_t at = req.now.count();
  if (windowAt) {
    at = *windowAt;
  } else if (serverClock && detail::keysNeedTime(req.algorithm)) {  // Redis TIME is this machine's clock (loopback)
    at = std::chrono::duration_cast<Micros>(std::chrono::system_clock::now().time_since_epoch()).count();
  }
  return {detail::keysAt(req.algorithm, base, at, req.quota),
          {serverClock ? std::string() : std::to_string(req.now.count()), std::to_string(req.quota.limit),
           std::to_string(req.quota.window.count()), std::to_string(req.quota.interval().count()),
           std::to_string(req.cost)}};
}

std::optional<std::int64_t> scriptWindowOf(std::string_view message) {
  constexpr std::string_view kWord = "RL_WINDOW ";
  const auto at = message.find(kWord);
  if (at == std::string_view::npos) return std::nullopt;
  const char* first = message.data() + at + kWord.size();
  std::int64_t start = 0;
  const auto [end, ec] = std::from_chars(first, message.data() + message.size(), start);
  if (ec != std::errc{} || end == first) return std::nullopt;
  return start;
}

Result<RedisLink> RedisStoreBase::connectFor(const RedisStoreOptions& o) {
  if (o.watchRetries < 1)
    return invalidArgument("watch retries " + std::to_string(o.watchRetries) + " is out of range: allowed 1 or more");
  if (o.thinkTime < Micros{0} || o.thinkTime > 10 * kSecond)
    return invalidArgument("think time " + std::to_string(o.thinkTime.count()) +
                           " us is out of range: allowed 0 to 10000000 us (10 s)");
  if (o.endpoint.connectTimeout <= Micros{0} || o.endpoint.commandTimeout <= Micros{0})
    return invalidArgument("Redis timeouts must be > 0 (connect " + std::to_string(o.endpoint.connectTimeout.count()) +
                           " us, command " + std::to_string(o.endpoint.commandTimeout.count()) + " us)");
  if (o.waitReplicas < 0 || o.waitReplicas > 100)
    return invalidArgument("--wait-replicas " + std::to_string(o.waitReplicas) + " is out of range: allowed 0 to 100");
  if (o.waitReplicas > 0 && (o.waitTimeout < Micros{1000} || o.waitTimeout >= o.endpoint.commandTimeout))
    return invalidArgument("--wait-timeout-ms " + std::to_string(o.waitTimeout.count() / 1000) +
                           " is out of range: allowed 1 ms to below the command timeout (" +
                           std::to_string(o.endpoint.commandTimeout.count() / 1000) +
                           " ms; WAIT 0 would block forever)");
  return RedisLink::connect(o.endpoint);
}

Result<std::string> RedisStoreBase::baseKey(const DecisionRequest& r) const {
  if (options_.endpoint.cluster) return clusterLimiterKey(options_.prefix, r.algorithm, r.client);
  return limiterKey(options_.prefix, r.algorithm, r.client);
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
  auto link = connectFor(options);
  if (!link) return link.error();
  std::unique_ptr<RedisLuaStore> s(new RedisLuaStore(std::move(link).value(), options));
  if (auto ok = s->link_.forEachMaster([&](RedisConnection& c) { return s->loadScripts(c); }); !ok)
    return ok.error();
  return s;
}

Result<void> RedisLuaStore::loadScripts(RedisConnection& conn) {
  for (Algorithm a : kAllAlgorithms) {
    auto r = conn.command({"SCRIPT", "LOAD", luaScript(a)});
    if (!r) return Error{r.error().code, "SCRIPT LOAD " + std::string(algorithmName(a)) + " on " +
                                             conn.endpoint().address() + ": " + r.error().message};
    sha_[static_cast<int>(a)] = std::string(r->str());
  }
  return {};
}

Result<void> RedisLuaStore::waitForReplicas(RedisConnection& conn) {
  const std::string n = std::to_string(options_.waitReplicas);
  const std::string ms = std::to_string(options_.waitTimeout.count() / 1000);
  auto r = conn.command({"WAIT", n, ms});
  if (!r) return r.error();
  if (r->integer() >= options_.waitReplicas) return {};
  ++waitShortfalls_;
  return unavailable("WAIT " + n + " " + ms + " on " + conn.endpoint().address() + ": " +
                     std::to_string(r->integer()) + " replica(s) acknowledged the write in time (it stays "
                     "applied on the master)");
}

Result<Decision> RedisLuaStore::decide(const DecisionRequest& req) {
  if (auto ok = validateRequest(req); !ok) return ok.error();
  auto key = baseKey(req);
  if (!key) return key.error();
  std::optional<std::int64_t> windowAt;  // the server's window, after it named another one than we guessed
  for (int attempt = 1;; ++attempt) {
    RedisConnection* used = nullptr;
    auto r = evalScript(req.algorithm, scriptCall(req, *key, options_.serverClock, windowAt), used);
    if (!r) {
      windowAt = scriptWindowOf(r.error().message);
      if (windowAt && attempt < kWindowAttempts) continue;
      return r.error();
    }
    auto d = parseLuaDecision(*r, req.algorithm, req.quota);
    if (d && d->allowed && options_.waitReplicas > 0 && used)
      if (auto ok = waitForReplicas(*used); !ok) return ok.error();
    return d;
  }
}

Result<RedisReply> RedisLuaStore::evalScript(Algorithm a, const ScriptCall& call, RedisConnection*& used) {
  const std::string numKeys = std::to_string(call.keys.size());
  const std::string sha = sha_[static_cast<int>(a)];  // loadScripts may assign sha_ while argv is in use
  std::vector<std::string_view> argv{"EVALSHA", sha, numKeys};
  argv.insert(argv.end(), call.keys.begin(), call.keys.end());
  argv.insert(argv.end(), call.argv.begin(), call.argv.end());
  return link_.onKey(call.keys.front(), [&](RedisConnection& conn) {
    used = &conn;
    auto reply = conn.command(std::span<const std::string_view>(argv));
    if (!reply && reply.error().code == ErrorCode::Protocol && reply.error().message.starts_with("NOSCRIPT")) {
      // This node lost its scripts (SCRIPT FLUSH, restart, a promoted replica): run the source, reload here.
      ++reloads_;
      if (options_.reloadTally) options_.reloadTally->fetch_add(1, std::memory_order_relaxed);
      std::vector<std::string_view> eval = argv;
      eval[0] = "EVAL";
      eval[1] = luaScript(a);
      reply = conn.command(std::span<const std::string_view>(eval));
      if (reply) (void)loadScripts(conn);
    }
    return reply;
  });
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
