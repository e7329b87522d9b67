#include "storm/cluster_failover.hpp"

#include <signal.h>

#include <chrono>

#include "process/readiness.hpp"
#include "redis/cluster/key_slot.hpp"
#include "redis/cluster/slot_map.hpp"
#include "redis/redis_connection.hpp"
#include "storm/admits_in_state.hpp"

namespace rl {

namespace {
Micros elapsedOf(const StormRunner& r) { return r.progress().elapsed; }

void waitUntil(StormRunner& runner, Micros at, const FailoverWatch& watch) { (void)waitForRun(runner, at, watch); }

Result<RedisReply> runOn(const RedisEndpoint& ep, std::initializer_list<std::string_view> a,
                         std::initializer_list<std::string_view> b = {}) {
  auto c = RedisConnection::connect(ep);
  if (!c) return c.error();
  if (b.size() > 0) {
    if (auto r = c->command(a); !r) return r.error();
    return c->command(b);
  }
  return c->command(a);
}

// Admitted entries in the state of `base` on `replica` (READONLY: a cluster replica serves reads only then).
std::int64_t admittedInState(const RedisEndpoint& replica, Algorithm a, const std::string& base) {
  auto c = RedisConnection::connect(replica);
  if (!c || !c->command({"READONLY"})) return -1;
  auto n = admitsInState(*c, a, base);
  return n ? *n : -1;
}

// Polls INFO replication on `node` until it shows `fact` ("role:master"), for at most `timeout`.
bool replicationShows(const RedisEndpoint& node, std::string_view fact, Micros timeout) {
  return pollUntil(
      [&] {
        auto info = runOn(node, {"INFO", "replication"});
        return info && info->str().find(fact) != std::string_view::npos;
      },
      timeout, Micros{2'000});
}

// An admit counts as before the kill by when it was answered, not when it was sent: a send that
// began before the promotion can be retried until the promoted replica admits it, and that admit
// is in the new master's state. Between the kill and the promotion nothing can admit.
void summarize(const std::vector<DecisionRecord>& records, FailoverReport& r) {
  for (const DecisionRecord& d : records) {
    if (d.algorithm() == 0 && d.client() == 0 && d.allowed() && !d.error() && d.answeredUs() < r.promoteAt.count())
      ++r.admittedBeforeKill;
    if (d.error() && d.atUs() >= r.breakAt.count()) ++r.errorsDuringFailover;
    if (d.algorithm() == 0 && d.client() == 0 && d.error() && d.atUs() < r.killAt.count()) ++r.errorsBeforeKill;
  }
  r.unserved = firstServedAfter(records, r.killAt);
  if (r.stateOnNewMaster >= 0) r.lostWrites = r.admittedBeforeKill - r.stateOnNewMaster;
}
}  // namespace

Result<FailoverRun> runFailoverStorm(const StormSpec& spec, StoreFactory factory, ManagedRedisCluster& cluster,
                                     const FailoverWatch& watch, RetryCounter retries) {
  if (!spec.failover) return invalidArgument("--failover is not set");
  const FailoverPlan plan = *spec.failover;
  const Algorithm algo = spec.algorithms.front();
  auto base = clusterLimiterKey(spec.prefix, algo, spec.runTag + "client-0");
  if (!base) return base.error();
  const RedisEndpoint ep = cluster.endpoint();
  auto map = fetchSlotMap(ep);
  if (!map) return map.error();
  const int m = map->masterOf(keySlot(*base));
  if (m < 0) return unavailable("no master serves the slot of " + *base);
  const ClusterNode master = map->masters()[static_cast<std::size_t>(m)];
  if (map->replicasOf(m).empty())
    return invalidArgument("--failover: the master " + master.address() + " holding " + *base +
                           " has no replica to promote (use a fresh --redis cluster)");
  const ClusterNode replica = map->replicasOf(m).front();
  ManagedRedisServer* oldMaster = cluster.nodeOnPort(master.port);
  ManagedRedisServer* newMaster = cluster.nodeOnPort(replica.port);
  if (!oldMaster || !newMaster) return invalidArgument("--failover needs a managed cluster (--redis cluster)");

  FailoverRun run;
  run.report.master = master.address();
  run.report.promoted = replica.address();
  run.report.waitReplicas = spec.resilience.waitReplicas;
  StormRunner runner(spec, std::move(factory));
  if (retries) runner.setRetryCounter(std::move(retries));
  if (auto ok = runner.start(); !ok) return ok.error();

  waitUntil(runner, plan.breakAt, watch);
  run.report.breakAt = elapsedOf(runner);
  ::kill(newMaster->pid(), SIGSTOP);  // the replica stops reading: it lags from here on
  const auto killed = runOn(ep.node(master.host, master.port), {"CLIENT", "KILL", "TYPE", "replica"});

  waitUntil(runner, plan.killAt, watch);
  run.report.killAt = elapsedOf(runner);
  ::kill(oldMaster->pid(), SIGKILL);
  (void)oldMaster->stop();  // reaps it

  waitUntil(runner, plan.promoteAt, watch);
  ::kill(newMaster->pid(), SIGCONT);
  const RedisEndpoint promoted = ep.node(replica.host, replica.port);
  // Once it reports the link down it has read, and applied, all that reached its socket before the break.
  const bool applied = replicationShows(promoted, "master_link_status:down", Micros{3'000'000});
  run.report.stateOnNewMaster = applied ? admittedInState(promoted, algo, *base) : -1;
  run.report.promoteAt = elapsedOf(runner);
  auto takeover = runOn(promoted, {"CLUSTER", "FAILOVER", "TAKEOVER"});
  const bool isMaster = takeover && replicationShows(promoted, "role:master", Micros{3'000'000});
  Result<void> rejoined;
  if (plan.rejoinAt.count() > 0) {
    // As an operator would: restart the old master; it learns of the newer epoch and becomes a replica.
    waitUntil(runner, plan.rejoinAt, watch);
    run.report.rejoinAt = elapsedOf(runner);
    rejoined = oldMaster->restart();
  }

  waitUntil(runner, Micros::max(), watch);
  runner.wait();
  if (watch.onPoll) watch.onPoll(runner);  // the last records
  run.outcome = runner.outcome();
  if (run.outcome.failure) return *run.outcome.failure;
  if (!killed) return Error{killed.error().code, "--failover: CLIENT KILL TYPE replica on " + master.address() +
                                                     ": " + killed.error().message};
  if (!isMaster)
    return unavailable("--failover: " + replica.address() + " did not become master (" +
                       (takeover ? std::string("no role change within 3 s") : takeover.error().message) + ")");
  if (!rejoined) return Error{rejoined.error().code, "--failover: restarting " + master.address() + ": " +
                                                       rejoined.error().message};
  summarize(run.outcome.records, run.report);
  return run;
}

}  // namespace rl
