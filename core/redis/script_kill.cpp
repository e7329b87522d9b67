#include "redis/script_kill.hpp"

#include <algorithm>

#include "redis/redis_connection.hpp"
#include "redis/redis_connection_detail.hpp"

namespace rl {

namespace {
constexpr Micros kDefaultBusyThreshold{5'000'000};  // Redis' default busy-reply-threshold
constexpr Micros kMaxBusyThreshold{60'000'000};     // a kill never waits longer than this

// One command on `c`; its reply, or nullptr with the context's error.
redisReply* run(redisContext* c, const std::vector<std::string>& argv) {
  std::vector<const char*> ptrs;
  std::vector<size_t> lens;
  for (const auto& a : argv) {
    ptrs.push_back(a.data());
    lens.push_back(a.size());
  }
  return static_cast<redisReply*>(redisCommandArgv(c, static_cast<int>(argv.size()), ptrs.data(), lens.data()));
}
}  // namespace

ScriptKillOutcome killBusyScript(const RedisEndpoint& node, Micros wait) {
  redisContext* c = redisConnectWithTimeout(node.host.c_str(), node.port, detail::toTimeval(node.connectTimeout));
  if (!c || c->err) {
    ScriptKillOutcome out{ScriptKillResult::NoAnswer, "cannot connect: " + detail::contextError(c)};
    if (c) redisFree(c);
    return out;
  }
  ScriptKillOutcome out;
  if (redisSetTimeout(c, detail::toTimeval(wait)) != REDIS_OK) {
    out.detail = "cannot set the timeout: " + detail::contextError(c);
    redisFree(c);
    return out;
  }
  std::vector<std::vector<std::string>> commands;
  if (!node.password.empty())  // AUTH is allowed while busy; PING and SELECT are not
    commands.push_back(node.user.empty() ? std::vector<std::string>{"AUTH", node.password}
                                         : std::vector<std::string>{"AUTH", node.user, node.password});
  commands.push_back({"SCRIPT", "KILL"});
  for (const auto& argv : commands) {
    redisReply* r = run(c, argv);
    if (!r) {
      out = {ScriptKillResult::NoAnswer, "no answer to " + argv[0] + " within " +
                                             std::to_string(wait.count() / 1000) + " ms (" + detail::contextError(c) + ")"};
      break;
    }
    RedisReply reply(r);
    const std::string text(reply.str());
    if (argv[0] == "AUTH") {
      if (!reply.isError()) continue;
      out = {ScriptKillResult::NoAnswer, "AUTH refused: " + text};
      break;
    }
    if (!reply.isError()) out = {ScriptKillResult::Killed, text};
    else if (text.starts_with("NOTBUSY")) out = {ScriptKillResult::NotBusy, text};
    else if (text.starts_with("UNKILLABLE")) out = {ScriptKillResult::Unkillable, text};
    else out = {ScriptKillResult::NoAnswer, "SCRIPT KILL refused: " + text};
  }
  redisFree(c);
  return out;
}

Micros busyReplyThreshold(RedisConnection& conn) {
  auto r = conn.command({"CONFIG", "GET", "lua-time-limit"});
  if (!r || !r->isArray() || r->size() < 2) return kDefaultBusyThreshold;
  const auto ms = (*r)[1].toInt();
  if (!ms || *ms <= 0) return kDefaultBusyThreshold;
  return std::min(Micros{*ms * 1000}, kMaxBusyThreshold);
}

}  // namespace rl
