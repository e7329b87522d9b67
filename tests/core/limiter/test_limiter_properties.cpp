// Seeded random property test, >= 100,000 decisions per algorithm:
//  - a denial has retryAfter > 0, and retrying (this single client) exactly
//    retryAfter later is admitted;
//  - remaining is never negative; an admitted request has delay >= 0;
//  - sliding_log never admits more than the limit in any window (checked exactly);
//  - every write has a TTL > 0.

#include <QtTest>

#include <deque>
#include <random>

#include "limiter/limiter_state.hpp"

using namespace rl;

class LimiterProperties : public QObject {
  Q_OBJECT
 private slots:
  void randomTrace_data();
  void randomTrace();
};

void LimiterProperties::randomTrace_data() {
  QTest::addColumn<int>("algorithm");
  for (Algorithm a : kAllAlgorithms)
    QTest::newRow(algorithmName(a).data()) << static_cast<int>(a);
}

void LimiterProperties::randomTrace() {
  QFETCH(int, algorithm);
  const auto a = static_cast<Algorithm>(algorithm);
  std::mt19937_64 rng(20261202 + algorithm);
  constexpr int kDecisions = 120'000;

  int checked = 0;
  std::int64_t now = 1'700'000'000'000'000;
  Quota q;
  LimiterState s;
  std::deque<std::pair<std::int64_t, std::int64_t>> admittedLog;  // (time, cost)
  std::int64_t inWindow = 0;
  for (int i = 0; i < kDecisions; ++i) {
    if (i % 2'000 == 0) {  // a new key with a new random quota
      q = Quota::perWindow(1 + static_cast<std::int64_t>(rng() % 50),
                           Micros{(1 + static_cast<std::int64_t>(rng() % 5'000)) * 1'000});
      if (rng() % 2) q = q.withRefill(0.25 + static_cast<double>(rng() % 4000) / 100.0);
      QVERIFY(q.validate(a).ok());
      s = freshState(a);
      admittedLog.clear();
      inWindow = 0;
    }
    // Gaps: mostly tiny (bursts), sometimes long idle periods beyond the TTL.
    const auto roll = rng() % 100;
    now += roll < 70 ? static_cast<std::int64_t>(rng() % 2'000)
           : roll < 98 ? static_cast<std::int64_t>(rng() % 300'000)
                       : static_cast<std::int64_t>(rng() % 20'000'000);
    const std::int64_t cost = 1 + static_cast<std::int64_t>(rng() % std::min<std::int64_t>(q.limit, 4));
    const Step step = decide(a, s, Micros{now}, cost, q);
    const Decision& d = step.decision;
    QVERIFY(d.remaining >= 0);
    QVERIFY(d.delay >= Micros{0});
    QVERIFY(d.resetAfter >= Micros{0});
    if (step.wrote) QVERIFY(step.ttl > Micros{0});
    if (d.allowed) {
      QCOMPARE(d.retryAfter, Micros{0});
      if (a == Algorithm::SlidingLog) {
        admittedLog.emplace_back(now, cost);
        inWindow += cost;
        while (admittedLog.front().first <= now - q.window.count()) {
          inWindow -= admittedLog.front().second;
          admittedLog.pop_front();
        }
        QVERIFY2(inWindow <= q.limit, "sliding_log admitted more than the limit in a window");
      }
    } else {
      QVERIFY2(d.retryAfter > Micros{0}, "denial without retryAfter");
      // Retry exactly retryAfter later on a copy of the state: must be admitted.
      LimiterState copy = s;
      const Step retry = decide(a, copy, Micros{now} + d.retryAfter, cost, q);
      QVERIFY2(retry.decision.allowed, qPrintable(QStringLiteral("retry after %1 us denied (decision %2)")
                                                      .arg(d.retryAfter.count()).arg(i)));
      // One microsecond earlier is still too early (retryAfter is the exact minimum).
      if (d.retryAfter > Micros{1}) {
        LimiterState early = s;
        QVERIFY2(!decide(a, early, Micros{now} + d.retryAfter - Micros{1}, cost, q).decision.allowed,
                 "retryAfter is not the minimum wait");
      }
      ++checked;
    }
  }
  QVERIFY2(checked > 1000, "the trace produced too few denials to prove anything");
}

QTEST_APPLESS_MAIN(LimiterProperties)
#include "test_limiter_properties.moc"
