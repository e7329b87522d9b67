// Tables of time on Redis: the limiter core's headline cases, decided by each
// Redis variant (client clock, exact times) with exact numbers.

#include <QtTest>

#include "redis/redis_store.hpp"
#include "support/redis_test_server.hpp"

using namespace rl;

namespace {
Micros sec(std::int64_t v) { return Micros{v * 1'000'000}; }
constexpr std::int64_t kT0 = 1'800'000'000'000'000;  // a whole minute: windows start here
}  // namespace

class RedisTablesTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase();
  void gcraBurstFive_data() { backends(); }
  void gcraBurstFive();
  void leakyBucketShapes_data() { backends(); }
  void leakyBucketShapes();
  void fixedWindowStraddlesBoundary_data() { backends(); }
  void fixedWindowStraddlesBoundary();
  void tokenBucketRefill_data() { backends(); }
  void tokenBucketRefill();

 private:
  void backends();
  std::unique_ptr<Store> store(const char* tag);
  std::unique_ptr<test::RedisTestServer> redis_;
};

void RedisTablesTest::initTestCase() {
  redis_ = std::make_unique<test::RedisTestServer>();
  RL_REQUIRE_REDIS(*redis_);
}

void RedisTablesTest::backends() {
  QTest::addColumn<int>("backend");
  QTest::newRow("redis-lua") << static_cast<int>(Backend::RedisLua);
  QTest::newRow("redis-naive") << static_cast<int>(Backend::RedisNaive);
  QTest::newRow("redis-watch") << static_cast<int>(Backend::RedisWatch);
}

std::unique_ptr<Store> RedisTablesTest::store(const char* tag) {
  QFETCH(int, backend);
  const std::string prefix = std::string("tables:") + tag + ":" + std::to_string(backend) + ":";
  auto s = makeRedisStore(static_cast<Backend>(backend), redis_->storeOptions(prefix, false));
  return s ? std::move(s).value() : nullptr;
}

void RedisTablesTest::gcraBurstFive() {
  // Rate 1/s, burst 5: five at t0 pass with remaining 4..0; the sixth waits exactly 1 s.
  auto s = store("gcra");
  QVERIFY(s);
  const Quota q = Quota::perSecond(1).withBurst(5);
  for (std::int64_t i = 0; i < 5; ++i) {
    auto d = s->decide({Algorithm::Gcra, "k", q, 1, Micros{kT0}});
    QVERIFY(d->allowed);
    QCOMPARE(d->remaining, 4 - i);
    QCOMPARE(d->resetAfter, sec(i + 1));
  }
  auto denied = s->decide({Algorithm::Gcra, "k", q, 1, Micros{kT0}});
  QVERIFY(!denied->allowed);
  QCOMPARE(denied->retryAfter, sec(1));
  QVERIFY(s->decide({Algorithm::Gcra, "k", q, 1, Micros{kT0} + sec(1)})->allowed);
}

void RedisTablesTest::leakyBucketShapes() {
  // Limit 5, one per second: six simultaneous requests; five wait 0..4 s, the sixth is denied.
  auto s = store("leaky");
  QVERIFY(s);
  const Quota q = Quota::perSecond(1).withBurst(5);
  for (std::int64_t i = 0; i < 5; ++i) {
    auto d = s->decide({Algorithm::LeakyBucket, "k", q, 1, Micros{kT0}});
    QVERIFY(d->allowed);
    QCOMPARE(d->delay, sec(i));
    QCOMPARE(d->remaining, 4 - i);
    QCOMPARE(d->level, static_cast<double>(i + 1));
  }
  auto denied = s->decide({Algorithm::LeakyBucket, "k", q, 1, Micros{kT0}});
  QVERIFY(!denied->allowed);
  QCOMPARE(denied->retryAfter, sec(1));
  QCOMPARE(denied->resetAfter, sec(5));
}

void RedisTablesTest::fixedWindowStraddlesBoundary() {
  // 100 per 60 s: 100 at 59.9 s and 100 at 60.1 s pass; the 201st waits for 120 s.
  auto s = store("fixed");
  QVERIFY(s);
  const Quota q = Quota::perMinute(100);
  int admitted = 0;
  for (int i = 0; i < 100; ++i) admitted += s->decide({Algorithm::FixedWindow, "k", q, 1, Micros{kT0 + 59'900'000}})->allowed;
  for (int i = 0; i < 100; ++i) admitted += s->decide({Algorithm::FixedWindow, "k", q, 1, Micros{kT0 + 60'100'000}})->allowed;
  QCOMPARE(admitted, 200);
  auto denied = s->decide({Algorithm::FixedWindow, "k", q, 1, Micros{kT0 + 60'100'000}});
  QVERIFY(!denied->allowed);
  QCOMPARE(denied->retryAfter, Micros{59'900'000});
  QCOMPARE(denied->remaining, 0);
  QCOMPARE(denied->level, 100.0);
}

void RedisTablesTest::tokenBucketRefill() {
  // Capacity 4, 2 tokens/s (one per 500 ms): a burst of 4, then one token per 500 ms.
  auto s = store("token");
  QVERIFY(s);
  const Quota q = Quota::perSecond(2).withBurst(4);
  for (int i = 0; i < 4; ++i) QVERIFY(s->decide({Algorithm::TokenBucket, "k", q, 1, Micros{kT0}})->allowed);
  auto denied = s->decide({Algorithm::TokenBucket, "k", q, 2, Micros{kT0 + 200'000}});
  QVERIFY(!denied->allowed);
  QCOMPARE(denied->retryAfter, Micros{800'000});  // two tokens: 2 x 500 ms - 200 ms carried
  QCOMPARE(denied->resetAfter, Micros{1'800'000});
  QCOMPARE(denied->level, 0.4);
  auto later = s->decide({Algorithm::TokenBucket, "k", q, 2, Micros{kT0 + 1'000'000}});
  QVERIFY(later->allowed);
  QCOMPARE(later->remaining, 0);
}

QTEST_GUILESS_MAIN(RedisTablesTest)
#include "test_redis_tables.moc"
