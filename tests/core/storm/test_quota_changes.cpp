// Quota changes during a run (--quota-change, scenario key "quota_changes"),
// on the virtual clock, on memory and on a private redis-server through every
// Redis access variant: the numbers a user tuning a limiter sees.
//   token_bucket: raising the refill 1 -> 10/s at 4 s on a drained bucket of
//                 20 admits about 40 in the next 4 s (it keeps its tokens);
//   gcra:         raising the rate keeps the theoretical arrival time, so an
//                 active client is locked out until it falls within the new
//                 tolerance (what redis_rate and redis-cell do);
//   schedule:     the runner applies a change by planned send time and marks it.

#include <QtTest>

#include "storm/storm_runner.hpp"
#include "storm/storm_settings.hpp"
#include "storm/store_factory.hpp"
#include "support/redis_test_server.hpp"
#include "support/checked.hpp"

using namespace rl;

namespace {
// One client offering 40/s for 8 s, the quota changing at 4 s.
Result<StormSpec> tuningSpec(Algorithm a, Backend b, const char* change) {
  StormSpec s;
  s.algorithms = {a};
  s.backend = b;
  s.clock = ClockMode::Virtual;
  s.pattern = Pattern::Constant;
  s.rate = 40;
  s.duration = 8 * kSecond;
  s.quota = Quota::perSecond(1).withBurst(20);
  s.runTag = std::string(backendName(b)) + "-" + std::string(algorithmName(a)) + "-";
  if (auto ok = applyStormSetting(s, "quota_change", change, "--quota-change"); !ok) return ok.error();
  return s;
}

// Admitted with planned send times in [fromUs, toUs).
std::int64_t admittedBetween(const StormOutcome& o, std::int64_t fromUs, std::int64_t toUs) {
  std::int64_t n = 0;
  for (const DecisionRecord& r : o.records)
    n += r.allowed() && r.intendedUs() >= fromUs && r.intendedUs() < toUs;
  return n;
}
}  // namespace

class QuotaChangesTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase();
  void raisedRefill_data();
  void raisedRefill();
  void scheduleIsMarkedAndRoundTrips();
  void badChangeIsRefused_data();
  void badChangeIsRefused();

 private:
  Result<StormOutcome> runOn(const StormSpec& spec);
  std::unique_ptr<test::RedisTestServer> redis_;
};

void QuotaChangesTest::initTestCase() {
  redis_ = std::make_unique<test::RedisTestServer>();
  RL_REQUIRE_REDIS(*redis_);
}

Result<StormOutcome> QuotaChangesTest::runOn(const StormSpec& spec) {
  if (spec.backend == Backend::Memory) return runStorm(spec, memoryStoreFactory(spec.replicas));
  return runStorm(spec, redisStoreFactory(spec, redis_->endpoint()));
}

void QuotaChangesTest::raisedRefill_data() {
  QTest::addColumn<int>("algorithm");
  QTest::addColumn<int>("backend");
  QTest::addColumn<int>("before");  // admitted in [0, 4 s)
  QTest::addColumn<int>("after");   // admitted in [4 s, 8 s)
  for (Backend b : {Backend::Memory, Backend::RedisLua, Backend::RedisNaive, Backend::RedisWatch}) {
    const QString name = QString::fromUtf8(backendName(b).data());
    // 20 at once (by 475 ms), then one at 1, 2 and 3 s: 23 before 4 s. From
    // 4 s, 10/s on a drained bucket that keeps its fraction of a token: 40 of
    // the 160 offered (before the fix: none until about 22 s).
    QTest::newRow(qPrintable("token_bucket " + name))
        << static_cast<int>(Algorithm::TokenBucket) << static_cast<int>(b) << 23 << 40;
    // GCRA at 4 s is 20 s ahead (its whole tolerance); the new tolerance is 2 s:
    // locked out until 22 s, far past the run.
    QTest::newRow(qPrintable("gcra " + name)) << static_cast<int>(Algorithm::Gcra) << static_cast<int>(b) << 23 << 0;
  }
}

void QuotaChangesTest::raisedRefill() {
  QFETCH(int, algorithm);
  QFETCH(int, backend);
  QFETCH(int, before);
  QFETCH(int, after);
  RL_CHECKED(s, tuningSpec(static_cast<Algorithm>(algorithm), static_cast<Backend>(backend), "4000:refill_rate=10"));
  QVERIFY(validate(s).ok());
  auto o = runOn(s);
  QVERIFY2(o.ok(), o.ok() ? "" : o.error().message.c_str());
  QCOMPARE(static_cast<int>(o->records.size()), 320);
  QCOMPARE(admittedBetween(*o, 0, 4'000'000), static_cast<std::int64_t>(before));
  QCOMPARE(admittedBetween(*o, 4'000'000, 8'000'000), static_cast<std::int64_t>(after));
  for (const DecisionRecord& r : o->records) QVERIFY(!r.error());
}

void QuotaChangesTest::scheduleIsMarkedAndRoundTrips() {
  RL_CHECKED(s, tuningSpec(Algorithm::TokenBucket, Backend::Memory, "6000:limit=5"));
  QVERIFY(applyStormSetting(s, "quota_change", "2000:refill_rate=2.5,limit=30", "--quota-change").ok());
  QCOMPARE(s.quotaChanges.size(), std::size_t{2});  // kept in time order
  QCOMPARE(s.quotaChanges[0].at, Micros{2'000'000});
  StormRunner runner(s, memoryStoreFactory(1));
  const auto marks = runner.markers();
  QCOMPARE(marks.size(), std::size_t{2});
  QCOMPARE(marks[0].atUs, 2'000'000);
  QCOMPARE(marks[0].limit, 30);
  QCOMPARE(marks[0].refillPerSecond, 2.5);
  QCOMPARE(marks[1].atUs, 6'000'000);
  QCOMPARE(marks[1].limit, 5);
  QCOMPARE(marks[1].refillPerSecond, 2.5);  // what a change does not name stays
  // A scenario writes the schedule as "quota_changes" and reads it back.
  const Json doc = specToJson(s);
  QCOMPARE(doc["quota_changes"].size(), std::size_t{2});
  QCOMPARE(doc["quota_changes"][0].get<std::string>(), std::string("2000:limit=30,refill_rate=2.5"));
  auto back = specFromJson(doc);
  QVERIFY(back.ok());
  QCOMPARE(back->quotaChanges.size(), std::size_t{2});
  QVERIFY(back->quotaChanges == s.quotaChanges);
}

void QuotaChangesTest::badChangeIsRefused_data() {
  QTest::addColumn<QString>("text");
  QTest::addColumn<QString>("error");
  QTest::newRow("no time") << "limit=5" << "--quota-change: 'limit=5' is not valid: allowed AT_MS:limit=N,window_ms=W,refill_rate=R (any of the three, at least one)";
  QTest::newRow("bad time") << "-5:limit=5" << "--quota-change: '-5' is not valid: allowed a time AT_MS, an integer 0 to 31536000000 (ms since the run's start), then ':'";
  QTest::newRow("nothing") << "4000:" << "--quota-change: '4000:' is not valid: allowed AT_MS:limit=N,window_ms=W,refill_rate=R (any of the three, at least one)";
  QTest::newRow("unknown") << "4000:burst=3" << "--quota-change: 'burst=3' is not valid: allowed limit=, window_ms= or refill_rate=";
  QTest::newRow("zero limit") << "4000:limit=0" << "--quota-change: 'limit=0' is not valid: allowed limit=N, N an integer 1 to 1000000000000";
  QTest::newRow("twice") << "4000:limit=3,limit=4" << "--quota-change: 'limit=4' is not valid: allowed each of limit, window_ms, refill_rate at most once per change";
  QTest::newRow("bad rate") << "4000:refill_rate=nan" << "--quota-change: 'refill_rate=nan' is not valid: allowed refill_rate=R, R a number > 0 and <= 1000000 (per second)";
}

void QuotaChangesTest::badChangeIsRefused() {
  QFETCH(QString, text);
  QFETCH(QString, error);
  StormSpec s;
  auto ok = applyStormSetting(s, "quota_change", text.toStdString(), "--quota-change");
  QVERIFY(!ok.ok());
  QCOMPARE(QString::fromStdString(ok.error().message), error);
  // A change the algorithm can't run is named by validate(): a cost above the new limit.
  RL_CHECKED(c, tuningSpec(Algorithm::TokenBucket, Backend::Memory, "1000:limit=2"));
  c.cost = 3;
  c.quota.limit = 5;
  auto v = validate(c);
  QVERIFY(!v.ok());
  QVERIFY2(QString::fromStdString(v.error().message).startsWith("--quota-change 1000:limit=2: --cost"),
           v.error().message.c_str());
}

QTEST_GUILESS_MAIN(QuotaChangesTest)
#include "test_quota_changes.moc"
