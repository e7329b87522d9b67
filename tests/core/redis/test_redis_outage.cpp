// Failure policy against a real outage: the managed redis-server is stopped
// mid-run (no crash, no hang, errors counted, open admits / closed denies) and
// started again (decisions resume through reconnect). Also the distributed
// demos: replica leak (memory vs redis-lua) and client clock skew.

#include <QtTest>

#include <chrono>
#include <thread>

#include "clock/clock.hpp"
#include "store/failure_policy.hpp"
#include "redis/redis_store.hpp"
#include "store/memory_store.hpp"
#include "support/redis_test_server.hpp"

using namespace rl;

namespace {
using SteadyClock = std::chrono::steady_clock;
}

class RedisOutageTest : public QObject {
  Q_OBJECT
 private slots:
  void failureDecisionFields();
  void stopAndRestart_data();
  void stopAndRestart();
  void replicaLeak();
  void clockSkew();
};

void RedisOutageTest::failureDecisionFields() {
  const Quota q = Quota::perSecond(10);
  const Decision open = failureDecision(FailurePolicy::Open, q, Micros{100'000});
  QVERIFY(open.allowed);
  QCOMPARE(open.limit, 10);
  QCOMPARE(open.remaining, 0);
  QCOMPARE(open.retryAfter, Micros{0});
  const Decision closed = failureDecision(FailurePolicy::Closed, q, Micros{100'000});
  QVERIFY(!closed.allowed);
  QCOMPARE(closed.retryAfter, Micros{100'000});
  QCOMPARE(failureDecision(FailurePolicy::Closed, q, Micros{0}).retryAfter, Micros{1});  // always > 0
}

void RedisOutageTest::stopAndRestart_data() {
  QTest::addColumn<int>("backend");
  QTest::newRow("redis-lua") << static_cast<int>(Backend::RedisLua);
  QTest::newRow("redis-naive") << static_cast<int>(Backend::RedisNaive);
  QTest::newRow("redis-watch") << static_cast<int>(Backend::RedisWatch);
}

void RedisOutageTest::stopAndRestart() {
  QFETCH(int, backend);
  test::RedisTestServer redis;  // its own server: this test stops it
  RL_REQUIRE_REDIS(redis);
  RedisStoreOptions o;
  o.endpoint = redis.endpoint();  // 100 ms connect and command timeouts
  auto made = makeRedisStore(static_cast<Backend>(backend), o);
  QVERIFY(made.ok());
  Store& store = **made;
  const Quota q = Quota::perMinute(1000);
  const DecisionRequest req{Algorithm::TokenBucket, "c", q, 1, Micros{0}};
  for (int i = 0; i < 10; ++i) QVERIFY(!decideWithPolicy(store, req, FailurePolicy::Closed, Micros{100'000})->byPolicy);

  QVERIFY(redis.server().stop().ok());
  for (FailurePolicy policy : {FailurePolicy::Open, FailurePolicy::Closed}) {
    int errors = 0;
    for (int i = 0; i < 20; ++i) {
      const auto t0 = SteadyClock::now();
      auto d = decideWithPolicy(store, req, policy, Micros{100'000});
      const auto took = SteadyClock::now() - t0;
      QVERIFY2(d.ok(), d.ok() ? "" : d.error().message.c_str());
      QVERIFY(took < std::chrono::seconds(2));  // generous: bounded by the timeouts, never a hang
      errors += d->byPolicy;
      QCOMPARE(d->decision.allowed, policy == FailurePolicy::Open);
      if (policy == FailurePolicy::Closed) QCOMPARE(d->decision.retryAfter, Micros{100'000});
    }
    QCOMPARE(errors, 20);
  }
  auto raw = store.decide(req);
  QVERIFY(!raw.ok());
  QCOMPARE(raw.error().code, ErrorCode::Unavailable);
  QVERIFY2(raw.error().message.find("127.0.0.1:" + std::to_string(o.endpoint.port)) != std::string::npos,
           raw.error().message.c_str());

  QVERIFY(redis.server().restart().ok());
  bool resumed = false;
  const auto deadline = SteadyClock::now() + std::chrono::seconds(10);
  while (!resumed && SteadyClock::now() < deadline) {
    auto d = decideWithPolicy(store, req, FailurePolicy::Closed, Micros{100'000});
    QVERIFY(d.ok());
    resumed = !d->byPolicy;
    if (!resumed) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  QVERIFY2(resumed, "no decision succeeded within 10 s of the restart");
  QVERIFY(static_cast<RedisStoreBase&>(store).reconnects() >= 1);
  auto fresh = store.decide(req);  // the restarted server is empty: a full bucket again
  QVERIFY(fresh.ok() && fresh->allowed);
  QCOMPARE(fresh->remaining, 998);
}

void RedisOutageTest::replicaLeak() {
  // fixed_window 100 per 60 s, 4 replicas behind round-robin, 400 requests.
  test::RedisTestServer redis;
  RL_REQUIRE_REDIS(redis);
  const Quota q = Quota::perMinute(100);
  const std::int64_t now = 1'800'000'000'000'000;  // a window start: all 400 fall in one window
  std::vector<MemoryStore> memory(4);
  std::vector<std::unique_ptr<Store>> lua;
  for (int r = 0; r < 4; ++r) {
    RedisStoreOptions o;
    o.endpoint = redis.endpoint();
    o.serverClock = false;
    auto s = makeRedisStore(Backend::RedisLua, o);
    QVERIFY(s.ok());
    lua.push_back(std::move(s).value());
  }
  int memoryAdmitted = 0, luaAdmitted = 0;
  for (int i = 0; i < 400; ++i) {
    const DecisionRequest req{Algorithm::FixedWindow, "client", q, 1, Micros{now + i * 1000}};
    memoryAdmitted += memory[static_cast<std::size_t>(i % 4)].decide(req)->allowed;
    auto d = lua[static_cast<std::size_t>(i % 4)]->decide(req);
    QVERIFY(d.ok());
    luaAdmitted += d->allowed;
  }
  qInfo("fixed_window 100/60s, 4 replicas, 400 requests: memory admitted %d, redis-lua admitted %d",
        memoryAdmitted, luaAdmitted);
  QCOMPARE(memoryAdmitted, 400);
  QCOMPARE(luaAdmitted, 100);
}

void RedisOutageTest::clockSkew() {
  // token_bucket capacity 4, refill 2/s; two replicas, replica 0's clock 10 s
  // behind; 8 requests within one second (here: as fast as they go, well under
  // the 500 ms refill interval), alternating replicas starting with replica 0.
  test::RedisTestServer redis;
  RL_REQUIRE_REDIS(redis);
  const Quota q = Quota::perSecond(2).withBurst(4);
  SystemClock real;
  const SkewedClock behind(real, Micros{-10'000'000});
  const Clock* clocks[] = {&behind, &real};
  int admitted[2] = {0, 0};
  for (bool serverClock : {false, true}) {
    std::vector<std::unique_ptr<Store>> replicas;
    for (int r = 0; r < 2; ++r) {
      auto s = makeRedisStore(Backend::RedisLua, redis.storeOptions("skew:", serverClock));
      QVERIFY(s.ok());
      replicas.push_back(std::move(s).value());
    }
    // The scenario assumes no real refill (500 ms) during the 8 requests; a
    // stalled machine repeats it on a fresh key rather than failing.
    bool quick = false;
    for (int attempt = 0; attempt < 5 && !quick; ++attempt) {
      const std::string client = (serverClock ? "server-" : "client-") + std::to_string(attempt);
      admitted[serverClock] = 0;
      const auto t0 = SteadyClock::now();
      for (int i = 0; i < 8; ++i) {
        const DecisionRequest req{Algorithm::TokenBucket, client, q, 1, clocks[i % 2]->now()};
        auto d = replicas[static_cast<std::size_t>(i % 2)]->decide(req);
        QVERIFY(d.ok());
        admitted[serverClock] += d->allowed;
      }
      quick = SteadyClock::now() - t0 < std::chrono::milliseconds(400);
    }
    QVERIFY2(quick, "8 requests never fitted in 400 ms");
  }
  qInfo("token_bucket 4 @ 2/s, 2 replicas, one 10 s behind, 8 requests: client clock admitted %d, "
        "server clock admitted %d", admitted[0], admitted[1]);
  // The replica behind creates the bucket at its time; the other replica then
  // refills it for 10 s (20 tokens, capped at 4): one token too many.
  QCOMPARE(admitted[0], 5);
  QCOMPARE(admitted[1], 4);
}

QTEST_GUILESS_MAIN(RedisOutageTest)
#include "test_redis_outage.moc"
