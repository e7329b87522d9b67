// Metrics on hand-made sequences: the sliding-window truth and overshoot,
// nearest-rank percentiles, bin sizes, per-algorithm counts and decimation.

#include <QtTest>

#include "metrics/storm_metrics.hpp"
#include "metrics/window_truth.hpp"

using namespace rl;

namespace {
DecisionFields fieldsOf(std::int64_t atUs, bool allowed, std::uint8_t algo = 0, std::uint32_t client = 0,
                        std::uint32_t latency = 0) {
  DecisionFields r;
  r.intendedUs = atUs;
  r.atUs = atUs;
  r.algorithm = algo;
  r.client = client;
  r.latencyUs = latency;
  r.flags = allowed ? kDecisionAllowed : 0;
  return r;
}

DecisionRecord rec(std::int64_t atUs, bool allowed, std::uint8_t algo = 0, std::uint32_t client = 0,
                   std::uint32_t latency = 0) {
  return DecisionRecord(fieldsOf(atUs, allowed, algo, client, latency));
}
}  // namespace

class StormMetricsTest : public QObject {
  Q_OBJECT
 private slots:
  void windowTruth_data();
  void windowTruth();
  void percentilesNearestRank();
  void binSizes_data();
  void binSizes();
  void overshootPerClientAndAlgorithm();
  void binsCountEveryDecision();
  void decimationKeepsExtremes();
  void recordPacksExactly_data();
  void recordPacksExactly();
  void levelSeriesPerAlgorithmAndClient();
};

void StormMetricsTest::windowTruth_data() {
  QTest::addColumn<QList<qint64>>("times");
  QTest::addColumn<qint64>("window");
  QTest::addColumn<qint64>("expected");
  QTest::newRow("empty") << QList<qint64>{} << qint64(10) << qint64(0);
  QTest::newRow("one") << QList<qint64>{5} << qint64(10) << qint64(1);
  // (t - W, t]: an entry exactly W before t is outside.
  QTest::newRow("edge excluded") << QList<qint64>{0, 10} << qint64(10) << qint64(1);
  QTest::newRow("edge minus one") << QList<qint64>{1, 10} << qint64(10) << qint64(2);
  QTest::newRow("same instant") << QList<qint64>{7, 7, 7, 7} << qint64(1) << qint64(4);
  QTest::newRow("two bursts straddle") << QList<qint64>{59'900, 59'900, 60'100, 60'100} << qint64(60'000) << qint64(4);
  QTest::newRow("spread") << QList<qint64>{0, 3, 6, 9, 12, 15} << qint64(7) << qint64(3);
}

void StormMetricsTest::windowTruth() {
  QFETCH(QList<qint64>, times);
  QFETCH(qint64, window);
  QFETCH(qint64, expected);
  std::vector<std::int64_t> t(times.begin(), times.end());
  QCOMPARE(maxInAnyWindow(t, window), expected);
}

void StormMetricsTest::percentilesNearestRank() {
  std::vector<std::int64_t> v;
  for (int i = 100; i >= 1; --i) v.push_back(i);  // 1..100, reversed
  const LatencySummary s = summarizeLatency(v);
  QCOMPARE(s.p50, 50);
  QCOMPARE(s.p90, 90);
  QCOMPARE(s.p99, 99);
  QCOMPARE(s.max, 100);
  std::vector<std::int64_t> three{30, 10, 20};
  const LatencySummary t = summarizeLatency(three);
  QCOMPARE(t.p50, 20);  // rank ceil(1.5) = 2
  QCOMPARE(t.p90, 30);
  QCOMPARE(t.p99, 30);
  std::vector<std::int64_t> none;
  QCOMPARE(summarizeLatency(none).max, 0);
}

void StormMetricsTest::binSizes_data() {
  QTest::addColumn<qint64>("span");
  QTest::addColumn<qint64>("bin");
  QTest::newRow("instant") << qint64(0) << qint64(1000);
  QTest::newRow("100 ms") << qint64(100'000) << qint64(1000);
  QTest::newRow("1 s") << qint64(1'000'000) << qint64(10'000);
  QTest::newRow("3 s") << qint64(3'000'000) << qint64(50'000);
  QTest::newRow("60 s") << qint64(60'000'000) << qint64(1'000'000);
}

void StormMetricsTest::binSizes() {
  QFETCH(qint64, span);
  QFETCH(qint64, bin);
  QCOMPARE(chooseBinSize(Micros{span}).count(), bin);
}

void StormMetricsTest::overshootPerClientAndAlgorithm() {
  StormSpec spec;
  spec.algorithms = {Algorithm::FixedWindow, Algorithm::SlidingLog};
  spec.quota = Quota::perWindow(2, Micros{1000});
  std::vector<DecisionRecord> r;
  // fixed_window, client 0: 2 at 999 us, 2 at 1001 us -> 4 in (1, 1001]; client 1: 1.
  r.push_back(rec(999, true));
  r.push_back(rec(999, true));
  r.push_back(rec(1001, true));
  r.push_back(rec(1001, true));
  r.push_back(rec(1001, false));
  r.push_back(rec(1001, true, 0, 1));
  // sliding_log: 2 admitted, the rest denied.
  r.push_back(rec(999, true, 1));
  r.push_back(rec(999, true, 1));
  r.push_back(rec(1001, false, 1));
  const auto m = computeMetrics(spec, r, Micros{1'000'000});
  QCOMPARE(m.size(), std::size_t{2});
  QCOMPARE(m[0].offered, 6);
  QCOMPARE(m[0].admitted, 5);
  QCOMPARE(m[0].denied, 1);
  QCOMPARE(m[0].maxAdmittedInWindow, 4);  // per client, not summed over clients
  // Over limit judges a fixed window by its aligned windows: 2 in [0, 1000), 2 in [1000, 2000).
  QCOMPARE(m[0].overshoot, 1.0);
  QCOMPARE(m[0].overLimitAdmitted, 0);
  QCOMPARE(m[1].maxAdmittedInWindow, 2);
  QCOMPARE(m[1].overshoot, 1.0);
  QCOMPARE(m[0].throughputRps, 6.0);
}

void StormMetricsTest::binsCountEveryDecision() {
  StormSpec spec;
  spec.quota = Quota::perWindow(10, kSecond);
  std::vector<DecisionRecord> r;
  for (int i = 0; i < 300; ++i) r.push_back(rec(i * 10'000, i % 3 != 0));  // 0 .. 2.99 s
  const auto m = computeMetrics(spec, r, kSecond);
  QCOMPARE(m[0].binUs, 50'000);  // 2.99 s span -> 50 ms bins
  std::int64_t admitted = 0, denied = 0;
  for (const TimelineBin& b : m[0].bins) {
    admitted += b.admitted;
    denied += b.denied;
  }
  QCOMPARE(admitted, 200);
  QCOMPARE(denied, 100);
  QCOMPARE(m[0].bins.front().admitted + m[0].bins.front().denied, 5);
}

void StormMetricsTest::decimationKeepsExtremes() {
  std::vector<ChartPoint> pts;
  for (int i = 0; i < 10'000; ++i) pts.push_back({i / 1000.0, i == 4321 ? 1000.0 : (i == 777 ? -5.0 : 1.0)});
  const auto d = decimateMinMax(pts, 0, 10, 100);
  QVERIFY(d.size() <= 200);
  QVERIFY(d.size() >= 100);
  bool spike = false, dip = false;
  for (const ChartPoint& p : d) {
    spike |= p.y == 1000.0;
    dip |= p.y == -5.0;
  }
  QVERIFY(spike);
  QVERIFY(dip);
  for (std::size_t i = 1; i < d.size(); ++i) QVERIFY(d[i - 1].x <= d[i].x);
  // Few points: unchanged.
  const std::vector<ChartPoint> few{{0, 1}, {1, 2}, {2, 3}};
  QCOMPARE(decimateMinMax(few, 0, 2, 100).size(), std::size_t{3});
}

void StormMetricsTest::recordPacksExactly_data() {
  QTest::addColumn<qint64>("intended");
  QTest::addColumn<qint64>("delay");
  QTest::addColumn<qint64>("remaining");
  QTest::addColumn<qint64>("retry");
  QTest::addColumn<uint>("latency");
  QTest::addColumn<float>("level");
  QTest::addColumn<uint>("client");
  QTest::addColumn<int>("replica");
  QTest::addColumn<int>("algorithm");
  QTest::addColumn<int>("flags");
  const qint64 maxRun = kMaxRecordedUs - 1;                  // 12.7 days
  const qint64 maxRetry = (qint64{1} << 46) - 1;             // > 2 one-year windows (sliding_counter)
  QTest::newRow("zeros") << qint64{0} << qint64{0} << qint64{0} << qint64{0} << 0u << 0.0f << 0u << 0 << 0 << 0;
  QTest::newRow("admitted, typical") << qint64{1'234'567} << qint64{0} << qint64{41} << qint64{0} << 812u << 41.5f
                                     << 999u << 3 << 2 << int{kDecisionAllowed};
  QTest::newRow("denied, late, error") << qint64{86'400'000'000} << qint64{2'500} << qint64{0} << qint64{999'999}
                                       << 3'000'000u << 0.25f << 17u << 63 << 5 << int{kDecisionError};
  QTest::newRow("upper bounds") << maxRun << qint64{0xfffffffe} << qint64{1'000'000'000'000} << maxRetry
                                << 268'435'455u << 1e12f << 999'999u << 63 << 7 << int{kDecisionAllowed | kDecisionError};
  QTest::newRow("outage decided by policy, cause kept")
      << qint64{9} << qint64{0} << qint64{0} << qint64{1'000} << 100'000u << 0.0f << 2u << 1 << 1
      << int{kDecisionError | kDecisionByPolicy | decisionCauseBits(ErrorCode::Internal)};
  QTest::newRow("cause timeout") << qint64{9} << qint64{0} << qint64{0} << qint64{0} << 1u << 0.0f << 2u << 1 << 1
                                 << int{kDecisionError | decisionCauseBits(ErrorCode::Timeout)};
  QTest::newRow("negative remaining (limit lowered live)")
      << qint64{5} << qint64{1} << qint64{-1'000'000'000'000} << qint64{7} << 1u << -3.0f << 1u << 0 << 0 << 0;
  QTest::newRow("remaining -1") << qint64{5} << qint64{0} << qint64{-1} << qint64{0} << 1u << 0.0f << 1u << 0 << 0 << 0;
}

// 32 bytes, and every consumer's value reads back exactly within the bounds
// the storm spec validates (remaining, retry-after, latency, times, ids).
void StormMetricsTest::recordPacksExactly() {
  static_assert(sizeof(DecisionRecord) == 32);
  QFETCH(qint64, intended);
  QFETCH(qint64, delay);
  QFETCH(qint64, remaining);
  QFETCH(qint64, retry);
  QFETCH(uint, latency);
  QFETCH(float, level);
  QFETCH(uint, client);
  QFETCH(int, replica);
  QFETCH(int, algorithm);
  QFETCH(int, flags);
  DecisionFields f;
  f.intendedUs = intended;
  f.atUs = intended + delay;
  f.remaining = remaining;
  f.retryAfterUs = retry;
  f.latencyUs = latency;
  f.level = level;
  f.client = client;
  f.replica = static_cast<std::uint16_t>(replica);
  f.algorithm = static_cast<std::uint8_t>(algorithm);
  f.flags = static_cast<std::uint8_t>(flags);
  const DecisionRecord r(f);
  QCOMPARE(r.intendedUs(), intended);
  QCOMPARE(r.atUs(), intended + delay);
  QCOMPARE(r.remaining(), remaining);
  QCOMPARE(r.retryAfterUs(), retry);
  QCOMPARE(r.latencyUs(), latency);
  QCOMPARE(r.level(), level);
  QCOMPARE(r.client(), client);
  QCOMPARE(int{r.replica()}, replica);
  QCOMPARE(int{r.algorithm()}, algorithm);
  QCOMPARE(r.allowed(), (flags & kDecisionAllowed) != 0);
  QCOMPARE(r.error(), (flags & kDecisionError) != 0);
  QCOMPARE(r.late(), delay > kLateAfterUs);  // late is a start more than 1 ms after the intended time
  QCOMPARE(r.byPolicy(), (flags & kDecisionByPolicy) != 0);
  const int cause = flags >> kDecisionCauseShift;
  QCOMPARE(r.cause().has_value(), cause != 0);
  if (cause != 0) QCOMPARE(static_cast<int>(*r.cause()), cause - 1);
  QCOMPARE(int{r.fields().flags} & ~int{kDecisionLate}, flags);
  const DecisionFields back = r.fields();
  QCOMPARE(back.remaining, remaining);
  QCOMPARE(back.retryAfterUs, retry);
  QCOMPARE(int{back.flags} & int{kDecisionLate}, delay > kLateAfterUs ? int{kDecisionLate} : 0);
  f.latencyUs = 0xffffffffu;  // past ~268 s the latency saturates and the cause stays
  QCOMPARE(DecisionRecord(f).latencyUs(), 268'435'455u);
  QCOMPARE(DecisionRecord(f).cause().has_value(), cause != 0);
}

void StormMetricsTest::levelSeriesPerAlgorithmAndClient() {
  std::vector<DecisionRecord> r;
  auto add = [&](std::int64_t at, std::uint8_t algo, std::uint32_t client, float level, bool error = false) {
    DecisionFields d = fieldsOf(at, true, algo, client);
    d.level = level;
    if (error) d.flags |= kDecisionError;
    r.push_back(DecisionRecord(d));
  };
  add(2'000'000, 0, 0, 8);
  add(1'000'000, 0, 0, 9);
  add(1'500'000, 0, 1, 3);
  add(1'200'000, 1, 0, 42);
  add(3'000'000, 0, 0, 0, true);  // errors carry no level
  const auto all = levelSeries(r, 0);
  QCOMPARE(all.size(), std::size_t{3});
  QCOMPARE(all[0].x, 1.0);
  QCOMPARE(all[0].y, 9.0);
  QCOMPARE(all[1].x, 1.5);
  QCOMPARE(all[2].y, 8.0);
  const auto one = levelSeries(r, 0, 1);
  QCOMPARE(one.size(), std::size_t{1});
  QCOMPARE(one[0].y, 3.0);
  QCOMPARE(levelSeries(r, 1).front().y, 42.0);
}

QTEST_GUILESS_MAIN(StormMetricsTest)
#include "test_storm_metrics.moc"
