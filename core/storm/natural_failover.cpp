#include "storm/natural_failover.hpp"

#include <chrono>

#include "redis/cluster/key_slot.hpp"
#include "redis/cluster/slot_map.hpp"
#include "redis/redis_link.hpp"
#include "redis/sentinel/sentinel_discovery.hpp"
#include "storm/admits_in_state.hpp"
#include "storm/store_factory.hpp"

namespace rl {

namespace {
using Kind = FailoverPlan::Kind;
constexpr Micros kProbeTimeout{300'000};  // polls for the election: a dead node must not stall the watch

std::int64_t wallUs() {
  return std::chrono::duration_cast<Micros>(std::chrono::system_clock::now().time_since_epoch()).count();
}

Result<std::string> keyOf(const StormSpec& spec, const RedisEndpoint& ep, Algorithm a, int client) {
  const std::string name = spec.runTag + "client-" + std::to_string(client);
  if (ep.cluster) return clusterLimiterKey(spec.prefix, a, name);
  return limiterKey(spec.prefix, a, name);
}

RedisEndpoint quick(RedisEndpoint ep) {
  ep.connectTimeout = std::min(ep.connectTimeout, kProbeTimeout);
  ep.commandTimeout = std::min(ep.commandTimeout, kProbeTimeout);
  return ep;
}

// host:port of the master that serves `key` now (cluster: the slot's owner; Sentinel: the named master, ROLE master).
Result<std::string> masterOf(const RedisEndpoint& ep, const std::string& key) {
  if (ep.cluster) {
    std::vector<RedisEndpoint> seeds;
    for (auto& s : clusterSeeds(ep)) seeds.push_back(quick(std::move(s)));
    auto map = fetchSlotMap(seeds, ClusterTrust::of(ep));
    if (!map) return map.error();
    const int m = map->masterOf(keySlot(key));
    if (m < 0) return unavailable("no master serves the slot of " + key);
    const ClusterNode& n = map->masters()[static_cast<std::size_t>(m)];
    auto c = RedisConnection::connect(quick(ep.node(n.host, n.port)));  // a dead master is still in the map a while
    if (!c) return c.error();
    return n.address();
  }
  auto c = RedisConnection::connect(quick(ep));  // asks the Sentinels, checks ROLE
  if (!c) return c.error();
  return c->endpoint().address();
}

int portOf(const std::string& address) { return std::stoi(address.substr(address.rfind(':') + 1)); }

Result<void> checkTarget(const FailoverPlan& plan, const NaturalFailoverTarget& t) {
  const std::string plan_ = failoverPlanText(plan);
  if (plan.kind == Kind::SentinelFailover && !t.endpoint.viaSentinel())
    return invalidArgument("--failover " + plan_ + " needs Sentinels: allowed with --redis sentinel or a "
                           "redis+sentinel:// URL");
  if (plan.kind == Kind::NaturalKill && !(t.cluster && t.endpoint.cluster) && !(t.sentinel && t.endpoint.viaSentinel()))
    return invalidArgument("--failover " + plan_ + " kills a master RateLab started: allowed with --redis sentinel "
                           "or --redis cluster");
  return {};
}

// SIGKILLs the master at `address`, or asks the Sentinels to fail over.
Result<void> trigger(const FailoverPlan& plan, const NaturalFailoverTarget& t, const std::string& address) {
  if (plan.kind == Kind::NaturalKill) {
    ManagedRedisServer* node = t.cluster ? t.cluster->nodeOnPort(portOf(address)) : t.sentinel->nodeOnPort(portOf(address));
    if (!node) return invalidArgument("the master " + address + " is not one RateLab started");
    return node->kill();
  }
  std::string said;
  for (const auto& [host, port] : t.endpoint.sentinels) {
    RedisEndpoint s;
    s.host = host;
    s.port = port;
    auto c = RedisConnection::connect(quick(s));
    auto r = c ? c->command({"SENTINEL", "FAILOVER", t.endpoint.sentinelService}) : Result<RedisReply>(c.error());
    if (r) return {};
    said += (said.empty() ? "" : "; ") + host + ":" + std::to_string(port) + ": " + r.error().message;
  }
  return unavailable("SENTINEL FAILOVER " + t.endpoint.sentinelService + " was refused by every Sentinel (" + said + ")");
}

// Why the state of `a` can not be counted after this run, or "".
std::string whyNot(const StormSpec& spec, Algorithm a, std::int64_t startWall, std::int64_t endWall, bool elected) {
  if (std::string why = whyNotCountable(a); !why.empty()) return why;
  if (!elected) return "no new master was elected before the run ended";
  const std::int64_t w = spec.quota.window.count();
  const std::int64_t end = endWall + 1'000'000;  // the reading happens after the run
  if (a == Algorithm::SlidingLog ? end - startWall >= w : startWall / w != end / w)
    return "the run was not inside one window of " + std::to_string(w / 1000) + " ms, so admits expired from the state";
  return {};
}

void countKeys(const StormSpec& spec, const RedisEndpoint& ep, const StormOutcome& o, std::int64_t startWall,
               std::int64_t endWall, FailoverReport& r) {
  std::optional<RedisLink> link;
  for (std::size_t i = 0; i < spec.algorithms.size(); ++i) {
    FailoverKeyCount k;
    k.algorithm = spec.algorithms[i];
    for (const DecisionRecord& d : o.records) k.admitted += d.algorithm() == i && d.allowed() && !d.error();
    k.notCountable = whyNot(spec, k.algorithm, startWall, endWall, r.electedAt.count() >= 0);
    if (k.notCountable.empty() && !link) {
      auto l = RedisLink::connect(ep);
      if (l) link.emplace(std::move(l).value());
      else k.notCountable = "the new master could not be read: " + l.error().message;
    }
    std::int64_t held = 0;
    for (int c = 0; c < spec.clients && k.notCountable.empty(); ++c) {
      auto key = keyOf(spec, ep, k.algorithm, c);
      auto n = key ? link->onKey(*key, [&](RedisConnection& conn) { return admitsInState(conn, k.algorithm, *key); })
                   : Result<std::int64_t>(key.error());
      if (n) held += *n;
      else k.notCountable = "reading the state on the new master failed: " + n.error().message;
    }
    if (k.notCountable.empty()) {
      k.onNewMaster = held / spec.cost;
      k.lost = k.admitted - k.onNewMaster;
    }
    r.keys.push_back(std::move(k));
  }
}

void summarize(const StormOutcome& o, FailoverReport& r) {
  for (const DecisionRecord& d : o.records) {
    if (d.error() && d.atUs() >= r.killAt.count()) ++r.errorsDuringFailover;
    if (d.algorithm() == 0 && d.atUs() < r.killAt.count()) {
      r.admittedBeforeKill += d.allowed() && !d.error();
      r.errorsBeforeKill += d.error();
    }
  }
  r.unserved = firstServedAfter(o.records, r.killAt);
}
}  // namespace

Result<FailoverRun> runNaturalFailoverStorm(const StormSpec& spec, const NaturalFailoverTarget& target,
                                            const FailoverWatch& watch, RetryCounter retries) {
  if (!spec.failover || spec.failover->kind == Kind::Scripted)
    return invalidArgument("--failover natural:kill@MS or sentinel-failover@MS is not set");
  const FailoverPlan plan = *spec.failover;
  if (auto ok = checkTarget(plan, target); !ok) return ok.error();
  const RedisEndpoint& ep = target.endpoint;
  auto base = keyOf(spec, ep, spec.algorithms.front(), 0);
  if (!base) return base.error();
  auto master = masterOf(ep, *base);
  if (!master) return Error{master.error().code, "--failover: finding the master of " + *base + ": " + master.error().message};

  FailoverRun run;
  FailoverReport& report = run.report;
  report.kind = plan.kind == Kind::NaturalKill ? "natural:kill" : "sentinel-failover";
  report.master = *master;
  report.waitReplicas = spec.resilience.waitReplicas;
  auto reloads = std::make_shared<std::atomic<std::int64_t>>(0);
  StormRunner runner(spec, redisStoreFactory(spec, ep, reloads));
  if (retries) runner.setRetryCounter(std::move(retries));
  const std::int64_t startWall = wallUs();
  if (auto ok = runner.start(); !ok) return ok.error();

  (void)waitForRun(runner, plan.killAt, watch);
  report.killAt = runner.progress().elapsed;
  const Result<void> triggered = runner.finished() ? Result<void>(unavailable("the run ended before the failover time"))
                                                   : trigger(plan, target, *master);
  if (triggered) {
    if (watch.onNoMaster) watch.onNoMaster(report.killAt, Micros{-1});
    const Micros giveUp = report.killAt + kElectionWait;
    (void)waitForRun(runner, giveUp, watch, [&] {
      auto now = masterOf(ep, *base);
      if (!now || *now == *master) return false;
      report.electedAt = runner.progress().elapsed;
      report.promoted = *now;
      if (watch.onNoMaster) watch.onNoMaster(report.killAt, report.electedAt);
      return true;
    });
  }
  (void)waitForRun(runner, Micros::max(), watch);
  runner.wait();
  if (watch.onPoll) watch.onPoll(runner);  // the last records
  const std::int64_t endWall = wallUs();
  run.outcome = runner.outcome();
  if (run.outcome.failure) return *run.outcome.failure;
  if (!triggered)
    return Error{triggered.error().code, "--failover " + failoverPlanText(plan) + ": " + triggered.error().message};
  // The master at the end: a second election (the first successor failing to take
  // over in time) moves it again, and the keys are counted where they now live.
  if (auto last = masterOf(ep, *base); last && *last != *master) report.promoted = *last;
  report.scriptReloads = reloads->load();
  summarize(run.outcome, report);
  countKeys(spec, ep, run.outcome, startWall, endWall, report);
  report.stateOnNewMaster = report.keys.front().onNewMaster;
  report.lostWrites = report.keys.front().lost;
  return run;
}

}  // namespace rl
