// Failovers that Redis performs itself, during a storm, measured: a private
// Sentinel set (1 master, 2 replicas, 3 `redis-server --sentinel`,
// down-after-milliseconds 1000) and a private 3+3 Cluster
// (cluster-node-timeout 1000). The master holding the storm's key is SIGKILLed
// mid-storm; the storm resumes on the promoted replica; the reported lost
// writes equal what the test counts itself (also after SENTINEL FAILOVER): the client's admits minus the
// entries a plain GET finds on the new master.

#include <QtTest>

#include "metrics/storm_metrics.hpp"
#include "redis/cluster/key_slot.hpp"
#include "redis/cluster/slot_map.hpp"
#include "keys/value_codec.hpp"
#include "storm/natural_failover.hpp"
#include "support/checked.hpp"

using namespace rl;

namespace {
StormSpec stormSpec(const std::string& prefix, FailoverPlan::Kind kind) {
  StormSpec s;
  s.backend = Backend::RedisLua;
  s.clock = ClockMode::Server;
  s.algorithms = {Algorithm::SlidingLog, Algorithm::TokenBucket};
  s.quota = Quota::perWindow(100'000, 60 * kSecond);
  s.pattern = Pattern::Constant;
  s.rate = 200;
  s.duration = Micros{7'000'000};
  s.concurrency = 4;
  s.resilience.onRedisError = FailurePolicy::Closed;
  s.prefix = prefix;
  s.runTag = "nf-";
  s.failover = FailoverPlan{};
  s.failover->kind = kind;
  s.failover->killAt = Micros{1'500'000};
  return s;
}

std::int64_t limiterAdmits(const StormOutcome& o, std::size_t algo) {
  std::int64_t n = 0;
  for (const DecisionRecord& d : o.records) n += d.algorithm() == algo && d.allowed() && !d.error();
  return n;
}

std::int64_t servedAfter(const StormOutcome& o, Micros t) {
  std::int64_t n = 0;
  for (const DecisionRecord& d : o.records) n += d.atUs() > t.count() && !d.error();
  return n;
}

// Entries of the sliding log `key` at host:port, read with a plain GET.
Result<std::int64_t> logEntriesAt(const std::string& host, int port, const std::string& key) {
  RedisEndpoint ep;
  ep.host = host;
  ep.port = port;
  auto c = RedisConnection::connect(ep);
  if (!c) return c.error();
  auto v = c->command({"GET", key});
  if (!v) return v.error();
  if (v->isNil()) return std::int64_t{0};
  auto log = decodeSlidingLog(v->str());
  if (!log) return log.error();
  return static_cast<std::int64_t>(log->size());
}

void checkReport(const StormSpec& s, const FailoverRun& run, std::int64_t countedByTest) {
  const FailoverReport& r = run.report;
  qInfo("%s: master %s, elected %s at %lld ms (killed at %lld), unserved %lld ms, policy %lld, reloads %lld, "
        "admitted %lld, held %lld, lost %lld",
        r.kind.c_str(), r.master.c_str(), r.promoted.c_str(), (long long)r.electedAt.count() / 1000,
        (long long)r.killAt.count() / 1000, (long long)r.unserved.count() / 1000, (long long)r.errorsDuringFailover,
        (long long)r.scriptReloads, (long long)r.keys[0].admitted, (long long)r.keys[0].onNewMaster,
        (long long)r.keys[0].lost);
  QVERIFY(r.electedAt > r.killAt);
  QVERIFY(r.promoted != r.master);
  QVERIFY2(servedAfter(run.outcome, r.electedAt) > 100, "the storm resumes on the promoted replica");
  if (s.failover->kind == FailoverPlan::Kind::NaturalKill) {
    QVERIFY(r.errorsDuringFailover > 0);  // closed policy while there was no master
    QVERIFY(r.unserved > Micros{0});
  } else {
    // SENTINEL FAILOVER leaves the old master up and writable until it is demoted: the storm
    // goes on writing there (no policy decisions) until each connection asks the Sentinels
    // again (kSentinelRecheck), and what it wrote there after the promotion is lost.
    QVERIFY(r.lostWrites > 0);
  }
  QCOMPARE(r.keys.size(), std::size_t{2});
  QCOMPARE(r.keys[0].admitted, limiterAdmits(run.outcome, 0));
  QCOMPARE(r.keys[0].onNewMaster, countedByTest);
  QCOMPARE(r.keys[0].lost, limiterAdmits(run.outcome, 0) - countedByTest);
  QCOMPARE(r.lostWrites, r.keys[0].lost);
  QVERIFY(r.keys[0].notCountable.empty());
  QCOMPARE(r.keys[1].onNewMaster, std::int64_t{-1});
  QCOMPARE(r.keys[1].notCountable, std::string("its state is the time the bucket is full again, which refills with time"));
  // The promoted replica had no scripts: the first EVALSHA there got NOSCRIPT. Its reload fills the
  // server's one script cache, so how many of the other connections met NOSCRIPT first is a race.
  QVERIFY(r.scriptReloads >= 1 && r.scriptReloads <= s.concurrency);
}
}  // namespace

class NaturalFailoverTest : public QObject {
  Q_OBJECT
 private slots:
  void sentinelElectsAfterKill();
  void clusterElectsAfterKill();
  void sentinelFailoverCommand();

 private:
  void sentinelRun(FailoverPlan::Kind kind, const std::string& prefix);
};

void NaturalFailoverTest::sentinelElectsAfterKill() { sentinelRun(FailoverPlan::Kind::NaturalKill, "nfs:"); }

// SENTINEL FAILOVER: the old master stays up and is demoted; the same counts hold.
void NaturalFailoverTest::sentinelFailoverCommand() { sentinelRun(FailoverPlan::Kind::SentinelFailover, "nff:"); }

void NaturalFailoverTest::sentinelRun(FailoverPlan::Kind kind, const std::string& prefix) {
  auto set = ManagedRedisSentinel::start();
  QVERIFY2(set, set ? "" : set.error().message.c_str());
  const StormSpec s = stormSpec(prefix, kind);
  RedisEndpoint ep = set->endpoint();
  ep.commandTimeout = Micros{200'000};
  auto run = runNaturalFailoverStorm(s, NaturalFailoverTarget{ep, nullptr, &*set});
  QVERIFY2(run, run ? "" : run.error().message.c_str());
  // The test's own count: the Sentinels' master now, and a plain GET there.
  auto sentinel = RedisConnection::connect(set->sentinels()[0].endpoint());
  QVERIFY(sentinel);
  auto addr = sentinel->command({"SENTINEL", "get-master-addr-by-name", "ratelab"});
  QVERIFY(addr);
  const std::string host((*addr)[0].str());
  const int port = static_cast<int>(*(*addr)[1].toInt());
  QCOMPARE(host + ":" + std::to_string(port), run->report.promoted);
  RL_CHECKED(held, logEntriesAt(host, port, limiterKey(prefix, Algorithm::SlidingLog, "nf-client-0")));
  checkReport(s, *run, held);
}

void NaturalFailoverTest::clusterElectsAfterKill() {
  ManagedClusterOptions o;
  o.nodeTimeout = Micros{1'000'000};
  auto cluster = ManagedRedisCluster::start(o);
  QVERIFY2(cluster, cluster ? "" : cluster.error().message.c_str());
  const StormSpec s = stormSpec("nfc:", FailoverPlan::Kind::NaturalKill);
  RedisEndpoint ep = cluster->endpoint();
  ep.commandTimeout = Micros{200'000};
  auto run = runNaturalFailoverStorm(s, NaturalFailoverTarget{ep, &*cluster, nullptr});
  QVERIFY2(run, run ? "" : run.error().message.c_str());
  // The test's own count: CLUSTER SLOTS from a live node, then a plain GET on the slot's master.
  const std::string key = *clusterLimiterKey("nfc:", Algorithm::SlidingLog, "nf-client-0");
  std::vector<RedisEndpoint> live;
  for (auto& n : cluster->nodes())
    if (n.running()) live.push_back(n.endpoint());
  auto map = fetchSlotMap(live, ClusterTrust::of(ep));
  QVERIFY(map);
  const ClusterNode& m = map->masters()[static_cast<std::size_t>(map->masterOf(keySlot(key)))];
  QCOMPARE(m.address(), run->report.promoted);
  RL_CHECKED(held, logEntriesAt(m.host, m.port, key));
  checkReport(s, *run, held);
}

QTEST_GUILESS_MAIN(NaturalFailoverTest)
#include "test_natural_failover.moc"
