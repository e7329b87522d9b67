// The read-decide-write stores, redis-naive and redis-watch (RedisNaiveStore, RedisWatchStore in
// redis_store.hpp): read the state, decide in C++, write it back; watch wraps it in WATCH/MULTI/EXEC.
#include <thread>

#include "redis/redis_store.hpp"
#include "redis/state_codec.hpp"

namespace rl {


// ---- redis-naive ------------------------------------------------------------------

Result<std::unique_ptr<RedisNaiveStore>> RedisNaiveStore::make(const RedisStoreOptions& options) {
  auto link = connectFor(options);
  if (!link) return link.error();
  std::unique_ptr<RedisNaiveStore> s(new RedisNaiveStore(std::move(link).value(), options));
  if (options.readReplica) {
    if (options.endpoint.cluster) return invalidArgument("--read-from replica: allowed on one master (not a Redis Cluster)");
    auto replica = RedisConnection::connect(*options.readReplica);
    if (!replica) return Error{replica.error().code, "--read-from replica: " + replica.error().message};
    s->replica_.emplace(std::move(replica).value());
  }
  return s;
}

Result<Decision> RedisNaiveStore::decide(const DecisionRequest& req) {
  if (auto ok = validateRequest(req); !ok) return ok.error();
  auto key = baseKey(req);
  if (!key) return key.error();
  const std::string& base = *key;
  return link_.onKey(base, [&](RedisConnection& conn) -> Result<Decision> {
    auto read = detail::readState(replica_ ? *replica_ : conn, base, req, options_.serverClock, false);
    if (!read) return read.error();
    Step step = rl::decide(req.algorithm, read->state, Micros{read->now}, req.cost, req.quota);
    if (options_.thinkTime.count() > 0) std::this_thread::sleep_for(options_.thinkTime);  // race demo
    if (step.wrote) {
      auto wrote = detail::runPipeline(conn, detail::writeCommands(req.algorithm, *read, read->state, step.ttl));
      if (!wrote) return wrote.error();
    }
    return step.decision;
  });
}

// ---- redis-watch ------------------------------------------------------------------

Result<std::unique_ptr<RedisWatchStore>> RedisWatchStore::make(const RedisStoreOptions& options) {
  auto link = connectFor(options);
  if (!link) return link.error();
  return std::unique_ptr<RedisWatchStore>(new RedisWatchStore(std::move(link).value(), options));
}

Result<Decision> RedisWatchStore::decide(const DecisionRequest& req) {
  if (auto ok = validateRequest(req); !ok) return ok.error();
  auto key = baseKey(req);
  if (!key) return key.error();
  const std::string& base = *key;
  return link_.onKey(base, [&](RedisConnection& conn) { return decideWatched(conn, base, req); });
}

Result<Decision> RedisWatchStore::decideWatched(RedisConnection& conn, const std::string& base,
                                                const DecisionRequest& req) {
  for (int attempt = 0; attempt < options_.watchRetries; ++attempt) {
    auto read = detail::readState(conn, base, req, options_.serverClock, true);
    if (!read) return read.error();
    Step step = rl::decide(req.algorithm, read->state, Micros{read->now}, req.cost, req.quota);
    if (!step.wrote) {
      if (auto r = conn.command({"UNWATCH"}); !r) return r.error();
      return step.decision;
    }
    auto cmds = detail::writeCommands(req.algorithm, *read, read->state, step.ttl);
    cmds.insert(cmds.begin(), {"MULTI"});
    cmds.push_back({"EXEC"});
    auto replies = detail::runPipeline(conn, cmds);
    if (!replies) return replies.error();
    if (!replies->back().isNil()) return step.decision;  // EXEC ran: the state was unchanged
    ++retries_;  // another client wrote a watched key between our read and EXEC
  }
  return Error{ErrorCode::Conflict, "redis-watch gave up after " + std::to_string(options_.watchRetries) +
                                        " conflicting transactions on " + base};
}

}  // namespace rl
