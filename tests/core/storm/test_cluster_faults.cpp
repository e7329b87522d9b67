// Faults on a private 3-master + 3-replica Redis Cluster, in order on one
// cluster: a paused master fails only its own slots within the command
// timeout; a failover with replication broken loses admitted writes and the
// limiter over-admits by as many; with WAIT 1 the same failover loses none;
// a master with no replica left takes only its own slots down.

#include <QtTest>

#include <chrono>
#include <set>

#include "metrics/storm_metrics.hpp"
#include "redis/cluster/cluster_router.hpp"
#include "store/failure_policy.hpp"
#include "storm/cluster_failover.hpp"
#include "storm/store_factory.hpp"
#include "support/redis_test_cluster.hpp"
#include "support/checked.hpp"

using namespace rl;

class ClusterFaultsTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase();
  void pausedMasterFailsItsSlotsOnly();
  void failoverLosesWrites();
  void waitReplicasLosesNone();
  void masterWithoutReplicaFailsItsSlotsOnly();

 private:
  RedisEndpoint endpoint(Micros timeout) const;
  Result<std::string> clientOnFreshMaster(const std::string& prefix, Algorithm a);
  Result<FailoverRun> failover(int waitReplicas);
  std::unique_ptr<test::RedisTestCluster> cluster_;
  std::set<int> usedMasters_;   ///< ports of masters a failover already killed or promoted
  int promotedPort_ = 0;        ///< a promoted master without a replica
};

void ClusterFaultsTest::initTestCase() {
  cluster_ = std::make_unique<test::RedisTestCluster>(1);
  RL_REQUIRE_CLUSTER(*cluster_);
}

RedisEndpoint ClusterFaultsTest::endpoint(Micros timeout) const {
  RedisEndpoint ep = cluster_->endpoint();
  ep.commandTimeout = timeout;
  return ep;
}

// A run tag whose storm key lands on a master with a replica that no earlier test used.
Result<std::string> ClusterFaultsTest::clientOnFreshMaster(const std::string& prefix, Algorithm a) {
  auto map = fetchSlotMap(cluster_->endpoint());
  if (!map) return map.error();
  for (int i = 0; i < 10'000; ++i) {
    const std::string tag = "fo" + std::to_string(i) + "-";
    const int m = map->masterOf(keySlot(*clusterLimiterKey(prefix, a, tag + "client-0")));
    const auto& node = map->masters()[static_cast<std::size_t>(m)];
    if (!map->replicasOf(m).empty() && !usedMasters_.count(node.port)) return tag;
  }
  return unavailable("no master with a replica is left for a failover");
}

void ClusterFaultsTest::pausedMasterFailsItsSlotsOnly() {
  const Micros timeout{200'000};
  RedisStoreOptions o = cluster_->storeOptions("pause:");
  o.endpoint = endpoint(timeout);
  auto store = makeRedisStore(Backend::RedisLua, o);
  QVERIFY(store);
  auto router = ClusterRouter::connect(cluster_->endpoint());
  QVERIFY(router);
  // Two clients on different masters.
  std::string onPaused, onOther;
  int pausedMaster = -1;
  for (int i = 0; onOther.empty(); ++i) {
    const std::string c = "p" + std::to_string(i);
    const int m = (*router)->map().masterOf(keySlot(*clusterLimiterKey("pause:", Algorithm::TokenBucket, c)));
    if (pausedMaster < 0) { pausedMaster = m; onPaused = c; }
    else if (m != pausedMaster) onOther = c;
  }
  const Quota q = Quota::perSecond(100);
  QVERIFY((*store)->decide({Algorithm::TokenBucket, onPaused, q, 1, Micros{0}}));
  RedisConnection& paused = **(*router)->master(pausedMaster);
  QVERIFY(paused.command({"CLIENT", "PAUSE", "1500", "ALL"}));
  const auto t0 = std::chrono::steady_clock::now();
  auto d = decideWithPolicy(**store, {Algorithm::TokenBucket, onPaused, q, 1, Micros{0}}, FailurePolicy::Closed, timeout);
  const auto waited = std::chrono::steady_clock::now() - t0;
  QVERIFY(d);
  QVERIFY(d->byPolicy);
  QVERIFY(!d->decision.allowed);
  QVERIFY2(waited < std::chrono::milliseconds(3 * 200), "a paused master must fail within the command timeout");
  auto other = decideWithPolicy(**store, {Algorithm::TokenBucket, onOther, q, 1, Micros{0}}, FailurePolicy::Closed, timeout);
  QVERIFY(other);
  QVERIFY(!other->byPolicy);
  QVERIFY(other->decision.allowed);
  QCOMPARE(other->decision.remaining, std::int64_t{99});
  (void)(*router)->master(pausedMaster).value()->command({"CLIENT", "UNPAUSE"});
}

Result<FailoverRun> ClusterFaultsTest::failover(int waitReplicas) {
  StormSpec s;
  s.backend = Backend::RedisLua;
  s.clock = ClockMode::Server;
  s.algorithms = {Algorithm::SlidingLog};
  s.quota = Quota::perWindow(300, 60 * kSecond);
  s.pattern = Pattern::Constant;
  s.rate = 200;
  s.duration = Micros{3'000'000};
  s.concurrency = 4;
  s.resilience.onRedisError = FailurePolicy::Closed;
  s.prefix = "fail" + std::to_string(waitReplicas) + ":";
  auto tag = clientOnFreshMaster(s.prefix, Algorithm::SlidingLog);
  if (!tag) return tag.error();
  s.runTag = *tag;
  s.resilience.waitReplicas = waitReplicas;
  s.resilience.waitTimeout = Micros{20'000};
  // With WAIT the old master rejoins as the new master's replica: WAIT 1 needs one.
  s.failover = FailoverPlan{Micros{800'000}, Micros{1'300'000}, Micros{1'600'000},
                            Micros{waitReplicas > 0 ? 1'700'000 : 0}};
  auto run = runFailoverStorm(s, redisStoreFactory(s, endpoint(Micros{200'000})), cluster_->cluster());
  if (!run) return Error{run.error().code, "failover: " + run.error().message};
  const auto m = computeMetrics(s, run->outcome.records, run->outcome.wallDuration);
  qInfo("wait %d: admitted before kill %lld, on new master %lld, lost %lld, admitted %lld, max in window %lld, "
        "errors %lld, unserved %lld ms",
        waitReplicas, (long long)run->report.admittedBeforeKill, (long long)run->report.stateOnNewMaster,
        (long long)run->report.lostWrites, (long long)m[0].admitted, (long long)m[0].maxAdmittedInWindow,
        (long long)run->report.errorsDuringFailover, (long long)run->report.unserved.count() / 1000);
  for (const auto& addr : {run->report.master, run->report.promoted})  // (a rejoined master is a replica now)
    usedMasters_.insert(std::stoi(addr.substr(addr.rfind(':') + 1)));
  return std::move(run).value();
}

void ClusterFaultsTest::failoverLosesWrites() {
  RL_CHECKED(run, failover(0));
  const FailoverReport& r = run.report;
  QVERIFY2(r.lostWrites > 0, "writes between the break and the kill must be lost");
  QVERIFY(r.stateOnNewMaster > 0);
  QVERIFY(r.errorsDuringFailover > 0);  // kill to promotion: closed policy
  QVERIFY(r.unserved > Micros{0} && r.unserved < Micros{2'000'000});
  // The limiter forgot `lost` admissions, so it admits that many more than its limit.
  std::int64_t admitted = 0;
  for (const auto& d : run.outcome.records) admitted += d.allowed() && !d.error();
  QCOMPARE(admitted, 300 + r.lostWrites);
  promotedPort_ = std::stoi(r.promoted.substr(r.promoted.rfind(':') + 1));
}

void ClusterFaultsTest::waitReplicasLosesNone() {
  RL_CHECKED(run, failover(1));
  const FailoverReport& r = run.report;
  QVERIFY(r.lostWrites <= 0);  // < 0: a write whose WAIT timed out reached the replica before the break
  // A write whose WAIT timed out before the kill stays applied on the master and may still
  // have reached the replica (the client counted it as failed): never more than those.
  QVERIFY2(-r.lostWrites <= r.errorsBeforeKill,
           qPrintable(QStringLiteral("lost %1, errors before the kill %2").arg(r.lostWrites).arg(r.errorsBeforeKill)));
  QVERIFY(r.stateOnNewMaster > 0);
  QVERIFY(r.errorsDuringFailover > 0);  // WAIT timed out on every admitting write after the break
  QVERIFY2(r.unserved > Micros{0}, "decisions resume once the old master rejoined as a replica");
  std::int64_t admitted = 0;
  for (const auto& d : run.outcome.records) admitted += d.allowed() && !d.error();
  QVERIFY(admitted <= 300);
}

void ClusterFaultsTest::masterWithoutReplicaFailsItsSlotsOnly() {
  QVERIFY(promotedPort_ > 0);
  ManagedRedisServer* lone = cluster_->cluster().nodeOnPort(promotedPort_);
  QVERIFY(lone);
  const Micros timeout{200'000};
  RedisStoreOptions o = cluster_->storeOptions("lone:");
  o.endpoint = endpoint(timeout);
  auto store = makeRedisStore(Backend::RedisLua, o);
  QVERIFY(store);
  auto map = fetchSlotMap(cluster_->endpoint());
  QVERIFY(map);
  std::string onLone, onOther;
  for (int i = 0; onLone.empty() || onOther.empty(); ++i) {
    const std::string c = "l" + std::to_string(i);
    const int m = map->masterOf(keySlot(*clusterLimiterKey("lone:", Algorithm::Gcra, c)));
    (map->masters()[static_cast<std::size_t>(m)].port == promotedPort_ ? onLone : onOther) = c;
  }
  QVERIFY(lone->stop());
  const Quota q = Quota::perSecond(100);
  for (int i = 0; i < 3; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    auto d = decideWithPolicy(**store, {Algorithm::Gcra, onLone, q, 1, Micros{0}}, FailurePolicy::Open, timeout);
    QVERIFY(d);
    QVERIFY(d->byPolicy);
    QVERIFY(d->decision.allowed);  // open
    QVERIFY(std::chrono::steady_clock::now() - t0 < std::chrono::milliseconds(3 * 200));
    auto other = decideWithPolicy(**store, {Algorithm::Gcra, onOther, q, 1, Micros{0}}, FailurePolicy::Open, timeout);
    QVERIFY(other);
    QVERIFY2(!other->byPolicy, "other slots keep working");
    QCOMPARE(other->decision.remaining, std::int64_t{99 - i});
  }
}

QTEST_GUILESS_MAIN(ClusterFaultsTest)
#include "test_cluster_faults.moc"
