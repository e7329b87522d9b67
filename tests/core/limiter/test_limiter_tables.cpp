// Tables of time: rows of (now, cost -> allowed, remaining, retryAfter, resetAfter,
// delay) for each algorithm's pure math, against exact numbers.

#include <QtTest>

#include "limiter/limiter_state.hpp"

using namespace rl;

namespace {
Micros ms(std::int64_t v) { return Micros{v * 1000}; }
Micros sec(double v) { return Micros{static_cast<std::int64_t>(v * 1e6)}; }
}  // namespace

class LimiterTables : public QObject {
  Q_OBJECT
 private slots:
  void fixedWindowStraddlesBoundary();
  void slidingLogHoldsTheLimitAcrossBoundary();
  void slidingCounterEstimate();
  void slidingCounterDeniesThenAdmits();
  void tokenBucketBurstThenRefill();
  void tokenBucketClockBehindAdmitsNoMore();
  void gcraBurstFive();
  void leakyBucketShapes();
  void table_data();
  void table();
  void ttlEdgeCapacityOneRefillThree();
  void tokenBucketKeepsTokensAcrossQuotaChange();
  void leakyBucketKeepsQueueAcrossQuotaChange();
  void gcraKeepsTatAcrossQuotaChange();
};

void LimiterTables::fixedWindowStraddlesBoundary() {
  // 100 per 60 s, windows aligned to the clock: 100 at 59.9 s and 100 at 60.1 s.
  const Quota q = Quota::perWindow(100, sec(60));
  LimiterState s = freshState(Algorithm::FixedWindow);
  int admitted = 0;
  for (int i = 0; i < 100; ++i) admitted += decide(Algorithm::FixedWindow, s, ms(59'900), 1, q).decision.allowed;
  for (int i = 0; i < 100; ++i) admitted += decide(Algorithm::FixedWindow, s, ms(60'100), 1, q).decision.allowed;
  QCOMPARE(admitted, 200);
  // The 201st in the second window is denied until the window ends at 120 s.
  const Step denied = decide(Algorithm::FixedWindow, s, ms(60'100), 1, q);
  QVERIFY(!denied.decision.allowed);
  QCOMPARE(denied.decision.retryAfter, ms(59'900));
  QCOMPARE(denied.decision.remaining, 0);
}

void LimiterTables::slidingLogHoldsTheLimitAcrossBoundary() {
  const Quota q = Quota::perWindow(100, sec(60));
  LimiterState s = freshState(Algorithm::SlidingLog);
  int admitted = 0;
  Step last;
  for (int i = 0; i < 100; ++i) admitted += decide(Algorithm::SlidingLog, s, ms(59'900), 1, q).decision.allowed;
  for (int i = 0; i < 100; ++i) {
    last = decide(Algorithm::SlidingLog, s, ms(60'100), 1, q);
    admitted += last.decision.allowed;
  }
  QCOMPARE(admitted, 100);
  // The oldest entry (59.9 s) leaves the window at 119.9 s.
  QCOMPARE(last.decision.retryAfter, ms(119'900 - 60'100));
}

void LimiterTables::slidingCounterEstimate() {
  QCOMPARE(slidingEstimate(42, 18, sec(15), sec(60)), 49.5);
  const Quota q = Quota::perWindow(100, sec(60));
  SlidingCounterState s{sec(60).count(), 42, 18};
  const Step step = decide(s, sec(75), 1, q);
  QVERIFY(step.decision.allowed);
  QCOMPARE(step.decision.level, 50.5);
  QCOMPARE(step.decision.remaining, 49);  // floor(100 - 50.5)
}

void LimiterTables::slidingCounterDeniesThenAdmits() {
  const Quota q = Quota::perWindow(100, sec(60));
  // Previous window 40, current 80: estimate at 30 s = 40 * 0.5 + 80 = 100 -> denied.
  SlidingCounterState s{sec(60).count(), 40, 80};
  const Step denied = decide(s, sec(90), 1, q);
  QVERIFY(!denied.decision.allowed);
  QCOMPARE(denied.decision.level, 100.0);
  // Admitted once 40 * (60 - e) / 60 <= 19, i.e. e >= 31.5 s: retryAfter = 1.5 s.
  QCOMPARE(denied.decision.retryAfter, ms(1'500));
  // At 40 s: 40 * 20/60 + 80 = 93.3 -> admitted.
  SlidingCounterState s2{sec(60).count(), 40, 80};
  QVERIFY(decide(s2, sec(100), 1, q).decision.allowed);
  QCOMPARE(s2.current, 81);
}

void LimiterTables::tokenBucketBurstThenRefill() {
  const Quota q = Quota::perSecond(1).withBurst(10);
  QCOMPARE(q.interval(), sec(1));
  TokenBucketState s;
  for (int i = 0; i < 10; ++i) {
    const Step st = decide(s, Micros{0}, 1, q);
    QVERIFY(st.decision.allowed);
    QCOMPARE(st.decision.remaining, 9 - i);
  }
  const Step eleventh = decide(s, Micros{0}, 1, q);
  QVERIFY(!eleventh.decision.allowed);
  QVERIFY(eleventh.decision.retryAfter > Micros{0});
  QVERIFY(eleventh.decision.retryAfter <= sec(1));
  QCOMPARE(eleventh.decision.resetAfter, sec(10));
  QVERIFY(decide(s, sec(1), 1, q).decision.allowed);
  QVERIFY(!decide(s, sec(1), 1, q).decision.allowed);
}

void LimiterTables::tokenBucketClockBehindAdmitsNoMore() {
  // Burst 5, one token per second. 3 taken at 10 s: the bucket is full at 13 s.
  const Quota q = Quota::perSecond(1).withBurst(5);
  TokenBucketState s;
  for (int i = 0; i < 3; ++i) QVERIFY(decide(s, sec(10), 1, q).decision.allowed);
  QCOMPARE(s.fullAt, sec(13).count());
  // A clock 1.5 s behind sees 4.5 s of refill missing: 0 whole tokens (2 at 10 s).
  TokenBucketState behind = s;
  const Step st = decide(behind, ms(8'500), 1, q);
  QVERIFY(!st.decision.allowed);
  QCOMPARE(st.decision.remaining, 0);
  QCOMPARE(st.decision.retryAfter, ms(500));
  // Clocks 0.5 s behind and on time, in turn: together they take the 2 left, no more.
  int admitted = 0;
  for (int i = 0; i < 6; ++i) admitted += decide(s, i % 2 ? sec(10) : ms(9'500), 1, q).decision.allowed;
  QCOMPARE(admitted, 2);
  QCOMPARE(decide(s, sec(10), 1, q).decision.remaining, 0);
}

void LimiterTables::gcraBurstFive() {
  const Quota q = Quota::perSecond(1).withBurst(5);
  GcraState s;
  for (int i = 0; i < 5; ++i) {
    const Step st = decide(s, Micros{0}, 1, q);
    QVERIFY(st.decision.allowed);
    QCOMPARE(st.decision.remaining, 4 - i);
  }
  const Step sixth = decide(s, Micros{0}, 1, q);
  QVERIFY(!sixth.decision.allowed);
  QCOMPARE(sixth.decision.retryAfter, sec(1));
  QVERIFY(decide(s, sec(1), 1, q).decision.allowed);
}

void LimiterTables::leakyBucketShapes() {
  const Quota q = Quota::perSecond(1).withBurst(5);  // leak 1/s, at most 5 at once: 1 in service + 4 waiting
  LeakyBucketState s;
  QList<std::int64_t> delays;
  int denied = 0;
  for (int i = 0; i < 7; ++i) {
    const Step st = decide(s, Micros{0}, 1, q);
    if (st.decision.allowed)
      delays << st.decision.delay.count() / 1'000'000;
    else
      ++denied;
  }
  QCOMPARE(delays, (QList<std::int64_t>{0, 1, 2, 3, 4}));  // limit 5 admits 5, not 6 (nginx burst=4)
  QCOMPARE(denied, 2);
}

// Generic table: one key, rows applied in order.
void LimiterTables::table_data() {
  QTest::addColumn<QString>("algorithm");
  QTest::addColumn<qint64>("limit");
  QTest::addColumn<qint64>("windowMs");
  QTest::addColumn<double>("refill");  // 0 = limit per window
  // rows: now ms, cost, allowed, remaining, retryAfter ms, resetAfter ms, delay ms
  QTest::addColumn<QList<QList<qint64>>>("rows");

  QTest::newRow("fixed_window 3/1s") << "fixed_window" << 3LL << 1000LL << 0.0
      << QList<QList<qint64>>{{0, 1, 1, 2, 0, 1000, 0}, {500, 2, 1, 0, 0, 500, 0},
                               {900, 1, 0, 0, 100, 100, 0}, {1000, 3, 1, 0, 0, 1000, 0},
                               {2500, 1, 1, 2, 0, 500, 0}};
  QTest::newRow("sliding_log 2/1s cost") << "sliding_log" << 2LL << 1000LL << 0.0
      << QList<QList<qint64>>{{0, 1, 1, 1, 0, 1000, 0}, {400, 1, 1, 0, 0, 1000, 0},
                               {999, 1, 0, 0, 1, 401, 0}, {1000, 1, 1, 0, 0, 1000, 0},
                               {1000, 2, 0, 0, 1000, 1000, 0}, {1400, 2, 0, 1, 600, 600, 0}};
  QTest::newRow("sliding_counter 10/1s") << "sliding_counter" << 10LL << 1000LL << 0.0
      << QList<QList<qint64>>{{0, 10, 1, 0, 0, 2000, 0}, {500, 1, 0, 0, 600, 1500, 0},
                               {1000, 1, 0, 0, 100, 1000, 0}, {1100, 1, 1, 0, 0, 1900, 0},
                               {1500, 4, 1, 0, 0, 1500, 0}};
  QTest::newRow("token_bucket 2 @ 4/s") << "token_bucket" << 2LL << 1000LL << 4.0
      << QList<QList<qint64>>{{0, 2, 1, 0, 0, 500, 0}, {100, 1, 0, 0, 150, 400, 0},
                               {250, 1, 1, 0, 0, 500, 0}, {1000, 2, 1, 0, 0, 500, 0},
                               {1100, 2, 0, 0, 400, 400, 0}};
  QTest::newRow("gcra 2 @ 4/s") << "gcra" << 2LL << 1000LL << 4.0
      << QList<QList<qint64>>{{0, 2, 1, 0, 0, 500, 0}, {100, 1, 0, 0, 150, 400, 0},
                               {250, 1, 1, 0, 0, 500, 0}, {1000, 2, 1, 0, 0, 500, 0}};
  QTest::newRow("leaky_bucket 2 @ 4/s") << "leaky_bucket" << 2LL << 1000LL << 4.0
      << QList<QList<qint64>>{{0, 1, 1, 1, 0, 250, 0}, {0, 1, 1, 0, 0, 500, 250},
                               {0, 1, 0, 0, 250, 500, 0}, {250, 2, 0, 1, 250, 250, 0},
                               {500, 1, 1, 1, 0, 250, 0}};
}

void LimiterTables::table() {
  QFETCH(QString, algorithm);
  QFETCH(qint64, limit);
  QFETCH(qint64, windowMs);
  QFETCH(double, refill);
  QFETCH(QList<QList<qint64>>, rows);
  const Algorithm a = *parseAlgorithm(algorithm.toStdString());
  Quota q = Quota::perWindow(limit, ms(windowMs));
  if (refill > 0) q = q.withRefill(refill);
  QVERIFY(q.validate(a).ok());
  LimiterState s = freshState(a);
  for (int i = 0; i < rows.size(); ++i) {
    const auto& r = rows[i];
    const Decision d = decide(a, s, ms(r[0]), r[1], q).decision;
    const QString where = QStringLiteral("row %1 (t=%2 ms, cost %3)").arg(i).arg(r[0]).arg(r[1]);
    QVERIFY2(d.allowed == (r[2] != 0), qPrintable(where + " allowed"));
    QVERIFY2(d.remaining == r[3], qPrintable(where + QStringLiteral(" remaining %1").arg(d.remaining)));
    QVERIFY2(d.retryAfter == ms(r[4]), qPrintable(where + QStringLiteral(" retryAfter %1 us").arg(d.retryAfter.count())));
    QVERIFY2(d.resetAfter == ms(r[5]), qPrintable(where + QStringLiteral(" resetAfter %1 us").arg(d.resetAfter.count())));
    QVERIFY2(d.delay == ms(r[6]), qPrintable(where + QStringLiteral(" delay %1 us").arg(d.delay.count())));
    QCOMPARE(d.limit, limit);
  }
}

void LimiterTables::ttlEdgeCapacityOneRefillThree() {
  const Quota q = Quota::perSecond(1).withRefill(3);  // capacity 1, refill 3/s
  for (Algorithm a : kAllAlgorithms) {
    LimiterState s = freshState(a);
    const Step st = decide(a, s, sec(1000), 1, q);
    QVERIFY2(st.wrote, algorithmName(a).data());
    QVERIFY2(st.ttl > Micros{0}, algorithmName(a).data());
    QVERIFY2(ceilMillis(st.ttl) > 0, algorithmName(a).data());
  }
  TokenBucketState tb;
  QCOMPARE(decide(tb, Micros{0}, 1, q).ttl, Micros{333'333});
}

void LimiterTables::tokenBucketKeepsTokensAcrossQuotaChange() {
  // 10 tokens at 1/s; 6 taken at 0 s: 4 left, full at 6 s. At 0.5 s the
  // bucket holds 4.5 tokens; the refill goes to 10/s: it still holds 4.5
  // (4 whole, half of the next), now 450 ms of 1 s capacity.
  const Quota slow = Quota::perSecond(1).withBurst(10);
  const Quota fast = Quota::perSecond(10).withBurst(10);
  TokenBucketState s;
  for (int i = 0; i < 6; ++i) QVERIFY(decide(s, Micros{0}, 1, slow).decision.allowed);
  QCOMPARE(s.fullAt, sec(6).count());
  QCOMPARE(fullAtUnder(s, ms(500).count(), fast.interval().count(), 10), ms(1050).count());
  const Decision d = decide(s, ms(500), 1, fast).decision;
  QVERIFY(d.allowed);
  QCOMPARE(d.remaining, 3);           // 3.5 tokens left
  QCOMPARE(d.resetAfter, ms(650));    // 6.5 tokens x 100 ms
  QCOMPARE(s.interval, ms(100).count());
  QCOMPARE(s.limit, 10);
  // The old quota's reading would have been 5 s of refill missing: a debt of
  // 50 tokens at 10/s, so every request denied for 4 s (the bug this fixes).
  // Clamped: 8 tokens under a capacity cut to 5 keep 5.
  TokenBucketState c;
  for (int i = 0; i < 2; ++i) QVERIFY(decide(c, Micros{0}, 1, slow).decision.allowed);
  const Quota small = Quota::perSecond(1).withBurst(5);
  int admitted = 0;
  for (int i = 0; i < 8; ++i) admitted += decide(c, Micros{0}, 1, small).decision.allowed;
  QCOMPARE(admitted, 5);
  // A full bucket (or a fresh key) is full under any quota.
  TokenBucketState full{sec(6).count(), sec(1).count(), 10};
  QCOMPARE(fullAtUnder(full, sec(7).count(), 1000, 50), sec(7).count());
}

void LimiterTables::leakyBucketKeepsQueueAcrossQuotaChange() {
  // 5 queued at 1/s: drains at 5 s. At 0.5 s 4.5 are left; the drain goes to
  // 10/s (and room to 10): the same 4.5 drain in 450 ms, so the next request
  // waits 450 ms. Under room 5 it is denied: 4.5 are still queued.
  const Quota slow = Quota::perSecond(1).withBurst(5);
  const Quota fast = Quota::perSecond(10).withBurst(10);
  LeakyBucketState probe;
  for (int i = 0; i < 5; ++i) QVERIFY(decide(probe, Micros{0}, 1, slow).decision.allowed);
  QVERIFY(!decide(probe, ms(500), 1, Quota::perSecond(10).withBurst(5)).decision.allowed);
  LeakyBucketState s;
  for (int i = 0; i < 5; ++i) QVERIFY(decide(s, Micros{0}, 1, slow).decision.allowed);
  QCOMPARE(s.drainAt, sec(5).count());
  const Decision d = decide(s, ms(500), 1, fast).decision;
  QVERIFY(d.allowed);
  QCOMPARE(d.delay, ms(450));
  QCOMPARE(s.drainAt, ms(1050).count());
  QCOMPARE(s.interval, ms(100).count());
}

void LimiterTables::gcraKeepsTatAcrossQuotaChange() {
  // GCRA keeps its theoretical arrival time (as go-redis/redis_rate and
  // redis-cell do): 5 at 0 s put the TAT at 5 s. Raising the rate to 10/s
  // shrinks the tolerance to 500 ms, so at 1 s the client is 4 s ahead:
  // denied until 5.1 - 0.5 = 4.6 s, although the new quota alone would admit.
  const Quota slow = Quota::perSecond(1).withBurst(5);
  const Quota fast = Quota::perSecond(10).withBurst(5);
  GcraState s;
  for (int i = 0; i < 5; ++i) QVERIFY(decide(s, Micros{0}, 1, slow).decision.allowed);
  QCOMPARE(s.tat, sec(5).count());
  const Decision d = decide(s, sec(1), 1, fast).decision;
  QVERIFY(!d.allowed);
  QCOMPARE(d.retryAfter, ms(3600));
  QVERIFY(decide(s, ms(4600), 1, fast).decision.allowed);
}

QTEST_APPLESS_MAIN(LimiterTables)
#include "test_limiter_tables.moc"
