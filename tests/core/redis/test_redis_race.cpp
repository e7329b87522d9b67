// Race proof against a live redis-server: capacity 10, 20 threads (each with
// its own connection and store) released together by a barrier, 200 rounds on
// fresh keys. redis-lua and redis-watch admit exactly 10 every round;
// redis-naive (check, then write) admits more in at least one round.

#include <QtTest>

#include <atomic>
#include <barrier>
#include <map>
#include <thread>

#include "redis/redis_store.hpp"
#include "support/redis_test_server.hpp"

using namespace rl;

namespace {
constexpr int kThreads = 20;
constexpr int kRounds = 200;
constexpr std::int64_t kCapacity = 10;

struct RaceOutcome {
  std::vector<int> admitted;  ///< per round
  std::int64_t retries = 0;   ///< WATCH retries over all threads
  int errors = 0;             ///< failed decisions (must stay 0)
};

RaceOutcome race(const RedisEndpoint& ep, Backend backend, Micros thinkTime, const std::string& prefix) {
  RaceOutcome out;
  out.admitted.assign(kRounds, 0);
  std::vector<std::atomic<int>> admitted(kRounds);
  std::atomic<std::int64_t> retries{0};
  std::atomic<int> errors{0};
  std::barrier sync(kThreads);
  // A token bucket of 10 refilling one token per 6 minutes: no refill during the test.
  const Quota quota = Quota::perWindow(kCapacity, 3600 * kSecond);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      RedisStoreOptions options;
      options.endpoint = ep;
      options.endpoint.commandTimeout = Micros{5'000'000};
      options.prefix = prefix;
      options.thinkTime = thinkTime;
      auto store = makeRedisStore(backend, options);
      for (int r = 0; r < kRounds; ++r) {
        sync.arrive_and_wait();  // every thread's request for round r leaves together
        if (!store) {
          errors++;
          continue;
        }
        const std::string client = "round-" + std::to_string(r);
        auto d = (*store)->decide({Algorithm::TokenBucket, client, quota, 1, Micros{0}});
        if (!d) errors++;
        else if (d->allowed) admitted[static_cast<std::size_t>(r)]++;
      }
      if (store) retries += redisRetries(**store);
    });
  }
  for (auto& t : threads) t.join();
  for (int r = 0; r < kRounds; ++r) out.admitted[static_cast<std::size_t>(r)] = admitted[static_cast<std::size_t>(r)];
  out.retries = retries;
  out.errors = errors;
  return out;
}

// "admitted -> rounds" histogram, e.g. "10:187 11:9 12:4".
QString distribution(const std::vector<int>& admitted) {
  std::map<int, int> h;
  for (int a : admitted) h[a]++;
  QStringList parts;
  for (auto [a, n] : h) parts << QString("%1:%2").arg(a).arg(n);
  return parts.join(' ');
}

int overLimitRounds(const std::vector<int>& admitted) {
  return static_cast<int>(std::count_if(admitted.begin(), admitted.end(), [](int a) { return a > kCapacity; }));
}
}  // namespace

class RedisRaceTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase();
  void atomicVariantsAdmitExactlyCapacity_data();
  void atomicVariantsAdmitExactlyCapacity();
  void naiveOverAdmits();

 private:
  std::unique_ptr<test::RedisTestServer> redis_;
};

void RedisRaceTest::initTestCase() {
  redis_ = std::make_unique<test::RedisTestServer>();
  RL_REQUIRE_REDIS(*redis_);
}

void RedisRaceTest::atomicVariantsAdmitExactlyCapacity_data() {
  QTest::addColumn<int>("backend");
  QTest::newRow("redis-lua") << static_cast<int>(Backend::RedisLua);
  QTest::newRow("redis-watch") << static_cast<int>(Backend::RedisWatch);
}

void RedisRaceTest::atomicVariantsAdmitExactlyCapacity() {
  QFETCH(int, backend);
  const auto b = static_cast<Backend>(backend);
  const auto out = race(redis_->endpoint(), b, Micros{0}, "race:" + std::to_string(backend) + ":");
  qInfo("%s: admitted per round (admitted:rounds) %s; WATCH retries %lld", QTest::currentDataTag(),
        qPrintable(distribution(out.admitted)), static_cast<long long>(out.retries));
  QCOMPARE(out.errors, 0);
  for (int r = 0; r < kRounds; ++r) QCOMPARE(out.admitted[static_cast<std::size_t>(r)], 10);
  if (b == Backend::RedisLua) QCOMPARE(out.retries, std::int64_t{0});
}

void RedisRaceTest::naiveOverAdmits() {
  // Plain loopback first (reported, not asserted: how often it races depends on scheduling).
  const auto plain = race(redis_->endpoint(), Backend::RedisNaive, Micros{0}, "race:naive0:");
  QCOMPARE(plain.errors, 0);
  qInfo("redis-naive, no think time: over-limit rounds %d/%d; admitted:rounds %s", overLimitRounds(plain.admitted),
        kRounds, qPrintable(distribution(plain.admitted)));
  // The race demo's think time (RedisStoreOptions::thinkTime) between read and write.
  const auto think = race(redis_->endpoint(), Backend::RedisNaive, Micros{2'000}, "race:naive2:");
  QCOMPARE(think.errors, 0);
  qInfo("redis-naive, think time 2 ms: over-limit rounds %d/%d; admitted:rounds %s", overLimitRounds(think.admitted),
        kRounds, qPrintable(distribution(think.admitted)));
  QVERIFY(overLimitRounds(plain.admitted) + overLimitRounds(think.admitted) >= 1);
  QVERIFY2(overLimitRounds(think.admitted) >= 1, "redis-naive with think time never over-admitted");
  // Never fewer than the capacity: every thread reads a bucket with tokens left or races.
  for (int a : think.admitted) QVERIFY(a >= kCapacity);
}

QTEST_GUILESS_MAIN(RedisRaceTest)
#include "test_redis_race.moc"
