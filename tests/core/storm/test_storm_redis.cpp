// The storm engine against a private redis-server: the replica leak closes on
// redis-lua, the classic token-bucket check admits exactly the capacity, and
// the race lab shows naive over-admitting while lua and watch never do.

#include <QtTest>

#include "metrics/storm_metrics.hpp"
#include "support/redis_test_server.hpp"
#include "storm/race_lab.hpp"
#include "storm/store_factory.hpp"

using namespace rl;

class StormRedisTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase();
  void replicaLeakClosesOnRedisLua();
  void classicTokenBucketCheck_data();
  void classicTokenBucketCheck();
  void raceLab();
  void unreachableRedisIsAnError();
  void outageIsCountedByPolicy_data();
  void outageIsCountedByPolicy();

 private:
  StormOutcome runOn(const StormSpec& spec);
  std::unique_ptr<test::RedisTestServer> redis_;
};

void StormRedisTest::initTestCase() {
  redis_ = std::make_unique<test::RedisTestServer>();
  RL_REQUIRE_REDIS(*redis_);
}

StormOutcome StormRedisTest::runOn(const StormSpec& spec) {
  auto o = runStorm(spec, redisStoreFactory(spec, redis_->endpoint()), {}, storeRetries);
  if (!o) qFatal("%s", o.error().message.c_str());
  return std::move(o.value());
}

void StormRedisTest::replicaLeakClosesOnRedisLua() {
  StormSpec s;
  s.backend = Backend::RedisLua;
  s.algorithms = {Algorithm::FixedWindow};
  s.quota = Quota::perWindow(100, 60 * kSecond);
  s.requests = 400;
  s.replicas = 4;
  s.concurrency = 4;
  s.keyTag = "leak-";
  const StormOutcome o = runOn(s);
  const auto m = computeMetrics(s, o.records, o.wallDuration);
  QCOMPARE(m[0].offered, 400);
  QCOMPARE(m[0].admitted, 100);
  QCOMPARE(m[0].denied, 300);
  QCOMPARE(m[0].errors, 0);
  QCOMPARE(m[0].overshoot, 1.0);
}

void StormRedisTest::classicTokenBucketCheck_data() {
  QTest::addColumn<int>("backend");
  QTest::addColumn<int>("clock");
  QTest::newRow("lua server clock") << int(Backend::RedisLua) << int(ClockMode::Server);
  QTest::newRow("lua virtual clock") << int(Backend::RedisLua) << int(ClockMode::Virtual);
  QTest::newRow("watch server clock") << int(Backend::RedisWatch) << int(ClockMode::Server);
}

void StormRedisTest::classicTokenBucketCheck() {
  // Capacity 10, refill 1/s, 20 concurrent requests across 4 replicas: exactly 10 admitted.
  QFETCH(int, backend);
  QFETCH(int, clock);
  StormSpec s;
  s.backend = static_cast<Backend>(backend);
  s.clock = static_cast<ClockMode>(clock);
  s.algorithms = {Algorithm::TokenBucket};
  s.quota = Quota::perWindow(10, 10 * kSecond).withRefill(1);
  s.requests = 20;
  s.replicas = 4;
  s.concurrency = 20;
  s.keyTag = "classic-" + std::to_string(backend) + "-" + std::to_string(clock) + "-";
  const StormOutcome o = runOn(s);
  QCOMPARE(o.counters[0].admitted, 10);
  QCOMPARE(o.counters[0].denied, 10);
  QCOMPARE(o.counters[0].errors, 0);
}

void StormRedisTest::raceLab() {
  RaceSpec r;
  r.rounds = 200;
  r.capacity = 10;
  r.concurrency = 20;
  r.keyTag = "lab-";
  const auto results = runRace(r, redis_->endpoint());
  QVERIFY2(results.ok(), results.ok() ? "" : results.error().message.c_str());
  QCOMPARE(results->size(), std::size_t{3});
  const RaceVariantResult& naive = (*results)[0];
  const RaceVariantResult& watch = (*results)[1];
  const RaceVariantResult& lua = (*results)[2];
  QCOMPARE(raceVariantName(naive.variant), std::string_view("naive"));
  QVERIFY(naive.overLimitRounds >= 1);
  QVERIFY(naive.admittedMax > 10);
  for (const RaceVariantResult* v : {&watch, &lua}) {
    QCOMPARE(v->admitted.size(), std::size_t{200});
    QCOMPARE(v->admittedMin, 10);
    QCOMPARE(v->admittedMax, 10);
    QCOMPARE(v->overLimitRounds, 0);
    QCOMPARE(v->errors, 0);
  }
  QCOMPARE(lua.retries, 0);
  qInfo("naive: min %lld max %lld mean %.2f over-limit rounds %lld; watch retries %lld",
        static_cast<long long>(naive.admittedMin), static_cast<long long>(naive.admittedMax), naive.admittedMean,
        static_cast<long long>(naive.overLimitRounds), static_cast<long long>(watch.retries));
}

void StormRedisTest::unreachableRedisIsAnError() {
  StormSpec s;
  s.backend = Backend::RedisLua;
  s.requests = 5;
  RedisEndpoint nowhere;
  nowhere.port = 1;
  const auto o = runStorm(s, redisStoreFactory(s, nowhere));
  QVERIFY(!o);
  QCOMPARE(o.error().code, ErrorCode::Unavailable);
  QVERIFY2(o.error().message.find("127.0.0.1:1") != std::string::npos, o.error().message.c_str());
}

void StormRedisTest::outageIsCountedByPolicy_data() {
  QTest::addColumn<int>("policy");
  QTest::newRow("open admits") << int(FailurePolicy::Open);
  QTest::newRow("closed denies") << int(FailurePolicy::Closed);
}

void StormRedisTest::outageIsCountedByPolicy() {
  // 200 requests/s for 3 s through redis-lua; the server stops mid-run and
  // comes back: no hang, errors counted and decided by the policy, decisions
  // resume after the restart.
  QFETCH(int, policy);
  test::RedisTestServer own;
  RL_REQUIRE_REDIS(own);
  StormSpec s;
  s.backend = Backend::RedisLua;
  s.clock = ClockMode::Server;
  s.pattern = Pattern::Constant;
  s.rate = 200;
  s.duration = 3 * kSecond;
  s.concurrency = 4;
  s.quota = Quota::perWindow(1'000'000, kSecond);
  s.onRedisError = static_cast<FailurePolicy>(policy);
  StormRunner runner(s, redisStoreFactory(s, own.endpoint()));
  QVERIFY(runner.start().ok());
  std::vector<DecisionRecord> seen;
  while (seen.size() < 100 && !runner.finished()) {
    runner.takeRecords(seen);
    QTest::qWait(10);
  }
  QVERIFY(own.server().stop().ok());
  QTest::qWait(500);
  QVERIFY(own.server().restart().ok());
  QVERIFY(QTest::qWaitFor([&] { return runner.finished(); }, 60'000));  // generous: no hang
  const StormOutcome o = runner.outcome();
  QVERIFY(!o.failure);
  QVERIFY(o.counters[0].errors > 0);
  std::int64_t lastError = -1, okAfter = 0;
  for (const DecisionRecord& r : o.records) {
    if (r.error()) {
      QCOMPARE(r.allowed(), s.onRedisError == FailurePolicy::Open);
      lastError = std::max(lastError, r.atUs());
    }
  }
  for (const DecisionRecord& r : o.records) okAfter += !r.error() && r.atUs() > lastError ? 1 : 0;
  QVERIFY2(okAfter > 0, "decisions resume after the restart");
  QCOMPARE(o.counters[0].admitted + o.counters[0].denied, static_cast<std::int64_t>(o.records.size()));
  qInfo("outage: %lld errors of %zu decisions, %lld after the restart", static_cast<long long>(o.counters[0].errors),
        o.records.size(), static_cast<long long>(okAfter));
}

QTEST_GUILESS_MAIN(StormRedisTest)
#include "test_storm_redis.moc"
