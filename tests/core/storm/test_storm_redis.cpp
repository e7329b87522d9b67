// The storm engine against a private redis-server: the replica leak closes on
// redis-lua, the classic token-bucket check admits exactly the capacity, and
// the race lab shows naive over-admitting while lua and watch never do.

#include <QtTest>

#include "metrics/storm_metrics.hpp"
#include "support/redis_test_server.hpp"
#include "storm/race_lab.hpp"
#include "storm/store_factory.hpp"
#include "support/checked.hpp"

using namespace rl;

namespace {
// 200 requests/s for 3 s through redis-lua on a quota that never denies.
StormSpec constantRateSpec(ClockMode clock, FailurePolicy policy) {
  StormSpec s;
  s.backend = Backend::RedisLua;
  s.clock = clock;
  s.pattern = Pattern::Constant;
  s.rate = 200;
  s.duration = 3 * kSecond;
  s.quota = Quota::perWindow(1'000'000, kSecond);
  s.resilience.onRedisError = policy;
  return s;
}

// Waits until the runner has recorded `n` decisions (or finished).
void waitForRecords(StormRunner& runner, std::size_t n) {
  std::vector<DecisionRecord> seen;
  while (seen.size() < n && !runner.finished()) {
    runner.takeRecords(seen);
    QTest::qWait(5);
  }
}
}  // namespace

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
  void pauseKeepsLatencyWithinTimeout();
  void wholeRunOutage_data();
  void wholeRunOutage();

 private:
  Result<StormOutcome> runOn(const StormSpec& spec);
  std::unique_ptr<test::RedisTestServer> redis_;
};

void StormRedisTest::initTestCase() {
  redis_ = std::make_unique<test::RedisTestServer>();
  RL_REQUIRE_REDIS(*redis_);
}

Result<StormOutcome> StormRedisTest::runOn(const StormSpec& spec) {
  return runStorm(spec, redisStoreFactory(spec, redis_->endpoint()), {}, storeRetries);
}

void StormRedisTest::replicaLeakClosesOnRedisLua() {
  StormSpec s;
  s.backend = Backend::RedisLua;
  s.algorithms = {Algorithm::FixedWindow};
  s.quota = Quota::perWindow(100, 60 * kSecond);
  s.requests = 400;
  s.replicas = 4;
  s.concurrency = 4;
  s.runTag = "leak-";
  RL_CHECKED(o, runOn(s));
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
  s.runTag = "classic-" + std::to_string(backend) + "-" + std::to_string(clock) + "-";
  RL_CHECKED(o, runOn(s));
  QCOMPARE(o.counters[0].admitted, 10);
  QCOMPARE(o.counters[0].denied, 10);
  QCOMPARE(o.counters[0].errors, 0);
}

void StormRedisTest::raceLab() {
  RaceSpec r;
  r.rounds = 200;
  r.capacity = 10;
  r.concurrency = 20;
  r.runTag = "lab-";
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
  StormSpec s = constantRateSpec(ClockMode::Server, static_cast<FailurePolicy>(policy));
  s.concurrency = 4;
  StormRunner runner(s, redisStoreFactory(s, own.endpoint()));
  QVERIFY(runner.start().ok());
  waitForRecords(runner, 100);
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
      QCOMPARE(r.allowed(), s.resilience.onRedisError == FailurePolicy::Open);
      lastError = std::max(lastError, r.atUs());
    }
  }
  for (const DecisionRecord& r : o.records) okAfter += !r.error() && r.atUs() > lastError ? 1 : 0;
  QVERIFY2(okAfter > 0, "decisions resume after the restart");
  QCOMPARE(o.counters[0].admitted + o.counters[0].denied, static_cast<std::int64_t>(o.records.size()));
  qInfo("outage: %lld errors of %zu decisions, %lld after the restart", static_cast<long long>(o.counters[0].errors),
        o.records.size(), static_cast<long long>(okAfter));
}

void StormRedisTest::pauseKeepsLatencyWithinTimeout() {
  // `run --pattern constant --rate 200 --clock client` (one worker, as the CLI
  // defaults) with redis-server frozen by SIGSTOP for 1.5 s: the first call
  // waits for the 100 ms command timeout, every other one fails fast while the
  // circuit is open; all are answered within timeout + slack and counted as errors.
  test::RedisTestServer own;
  RL_REQUIRE_REDIS(own);
  const StormSpec s = constantRateSpec(ClockMode::Client, FailurePolicy::Closed);
  StormRunner runner(s, redisStoreFactory(s, own.endpoint()));  // default 100 ms command timeout
  QVERIFY(runner.start().ok());
  waitForRecords(runner, 60);
  QVERIFY(own.server().pause().ok());
  QTest::qWait(1500);
  QVERIFY(own.server().resume().ok());
  QVERIFY(QTest::qWaitFor([&] { return runner.finished(); }, 30'000));
  const StormOutcome o = runner.outcome();
  QVERIFY(!o.failure);
  std::int64_t firstError = -1, maxLatency = 0;
  for (const DecisionRecord& r : o.records) {
    if (r.error() && firstError < 0) firstError = r.atUs();
    maxLatency = std::max<std::int64_t>(maxLatency, r.latencyUs());
  }
  QVERIFY(firstError >= 0);
  std::int64_t inPause = 0, errorsInPause = 0, queuedInPause = 0, maxInPause = 0;
  for (const DecisionRecord& r : o.records) {
    if (r.atUs() < firstError || r.atUs() > firstError + 1'400'000) continue;  // surely inside the 1.5 s
    ++inPause;
    errorsInPause += r.error();
    maxInPause = std::max<std::int64_t>(maxInPause, r.latencyUs());
    queuedInPause += r.latencyUs() >= 30'000;  // waited behind a blocked call (not mere scheduling noise)
    QVERIFY(!r.allowed());  // closed
  }
  qInfo("1.5 s SIGSTOP at 200 req/s: %zu decisions, %lld errors, %lld late, %lld dropped, max latency %lld us; "
        "%lld decisions in the pause, %lld of them errors, %lld waited >= 30 ms, max latency in the pause %lld us",
        o.records.size(), static_cast<long long>(o.progress.errors), static_cast<long long>(o.progress.late),
        static_cast<long long>(o.progress.dropped), static_cast<long long>(maxLatency),
        static_cast<long long>(inPause), static_cast<long long>(errorsInPause), static_cast<long long>(queuedInPause), static_cast<long long>(maxInPause));
  QCOMPARE(errorsInPause, inPause);  // every decision during the pause is an error the policy decided
  QVERIFY(inPause >= 200);           // ~280 at 200/s: none were held back
  QVERIFY2(maxInPause < 400'000, "a decision during the pause waited longer than the 100 ms timeout + slack");
  // One timed-out call holds the worker 100 ms (~20 sends wait behind it); probes wait at
  // most 20 ms each. (Sends a few ms late are this shared machine's scheduling, not Redis.)
  QVERIFY2(queuedInPause <= 40, "sends queued behind a blocked call during the pause");
  QCOMPARE(o.progress.dropped, std::int64_t{0});
}

void StormRedisTest::wholeRunOutage_data() {
  QTest::addColumn<int>("policy");
  QTest::addColumn<int>("admitted");
  // 4 replicas, fixed_window 10 per minute, 200 requests of one client.
  QTest::newRow("open admits all") << int(FailurePolicy::Open) << 200;
  QTest::newRow("closed admits none") << int(FailurePolicy::Closed) << 0;
  QTest::newRow("local admits replicas x limit") << int(FailurePolicy::Local) << 40;
}

void StormRedisTest::wholeRunOutage() {
  // Redis dies once every store is connected, before the first decision.
  QFETCH(int, policy);
  QFETCH(int, admitted);
  test::RedisTestServer own;
  RL_REQUIRE_REDIS(own);
  StormSpec s;
  s.backend = Backend::RedisLua;
  s.algorithms = {Algorithm::FixedWindow};
  s.quota = Quota::perWindow(10, 60 * kSecond);
  s.requests = 200;
  s.replicas = 4;
  s.concurrency = 2;
  s.resilience.onRedisError = static_cast<FailurePolicy>(policy);
  auto inner = redisStoreFactory(s, own.endpoint());
  std::atomic<int> made{0};
  const int stores = s.replicas * s.concurrency;
  StoreFactory factory = [&](int replica, int worker) -> Result<std::unique_ptr<Store>> {
    auto st = inner(replica, worker);
    if (st && made.fetch_add(1) + 1 == stores) (void)own.server().stop();  // the last store is open: kill Redis
    return st;
  };
  auto o = runStorm(s, factory);
  QVERIFY2(o.ok(), o.ok() ? "" : o.error().message.c_str());
  const auto m = computeMetrics(s, o->records, o->wallDuration);
  qInfo("%s: admitted %lld of 200, errors %lld, overshoot %.1f, max latency %lld us",
        failurePolicyName(s.resilience.onRedisError).data(), static_cast<long long>(m[0].admitted),
        static_cast<long long>(m[0].errors), m[0].overshoot, static_cast<long long>(m[0].latency.max));
  QCOMPARE(m[0].offered, 200);
  QCOMPARE(m[0].errors, 200);  // every decision is an error the policy decided
  QCOMPARE(m[0].admitted, admitted);
  QVERIFY(m[0].latency.max < 400'000);  // each decision within the timeout
}

QTEST_GUILESS_MAIN(StormRedisTest)
#include "test_storm_redis.moc"
