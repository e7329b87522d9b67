// LaneModel and ColumnDecimator: exact points, spans and marks from known samples.

#include <QtTest>

#include "ui/charts/lane_model.hpp"

using namespace rl;
using namespace rl::ui;

namespace {
constexpr std::int64_t ms(std::int64_t v) { return v * 1000; }

std::vector<LaneSample> samples(std::initializer_list<std::pair<std::int64_t, bool>> rows) {
  std::vector<LaneSample> out;
  for (auto [t, allowed] : rows) out.push_back({t, 0.0F, allowed, false});
  return out;
}
}  // namespace

class LaneModelTest : public QObject {
  Q_OBJECT
 private slots:
  void decimatorKeepsMinAndMaxPerColumn();
  void decimatorPassesSparseDataThrough();
  void truthCountsAdmittedInTrailingWindow_data();
  void truthCountsAdmittedInTrailingWindow();
  void lateBatchesAreMergedInTimeOrder();
  void overLimitSpanCoversTheOffendingWindow();
  void overLimitIsPerClientAndShowsTheWorst();
  void consecutiveOversByDecisionAreOneBand();
  void lateBatchesAreJudgedInTimeOrder();
  void rateAlgorithmsMayAdmitLimitPlusRefill();
  void quotaChangeIsMarkedAndUsed();
  void loadJudgesEachLaneByItsOwnQuota();
  void millionSamplesDecimateToTwoPointsPerColumn();
  void incrementalDerivationMatchesOneShot();
  void policyDecisionsCountAsWhatTheyDidAndAsErrors_data();
  void policyDecisionsCountAsWhatTheyDidAndAsErrors();
};

void LaneModelTest::decimatorKeepsMinAndMaxPerColumn() {
  QList<QPointF> out;
  ColumnDecimator d(out, 2, ms(2000));  // two columns of 1 s
  d.add(ms(100), 5);
  d.add(ms(200), 1);   // min after max
  d.add(ms(300), 3);
  d.add(ms(1100), 2);
  d.add(ms(1200), 9);  // max after min
  d.finish();
  const QList<QPointF> expected = {{0.1, 5}, {0.2, 1}, {1.1, 2}, {1.2, 9}};
  QCOMPARE(out, expected);
}

void LaneModelTest::decimatorPassesSparseDataThrough() {
  QList<QPointF> out;
  ColumnDecimator d(out, 1000, ms(1000));
  d.add(ms(10), 1);
  d.add(ms(500), 1);
  d.finish();
  QCOMPARE(out.size(), 2);
  QCOMPARE(out[1], QPointF(0.5, 1));
}

void LaneModelTest::truthCountsAdmittedInTrailingWindow_data() {
  QTest::addColumn<std::int64_t>("windowMs");
  QTest::addColumn<double>("lastAdmittedInWindow");
  QTest::addColumn<double>("lastDeniedInWindow");
  // Samples at 0, 100, 200 ms admitted, 300 ms denied, 1100 ms admitted.
  QTest::newRow("1 s window") << std::int64_t{1000} << 2.0 << 1.0;   // (100, 1100]: 200, 1100 admitted; 300 denied
  QTest::newRow("2 s window") << std::int64_t{2000} << 4.0 << 1.0;
  QTest::newRow("500 ms window") << std::int64_t{500} << 1.0 << 0.0;
}

void LaneModelTest::truthCountsAdmittedInTrailingWindow() {
  QFETCH(std::int64_t, windowMs);
  QFETCH(double, lastAdmittedInWindow);
  QFETCH(double, lastDeniedInWindow);
  LaneModel m;
  m.reset({Algorithm::SlidingLog}, Quota::perWindow(10, Micros{ms(windowMs)}));
  m.push(0, samples({{0, true}, {ms(100), true}, {ms(200), true}, {ms(300), false}, {ms(1100), true}}));
  QVERIFY(m.absorb());
  const LanePoints p = m.build(0, 10'000, ms(2000));
  QCOMPARE(p.admitted, 4);
  QCOMPARE(p.denied, 1);
  QCOMPARE(p.admittedInWindow.back(), QPointF(1.1, lastAdmittedInWindow));
  QCOMPARE(p.deniedInWindow.back(), QPointF(1.1, lastDeniedInWindow));
  QVERIFY(p.overLimit.empty());
  QCOMPARE(p.errors, 0);
  QVERIFY(p.openErrorsInWindow.isEmpty());  // no store errors: no error band
  QVERIFY(p.closedErrorsInWindow.isEmpty());
}

void LaneModelTest::lateBatchesAreMergedInTimeOrder() {
  LaneModel m;
  m.reset({Algorithm::FixedWindow}, Quota::perWindow(10, Micros{ms(1000)}));
  m.push(0, samples({{ms(50), true}, {ms(10), true}}));
  m.push(0, samples({{ms(30), false}, {ms(70), true}}));
  m.absorb();
  const auto& s = m.samples(0);
  QCOMPARE(s.size(), std::size_t{4});
  QCOMPARE(s[0].t, ms(10));
  QCOMPARE(s[1].t, ms(30));
  QCOMPARE(s[2].t, ms(50));
  QCOMPARE(s[3].t, ms(70));
  QCOMPARE(m.lastTime(), ms(70));
  QVERIFY(!m.absorb());  // nothing new
}

void LaneModelTest::overLimitSpanCoversTheOffendingWindow() {
  // Limit 2 per aligned second: 0.9 s alone in [0, 1); 1.0, 1.1 and 1.8 s in [1, 2):
  // only the third of those breaks the limit, so only 1.8 s is marked (0.9 s is
  // inside (0.8, 1.8] but not in its aligned window: a fixed window promises no more).
  LaneModel m;
  m.reset({Algorithm::FixedWindow}, Quota::perWindow(2, Micros{ms(1000)}));
  m.push(0, samples({{ms(900), true}, {ms(1000), true}, {ms(1100), true}, {ms(1800), true}, {ms(3500), true}}));
  m.absorb();
  const LanePoints p = m.build(0, 10'000, ms(4000));
  QCOMPARE(p.overLimit.size(), std::size_t{1});
  QCOMPARE(p.overLimit[0].from, 1.8);
  QCOMPARE(p.overLimit[0].to, 1.8);
  QCOMPARE(p.overAdmitted, 1);
  QCOMPARE(p.peak, 4.0);  // the truth line still shows 4 in the trailing second
}

void LaneModelTest::rateAlgorithmsMayAdmitLimitPlusRefill() {
  // Token bucket 2 per second (one token per 500 ms): a full bucket (2), then one token per
  // 500 ms: 0, 1, 501 and 1001 ms fit (4 x 500 - 1001 = 999 ms of burst <= 1000); a fifth at
  // 1001 ms needs 1499 ms: a leak. So does a fourth at 999 ms (2 x 500 + 999 < 4 x 500).
  LaneModel m;
  m.reset({Algorithm::TokenBucket}, Quota::perWindow(2, Micros{ms(1000)}));
  m.push(0, samples({{0, true}, {ms(1), true}, {ms(501), true}, {ms(1001), true}}));
  m.absorb();
  QVERIFY(m.build(0, 1000, ms(2000)).overLimit.empty());
  m.push(0, samples({{ms(1001), true}}));
  m.absorb();
  QCOMPARE(m.build(0, 1000, ms(2000)).overLimit.size(), std::size_t{1});
  LaneModel early;
  early.reset({Algorithm::TokenBucket}, Quota::perWindow(2, Micros{ms(1000)}));
  early.push(0, samples({{0, true}, {ms(1), true}, {ms(500), true}, {ms(999), true}}));
  early.absorb();
  QCOMPARE(early.build(0, 1000, ms(2000)).overAdmitted, 1);
}

void LaneModelTest::quotaChangeIsMarkedAndUsed() {
  LaneModel m;
  m.reset({Algorithm::SlidingLog}, Quota::perWindow(5, Micros{ms(1000)}));
  m.markQuota(ms(500), Quota::perWindow(1, Micros{ms(1000)}));
  m.push(0, samples({{ms(100), true}, {ms(200), true}, {ms(600), true}}));
  m.absorb();
  const LanePoints p = m.build(0, 1000, ms(1000));
  const QList<QPointF> limit = {{0, 5}, {0.5, 5}, {0.5, 1}, {1.0, 1}};
  QCOMPARE(p.limit, limit);
  QCOMPARE(p.marks, QList<QPointF>({{0.5, 1}}));
  // At 0.6 s three were admitted in the window while the limit was 1: that admission is over.
  QCOMPARE(p.overLimit.size(), std::size_t{1});
  QCOMPARE(p.overLimit[0].from, 0.6);
  QCOMPARE(p.overLimit[0].to, 0.6);
}

void LaneModelTest::consecutiveOversByDecisionAreOneBand() {
  // A burst drawn by decision number: limit 2 per second, 6 admitted at the same µs. Decisions
  // 2..5 are over; with 10 decisions over 10,000 columns the column gap is 0, so only the
  // one-decision floor makes them one band [2, 5] (in the lane's x unit, decision / 1e6).
  LaneModel m;
  m.reset({Algorithm::SlidingLog}, Quota::perWindow(2, Micros{ms(1000)}));
  m.push(0, samples({{0, true}, {0, true}, {0, true}, {0, true}, {0, true}, {0, true}, {0, false}}));
  m.absorb();
  const LanePoints p = m.build(0, 10'000, 10, -1, true);
  QCOMPARE(p.overAdmitted, 4);
  QCOMPARE(p.overLimit.size(), std::size_t{1});
  QCOMPARE(p.overLimit[0].from, 2e-6);
  QCOMPARE(p.overLimit[0].to, 5e-6);
}

void LaneModelTest::loadJudgesEachLaneByItsOwnQuota() {
  // Two runs side by side (the run history's comparison): the same 10 admissions in one
  // second, one run at limit 4, the other at limit 20 that changed to 6 at 500 ms.
  std::vector<LaneRun> runs(2);
  for (LaneRun& r : runs) {
    r.algorithm = Algorithm::SlidingLog;
    for (std::int64_t t = 0; t < 10; ++t) r.samples.push_back({ms(10 + 100 * t), 0.0F, true, false, 0});
  }
  runs[0].marks = {{0, Quota::perWindow(4, Micros{ms(1000)})}};
  runs[1].marks = {{0, Quota::perWindow(20, Micros{ms(1000)})}, {ms(500), Quota::perWindow(6, Micros{ms(1000)})}};
  LaneModel m;
  m.load(runs);
  QCOMPARE(m.algorithms().size(), std::size_t{2});
  QCOMPARE(m.totals(0).admitted, 10);
  QCOMPARE(m.totals(1).admitted, 10);
  const LanePoints four = m.build(0, 1000, ms(1000));
  const LanePoints changed = m.build(1, 1000, ms(1000));
  QCOMPARE(four.overAdmittedAll, 6);     // the 5th to the 10th are over 4
  QCOMPARE(changed.overAdmittedAll, 4);  // from 500 ms on the limit is 6: the 7th to the 10th
  QCOMPARE(four.limit.front().y(), 4.0);
  QCOMPARE(changed.limit.front().y(), 20.0);
  QCOMPARE(changed.limit.back().y(), 6.0);
  QCOMPARE(changed.marks.size(), 1);
  QCOMPARE(m.quotaMarks(1).size(), std::size_t{2});
  QCOMPARE(m.quotaMarks(0).size(), std::size_t{1});
}

void LaneModelTest::overLimitIsPerClientAndShowsTheWorst() {
  // Limit 2 per second, sliding log. Clients 0 and 1 admit 2 each (the sum, 4, is no
  // leak); client 2 admits 3 in one second: it is the worst, and the lane shows it.
  LaneModel m;
  m.reset({Algorithm::SlidingLog}, Quota::perWindow(2, Micros{ms(1000)}));
  std::vector<LaneSample> batch;
  for (std::uint32_t c = 0; c < 2; ++c)
    for (std::int64_t t : {100, 200}) batch.push_back({ms(t) + c, 0.0F, true, false, c});
  for (std::int64_t t : {300, 400, 500}) batch.push_back({ms(t), 0.0F, true, false, 2});
  m.push(0, batch);
  m.absorb();
  QCOMPARE(m.worstClient(0), 2u);
  const LanePoints worst = m.build(0, 1000, ms(1000));
  QCOMPARE(worst.client, 2u);
  QCOMPARE(worst.clients, std::size_t{3});
  QVERIFY(!worst.picked);
  QCOMPARE(worst.admitted, 3);  // the worst client's own decisions
  QCOMPARE(worst.overAdmitted, 1);
  QCOMPARE(worst.overAdmittedAll, 1);
  QCOMPARE(worst.admittedInWindow.back(), QPointF(0.5, 3));
  const LanePoints zero = m.build(0, 1000, ms(1000), 0);
  QVERIFY(zero.picked);
  QCOMPARE(zero.admitted, 2);
  QVERIFY(zero.overLimit.empty());
  QCOMPARE(zero.peak, 2.0);  // never above its limit
}

void LaneModelTest::lateBatchesAreJudgedInTimeOrder() {
  // Two workers' batches overlap in time: the judgement must equal one made in order.
  LaneModel m;
  m.reset({Algorithm::Gcra}, Quota::perWindow(3, Micros{ms(300)}));
  std::vector<LaneSample> a;
  std::vector<LaneSample> b;
  for (std::int64_t t = 0; t < 2000; t += 20) (t % 40 == 0 ? a : b).push_back({ms(t), 0.0F, true, false, 0});
  m.push(0, a);
  m.absorb();
  m.push(0, b);  // every one of these lands among judged samples
  m.absorb();
  LaneModel inOrder;
  inOrder.reset({Algorithm::Gcra}, Quota::perWindow(3, Micros{ms(300)}));
  std::vector<LaneSample> all = a;
  all.insert(all.end(), b.begin(), b.end());
  std::sort(all.begin(), all.end(), [](const LaneSample& x, const LaneSample& y) { return x.t < y.t; });
  inOrder.push(0, all);
  inOrder.absorb();
  const LanePoints p = m.build(0, 100'000, ms(2000));
  const LanePoints q = inOrder.build(0, 100'000, ms(2000));
  QCOMPARE(p.overAdmitted, q.overAdmitted);
  QCOMPARE(p.overLimit.size(), q.overLimit.size());
  // Burst 3, one per 100 ms: the n-th admission 20 ms apart needs n x 100 - 20 (n - 1) ms
  // of burst, over 300 ms from n = 4 on: 97 of the 100.
  QCOMPARE(q.overAdmitted, 97);
  // A late batch inside the checkpoint's reach (the last 250 ms) is judged the same way.
  std::vector<LaneSample> c;
  std::vector<LaneSample> d;
  for (std::int64_t t = 2000; t < 2200; t += 20) (t % 40 == 0 ? c : d).push_back({ms(t), 0.0F, true, false, 0});
  m.push(0, c);
  m.absorb();
  m.push(0, d);
  m.absorb();
  QCOMPARE(m.build(0, 100'000, ms(2200)).overAdmitted, 107);
}

void LaneModelTest::millionSamplesDecimateToTwoPointsPerColumn() {
  LaneModel m;
  m.reset({Algorithm::SlidingLog}, Quota::perWindow(100, Micros{ms(1000)}));
  std::vector<LaneSample> batch;
  batch.reserve(1'000'000);
  for (int i = 0; i < 1'000'000; ++i) batch.push_back({i * 10LL, static_cast<float>(i % 100), i % 3 != 0, false});
  m.push(0, std::move(batch));
  m.absorb();
  const LanePoints p = m.build(0, 800, 10'000'000);
  QCOMPARE(p.admitted, 666'666);
  QCOMPARE(p.denied, 333'334);
  QVERIFY(p.admittedInWindow.size() <= 2 * 800);
  QCOMPARE(p.level.size(), std::size_t{1});  // no store errors: one piece
  QVERIFY(p.level.front().size() <= 2 * 800);
  QVERIFY(p.admittedInWindow.size() >= 800);
}

void LaneModelTest::incrementalDerivationMatchesOneShot() {
  // Live: batches arrive with absorbs between them, one late batch lands in the
  // middle, and a quota change is recorded after samples past it were absorbed.
  // The result must equal the same data absorbed at once.
  std::vector<LaneSample> all;
  for (int i = 0; i < 3000; ++i) all.push_back({ms(i), static_cast<float>(i % 7), i % 4 != 0, i % 97 == 0});
  const Quota start = Quota::perWindow(300, Micros{ms(500)});
  const Quota tuned = Quota::perWindow(100, Micros{ms(800)});
  LaneModel live;
  live.reset({Algorithm::SlidingLog}, start);
  std::vector<LaneSample> early(all.begin(), all.begin() + 1000), late(all.begin() + 1000, all.begin() + 1200),
      rest(all.begin() + 1200, all.end());
  live.push(0, early);
  live.absorb();
  live.push(0, rest);
  live.absorb();
  live.push(0, late);  // arrives after later samples: merged in the middle
  QVERIFY(live.absorb());
  live.markQuota(ms(1500), tuned);  // recorded after samples past it were absorbed
  QVERIFY(live.absorb());
  LaneModel once;
  once.reset({Algorithm::SlidingLog}, start);
  once.markQuota(ms(1500), tuned);
  once.push(0, all);
  once.absorb();
  const LanePoints a = live.build(0, 3000, ms(3000));
  const LanePoints b = once.build(0, 3000, ms(3000));
  QCOMPARE(a.admittedInWindow, b.admittedInWindow);
  QCOMPARE(a.deniedInWindow, b.deniedInWindow);
  QCOMPARE(a.admitted, b.admitted);
  QCOMPARE(a.errors, 31);  // i % 97 == 0 for i < 3000
  QCOMPARE(a.closedErrors, 8);  // of those, i % 4 == 0 (denied): 0, 388, 776, ..., 2716
  QCOMPARE(a.openErrorsInWindow, b.openErrorsInWindow);
  QCOMPARE(a.closedErrorsInWindow, b.closedErrorsInWindow);
  QCOMPARE(a.overLimit.size(), b.overLimit.size());
  QVERIFY(!a.overLimit.empty());  // 100 per 800 ms is below the 3-in-4 per ms offered
  QCOMPARE(a.overLimit.front().from, b.overLimit.front().from);
  QCOMPARE(a.marks, QList<QPointF>({{1.5, 100}}));
}

void LaneModelTest::policyDecisionsCountAsWhatTheyDidAndAsErrors_data() {
  // Fixed window, 3 per second. Redis answers at 0, 100, 200 ms (admitted) and
  // 300 ms (denied), then is down: the failure policy decides at 1000..1400 ms.
  QTest::addColumn<bool>("failOpen");
  QTest::addColumn<double>("lastAdmittedInWindow");
  QTest::addColumn<double>("lastDeniedInWindow");
  QTest::addColumn<std::int64_t>("admitted");
  QTest::addColumn<std::int64_t>("denied");
  QTest::addColumn<std::size_t>("overLimitSpans");
  // Fail-open: the five policy admissions fill (400, 1400] with 5 > 3: over the limit, unprotected.
  QTest::newRow("fail-open") << true << 5.0 << 0.0 << std::int64_t{8} << std::int64_t{1} << std::size_t{2};
  // Fail-closed: the gap turns into five denials; nothing over the limit.
  QTest::newRow("fail-closed") << false << 0.0 << 5.0 << std::int64_t{3} << std::int64_t{6} << std::size_t{0};
}

void LaneModelTest::policyDecisionsCountAsWhatTheyDidAndAsErrors() {
  QFETCH(bool, failOpen);
  QFETCH(double, lastAdmittedInWindow);
  QFETCH(double, lastDeniedInWindow);
  QFETCH(std::int64_t, admitted);
  QFETCH(std::int64_t, denied);
  QFETCH(std::size_t, overLimitSpans);
  LaneModel m;
  m.reset({Algorithm::FixedWindow}, Quota::perWindow(3, Micros{ms(1000)}));
  std::vector<LaneSample> batch = samples({{0, true}, {ms(100), true}, {ms(200), true}, {ms(300), false}});
  for (std::int64_t t = 1000; t <= 1400; t += 100) batch.push_back({ms(t), 0.0F, failOpen, true});
  m.push(0, batch);
  m.absorb();
  const LanePoints p = m.build(0, 10'000, ms(2000));  // one column per sample: exact points
  QCOMPARE(p.admitted, admitted);
  QCOMPARE(p.denied, denied);
  QCOMPARE(p.errors, 5);
  QCOMPARE(p.openErrors, failOpen ? 5 : 0);
  QCOMPARE(p.closedErrors, failOpen ? 0 : 5);
  QCOMPARE(p.admittedInWindow.back(), QPointF(1.4, lastAdmittedInWindow));
  QCOMPARE(p.deniedInWindow.back(), QPointF(1.4, lastDeniedInWindow));
  // The policy's decisions in the trailing window: 0 before the outage, then 1, 2, ... 5.
  const QList<QPointF> band = {{0, 0}, {0.1, 0}, {0.2, 0}, {0.3, 0}, {1.0, 1}, {1.1, 2}, {1.2, 3}, {1.3, 4}, {1.4, 5}};
  QCOMPARE(failOpen ? p.openErrorsInWindow : p.closedErrorsInWindow, band);
  QVERIFY((failOpen ? p.closedErrorsInWindow : p.openErrorsInWindow).isEmpty());
  QCOMPARE(p.overLimit.size(), overLimitSpans);
  QCOMPARE(p.level.size(), std::size_t{1});  // the level stops where the store failed (it has none)
  QCOMPARE(p.level.front().back().x(), 0.3);
  if (failOpen) {  // the 4th and 5th admissions of the window [1, 2) s, each its own instant
    QCOMPARE(p.overLimit[0].from, 1.3);
    QCOMPARE(p.overLimit[1].to, 1.4);
  }
}

QTEST_GUILESS_MAIN(LaneModelTest)
#include "test_lane_model.moc"
