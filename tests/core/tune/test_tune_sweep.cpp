// The tune sweep: every grid point equals a plain virtual-clock storm on the
// memory store with that quota, decision for decision; then the
// recommendation, the Pareto front, legit selection, grids and cancel.
#include <QtTest>

#include <map>
#include <random>

#include "storm/store_factory.hpp"
#include "storm/storm_runner.hpp"
#include "tune/tune_sweep.hpp"
#include "support/checked.hpp"

using namespace rl;

namespace {

constexpr std::int64_t kT0 = 1'700'000'000'000'000;

// 30 clients: most send a few requests a second, clients 0 and 1 hammer in bursts
// (several requests on one microsecond), over 20 s; costs 1 except client 2 (cost 2).
SharedTrace syntheticTrace() {
  auto t = std::make_shared<Trace>();
  std::mt19937_64 rng(7);
  for (int c = 0; c < 30; ++c) t->keys.push_back("key-" + std::to_string(c));
  for (std::int64_t ms = 0; ms < 20'000; ms += 5) {
    for (std::uint32_t c = 0; c < 30; ++c) {
      const bool abuser = c < 2;
      if (rng() % (abuser ? 4 : 150) != 0) continue;
      const int burst = abuser && rng() % 10 == 0 ? 6 : 1;
      for (int b = 0; b < burst; ++b)
        t->requests.push_back({kT0 + ms * 1000 + static_cast<std::int64_t>(rng() % 5000), c, c == 2 ? 2u : 1u});
    }
  }
  std::stable_sort(t->requests.begin(), t->requests.end(),
                   [](const TraceRequest& a, const TraceRequest& b) { return a.timeUs < b.timeUs; });
  t->path = "synthetic";
  return t;
}

// Per client, the run's decisions in decision order.
Result<std::map<std::uint32_t, std::vector<int>>> runDecisions(const SharedTrace& trace, Algorithm a, const Quota& q) {
  StormSpec spec;
  spec.algorithms = {a};
  spec.quota = q;
  spec.trace.path = trace->path;
  spec.traceData = trace;
  spec.clients = static_cast<int>(trace->keys.size());
  // One sender: a client's requests on the same microsecond (the bursts) are
  // then decided in trace order, as the sweep decides them. With two senders
  // two of them race, and which one the store saw first is a coin toss.
  spec.concurrency = 1;
  auto outcome = runStorm(spec, memoryStoreFactory(1));
  if (!outcome) return outcome.error();
  std::map<std::uint32_t, std::vector<int>> out;
  for (const DecisionRecord& r : outcome->records) out[r.client()].push_back(r.allowed() ? 1 : 0);
  return out;
}

std::map<std::uint32_t, std::vector<int>> tuneDecisions(const Trace& trace, const std::vector<std::uint8_t>& allowed) {
  std::map<std::uint32_t, std::vector<int>> out;
  for (std::size_t i = 0; i < trace.requests.size(); ++i) out[trace.requests[i].client].push_back(allowed[i]);
  return out;
}

}  // namespace

class TestTuneSweep : public QObject {
  Q_OBJECT
 private slots:
  void pointEqualsPlainRun_data();
  void pointEqualsPlainRun();
  void sweepRecommendsSmallestQuotaMeetingTarget();
  void legitByPercentileAndKeys();
  void peakDistribution();
  void gridsAndTargetsNameTheirFlag();
  void cancelKeepsComputedPoints();
};

void TestTuneSweep::pointEqualsPlainRun_data() {
  QTest::addColumn<int>("algorithm");
  QTest::addColumn<qint64>("limit");
  QTest::addColumn<qint64>("windowMs");
  QTest::addColumn<double>("refill");
  for (Algorithm a : kAllAlgorithms) {
    const QByteArray name(algorithmName(a).data(), static_cast<int>(algorithmName(a).size()));
    QTest::newRow((name + " 5/1s").constData()) << int(a) << qint64(5) << qint64(1000) << 0.0;
    QTest::newRow((name + " 20/10s").constData()) << int(a) << qint64(20) << qint64(10000) << 0.0;
    if (isRateBased(a)) QTest::newRow((name + " burst 8 at 2.5/s").constData()) << int(a) << qint64(8) << qint64(1000) << 2.5;
  }
}

void TestTuneSweep::pointEqualsPlainRun() {
  QFETCH(int, algorithm);
  QFETCH(qint64, limit);
  QFETCH(qint64, windowMs);
  QFETCH(double, refill);
  const auto a = static_cast<Algorithm>(algorithm);
  Quota q = Quota::perWindow(limit, Micros{windowMs * 1000});
  if (refill > 0) q = q.withRefill(refill);
  const SharedTrace trace = syntheticTrace();
  const ClientStreams s = groupByClient(*trace);
  std::vector<std::uint8_t> allowed;
  const std::vector<char> legit(trace->keys.size(), 1);
  const PointOutcome o = evaluatePoint(s, legit, a, q, kSecond, &allowed);
  RL_CHECKED(run, runDecisions(trace, a, q));
  const auto tune = tuneDecisions(*trace, allowed);
  QCOMPARE(run.size(), tune.size());
  std::int64_t runDenied = 0, runClientsDenied = 0;
  for (const auto& [client, seq] : run) {
    QCOMPARE(seq, tune.at(client));
    const auto d = std::count(seq.begin(), seq.end(), 0);
    runDenied += d;
    runClientsDenied += d > 0;
  }
  QVERIFY2(o.denied > 0 && o.denied < o.offered, "the quota must both admit and deny on this trace");
  QCOMPARE(o.denied, runDenied);
  QCOMPARE(o.clientsDenied, runClientsDenied);
  QCOMPARE(o.offered, std::int64_t(trace->requests.size()));
}

void TestTuneSweep::sweepRecommendsSmallestQuotaMeetingTarget() {
  const SharedTrace trace = syntheticTrace();
  TuneSpec spec;
  spec.algorithms = {Algorithm::FixedWindow, Algorithm::Gcra};
  spec.grid.limits = parseIntAxis("1:30:1", "--limit").value();
  spec.grid.windows = {kSecond, 10 * kSecond};
  spec.targetDenied = 0.01;
  spec.legit = parseLegit("p93").value();  // the abusers are not legitimate
  spec.threads = 2;
  auto r = runTune(*trace, spec);
  QVERIFY(r.ok());
  QCOMPARE(r->points.size(), std::size_t(2 * 30 * 2));
  for (Algorithm a : spec.algorithms) {
    const auto best = recommend(r.value(), a, spec.targetDenied);
    QVERIFY(best.has_value());
    const TunePoint& b = r->points[*best];
    QVERIFY(b.legitDeniedShare() <= spec.targetDenied);
    // No point with a smaller limit, or the same limit and a smaller rate, meets the target.
    for (const TunePoint& p : r->points) {
      if (p.algorithm != a || p.legitDeniedShare() > spec.targetDenied) continue;
      QVERIFY(p.quota.limit > b.quota.limit ||
              (p.quota.limit == b.quota.limit && p.quota.ratePerSecond() >= b.quota.ratePerSecond()));
    }
    // The Pareto front: ascending share, strictly falling worst admitted, and nothing dominates it.
    const auto front = paretoFront(r.value(), a);
    QVERIFY(front.size() >= 2);
    for (std::size_t i = 1; i < front.size(); ++i) {
      QVERIFY(r->points[front[i]].legitDeniedShare() >= r->points[front[i - 1]].legitDeniedShare());
      QVERIFY(r->points[front[i]].outcome.worstAdmitted < r->points[front[i - 1]].outcome.worstAdmitted);
    }
    for (std::size_t f : front)
      for (const TunePoint& p : r->points)
        QVERIFY(p.algorithm != a || !(p.legitDeniedShare() < r->points[f].legitDeniedShare() &&
                                      p.outcome.worstAdmitted < r->points[f].outcome.worstAdmitted));
  }
  QCOMPARE(r->decisions, std::int64_t(trace->requests.size() * r->points.size()));
}

void TestTuneSweep::legitByPercentileAndKeys() {
  const SharedTrace trace = syntheticTrace();
  TuneSpec spec;
  spec.grid.limits = {4};
  spec.legit = parseLegit("p93").value();
  auto r = runTune(*trace, spec);
  QVERIFY(r.ok());
  // The two abusers have the highest 1 s peaks: p93 of 30 clients (rank 28) is the busiest normal client.
  QCOMPARE(r->legit[0], char(0));
  QCOMPARE(r->legit[1], char(0));
  QCOMPARE(r->legitClients, std::int64_t(28));
  const TunePoint& p = r->points[0];
  QVERIFY(p.outcome.legitOffered < p.outcome.offered);
  QVERIFY(p.outcome.legitDenied < p.outcome.denied);
  spec.legit.kind = LegitSpec::Kind::Keys;
  spec.legit.keys = {"key-5", "key-6", "not-in-trace"};
  auto k = runTune(*trace, spec);
  QCOMPARE(k->legitClients, std::int64_t(2));
  QVERIFY(!parseLegit("p0").ok());
  QVERIFY(!parseLegit("q99").ok());
}

void TestTuneSweep::peakDistribution() {
  Trace t;
  t.keys = {"a", "b"};
  for (int i = 0; i < 10; ++i) t.requests.push_back({kT0 + i * 100'000, 0, 1});  // a: 10 in one second
  for (int i = 0; i < 10; ++i) t.requests.push_back({kT0 + i * 2'000'000, 1, 1});  // b: one per 2 s
  std::stable_sort(t.requests.begin(), t.requests.end(), [](auto& x, auto& y) { return x.timeUs < y.timeUs; });
  const auto peaks = rl::peakDistribution(groupByClient(t), 1);
  QCOMPARE(peaks[0].peaks, (std::vector<std::int64_t>{10, 1}));
  QCOMPARE(peaks[1].peaks, (std::vector<std::int64_t>{10, 5}));   // 10 s: b's 0,2,4,6,8 s
  QCOMPARE(peaks[3].peaks, (std::vector<std::int64_t>{10, 10}));  // 1 h
  QCOMPARE(peaks[0].top, std::vector<std::uint32_t>{0});
  QCOMPARE(percentileOf({1, 2, 3, 4}, 50), std::int64_t(2));
  QCOMPARE(percentileOf({1, 2, 3, 4}, 100), std::int64_t(4));
}

void TestTuneSweep::gridsAndTargetsNameTheirFlag() {
  QCOMPARE(parseIntAxis("5:20:5", "--limit").value(), (std::vector<std::int64_t>{5, 10, 15, 20}));
  QCOMPARE(parseRateAxis("0.5:2:0.5", "--refill-rate").value(), (std::vector<double>{0.5, 1, 1.5, 2}));
  QCOMPARE(parseIntAxis("1000,60000", "--window-ms").value(), (std::vector<std::int64_t>{1000, 60000}));
  for (const char* bad : {"20:5:5", "5:20", "a,b", "5:20:0", "0,5", "1:1000000:1"})
    QVERIFY2(parseIntAxis(bad, "--limit").error().message.rfind("--limit:", 0) == 0, bad);
  QCOMPARE(parseTargetDenied("0.1%").value(), 0.001);
  QCOMPARE(parseTargetDenied("0.05").value(), 0.05);
  QVERIFY(parseTargetDenied("150%").error().message.rfind("--target-denied:", 0) == 0);
  TuneGrid g;
  g.limits = {10};
  g.refillRates = {2.0, 4.0};
  QCOMPARE(tuneGridQuotas(Algorithm::TokenBucket, g)->size(), std::size_t(2));
  QCOMPARE(tuneGridQuotas(Algorithm::TokenBucket, g)->at(1).toString(), std::string("4 req/s (burst 10)"));
  QCOMPARE(tuneGridQuotas(Algorithm::FixedWindow, g)->size(), std::size_t(1));  // window algorithms: 1 s default
}

void TestTuneSweep::cancelKeepsComputedPoints() {
  const SharedTrace trace = syntheticTrace();
  TuneSpec spec;
  spec.grid.limits = parseIntAxis("1:2000:1", "--limit").value();
  spec.threads = 1;
  std::atomic<bool> cancel{false};
  std::size_t seen = 0;
  auto r = runTune(*trace, spec, [&](std::size_t done, std::size_t) {
    seen = done;
    if (done >= 3) cancel = true;
  }, &cancel);
  QVERIFY(r.ok());
  QVERIFY(r->cancelled);
  const auto computed = std::count_if(r->points.begin(), r->points.end(), [](const TunePoint& p) { return p.computed; });
  QVERIFY(computed >= 3 && computed < 2000);
  QVERIFY(seen >= 3);
}

QTEST_GUILESS_MAIN(TestTuneSweep)
#include "test_tune_sweep.moc"
