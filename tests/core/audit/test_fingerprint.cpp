// The fingerprint search on synthetic arrivals: a table of limiters (one of
// the six algorithms, a quota, an alignment) whose decisions on a fixed probe
// schedule (concurrent rounds, spaced singles, paced traffic) are made here by
// the same pure math; the search must name the limiter back and explain every
// decision. A limiter no model fits (admits everything in rounds, then
// nothing) must not be explained in full.

#include <QtTest>

#include "audit/audit_experiment.hpp"
#include "audit/fingerprint.hpp"
#include "common/number_text.hpp"
#include "limiter/limiter_state.hpp"

using namespace rl;

namespace {

constexpr std::int64_t kT0 = 1'800'000'000'123'456;  // unix us, not on a window boundary

struct Planned {
  std::int64_t atUs;  // from kT0
  int group;          // -1 alone
  int key;
};

// The audit's shape: 3 singles 200 ms apart, 3 rounds of 12 (250 and 500 ms apart),
// 40 requests paced at 110 ms, and the boundary probe's 1 + 5 + 6 (0, 0.7 and 1.2 s).
std::vector<Planned> schedule() {
  std::vector<Planned> p;
  for (int i = 0; i < 3; ++i) p.push_back({i * 200'000, -1, 0});
  const std::int64_t rounds[] = {1'000'000, 1'250'000, 1'750'000};
  for (int r = 0; r < 3; ++r)
    for (int i = 0; i < 12; ++i) p.push_back({rounds[r] + i * 50, r, 1});
  for (int i = 0; i < 40; ++i) p.push_back({3'000'000 + i * 110'000, -1, 2});
  p.push_back({8'000'000, -1, 3});
  for (int i = 0; i < 5; ++i) p.push_back({8'700'000 + i * 1000, -1, 3});
  for (int i = 0; i < 6; ++i) p.push_back({9'200'000 + i * 1000, -1, 3});
  return p;
}

// Arrivals as `a` with `q` decides them; `firstRequest` shifts each key's windows to its first request.
std::vector<Arrival> decided(Algorithm a, const Quota& q, bool firstRequest) {
  std::vector<Arrival> out;
  std::map<int, LimiterState> states;
  std::map<int, std::pair<std::int64_t, std::int64_t>> windows;  // key -> (start, index)
  for (const Planned& p : schedule()) {
    std::int64_t now = kT0 + p.atUs;
    if (firstRequest) {
      auto [it, fresh] = windows.try_emplace(p.key, now, 1);
      if (!fresh && now - it->second.first >= q.window.count()) it->second = {now, it->second.second + 1};
      now = it->second.second * q.window.count() + (now - it->second.first);
    }
    auto [st, fresh] = states.try_emplace(p.key, freshState(a));
    Arrival arr;
    arr.key = "k" + std::to_string(p.key);
    arr.group = p.group;
    arr.wallUs = kT0 + p.atUs;
    arr.allowed = decide(a, st->second, Micros{now}, 1, q).decision.allowed;
    out.push_back(arr);
  }
  return out;
}

}  // namespace

class FingerprintTest : public QObject {
  Q_OBJECT
 private slots:
  void recovers_data();
  void recovers();
  void unexplainedLimiterIsNotExplained();
  void modelDecisionsAgreeAsTheFingerprintCounts();
};

void FingerprintTest::recovers_data() {
  QTest::addColumn<int>("algorithm");
  QTest::addColumn<qint64>("limit");
  QTest::addColumn<qint64>("windowMs");  // window algorithms
  QTest::addColumn<double>("rate");      // rate algorithms
  QTest::addColumn<bool>("firstRequest");
  QTest::addColumn<qint64>("hintLimit");  // what discover would have declared (-1 none)
  QTest::newRow("express fixed window 5 / 1 s") << int(Algorithm::FixedWindow) << 5LL << 1000LL << 0.0 << true << 5LL;
  QTest::newRow("epoch fixed window 5 / 1 s") << int(Algorithm::FixedWindow) << 5LL << 1000LL << 0.0 << false << 5LL;
  QTest::newRow("fixed window 4 / 2 s, undeclared") << int(Algorithm::FixedWindow) << 4LL << 2000LL << 0.0 << true << -1LL;
  QTest::newRow("sliding log 6 / 1 s") << int(Algorithm::SlidingLog) << 6LL << 1000LL << 0.0 << false << 6LL;
  QTest::newRow("nginx 10r/s burst=5") << int(Algorithm::LeakyBucket) << 6LL << 0LL << 10.0 << false << -1LL;
  QTest::newRow("token bucket 8 at 4/s") << int(Algorithm::TokenBucket) << 8LL << 0LL << 4.0 << false << -1LL;
}

void FingerprintTest::recovers() {
  QFETCH(int, algorithm);
  QFETCH(qint64, limit);
  QFETCH(qint64, windowMs);
  QFETCH(double, rate);
  QFETCH(bool, firstRequest);
  QFETCH(qint64, hintLimit);
  const auto a = Algorithm(algorithm);
  const Quota q = isRateBased(a) ? Quota::perWindow(limit, kSecond).withRefill(rate) : Quota::perWindow(limit, Micros{windowMs * 1000});
  const auto arrivals = decided(a, q, firstRequest);
  const Fingerprint f = fingerprintArrivals(arrivals, {hintLimit, hintLimit > 0 ? windowMs : -1});
  QCOMPARE(f.decisions, int(arrivals.size()));
  QCOMPARE(f.explained, f.decisions);
  QCOMPARE(f.limit, limit);
  if (isRateBased(a)) {
    QVERIFY2(isRateBased(*parseAlgorithm(f.algorithm)), f.summary.c_str());
    QCOMPARE(f.ratePerSecond, rate);
    // Leaky bucket, token bucket and GCRA decide alike: the two not named are listed as explaining as many.
    for (Algorithm other : {Algorithm::LeakyBucket, Algorithm::TokenBucket, Algorithm::Gcra}) {
      const std::string text = std::string(algorithmName(other)) + " " + std::to_string(limit) + " at " + numberText(rate) + "/s";
      const bool listed = std::find(f.alsoExplainedBy.begin(), f.alsoExplainedBy.end(), text) != f.alsoExplainedBy.end();
      QVERIFY2(listed == (algorithmName(other) != f.algorithm), (f.summary + " / " + text).c_str());
    }
    QVERIFY2(f.summary.find(": " + std::to_string(f.decisions) + " of " + std::to_string(f.decisions) + " (as many by ") !=
                 std::string::npos, f.summary.c_str());
  } else {
    QCOMPARE(f.algorithm, std::string(algorithmName(a)));
    QCOMPARE(f.windowMs, windowMs);
    if (a == Algorithm::FixedWindow) QCOMPARE(f.alignment, std::string(firstRequest ? "first_request" : "epoch"));
  }
}

void FingerprintTest::unexplainedLimiterIsNotExplained() {
  // Check-then-increment: every round admitted whole (12 > any limit that the singles allow).
  auto arrivals = decided(Algorithm::FixedWindow, Quota::perWindow(2, Micros{60'000'000}), false);
  for (Arrival& a : arrivals)
    if (a.group >= 0) a.allowed = true;
  const Fingerprint f = fingerprintArrivals(arrivals, {2, 60'000});
  QVERIFY2(f.explained < f.decisions, f.summary.c_str());
}

void FingerprintTest::modelDecisionsAgreeAsTheFingerprintCounts() {
  // A round's order is unknown: a fixed window of 5 per minute admits 5 of a round of 12, and the target
  // admitted requests 7..11 of it. The model's decisions go to those, so every one agrees, as the score says.
  auto arrivals = decided(Algorithm::FixedWindow, Quota::perWindow(5, Micros{60'000'000}), false);
  std::vector<std::size_t> round;
  for (std::size_t i = 0; i < arrivals.size(); ++i)
    if (arrivals[i].group == 0) round.push_back(i);
  QCOMPARE(round.size(), std::size_t(12));
  for (std::size_t k = 0; k < round.size(); ++k) arrivals[round[k]].allowed = k >= 7;
  Arrival spoofed = arrivals.front();  // not fingerprinted (an identity probe's): no decision, no lane
  spoofed.fingerprinted = false;
  arrivals.push_back(spoofed);
  const Fingerprint f = fingerprintArrivals(arrivals, {5, 60'000});
  QCOMPARE(f.explained, f.decisions);
  const auto model = fingerprintDecisions(arrivals, f);
  QCOMPARE(int(model.size()), f.decisions);
  int agree = 0;
  for (const ModelDecision& d : model) agree += d.allowed == arrivals[d.arrival].allowed;
  QCOMPARE(agree, f.explained);
  // Drawn as a storm: the target's lane and the model's, each one decision per replayed arrival.
  AuditReport report;
  report.urls = {"http://127.0.0.1:1/a", "http://127.0.0.1:2/a"};
  report.arrivals = arrivals;
  report.fingerprint = f;
  const ExperimentResult e = auditExperiment(report);
  QCOMPARE(e.runs.size(), std::size_t(2));
  QCOMPARE(e.spec.http.targets.size(), std::size_t(2));
  QCOMPARE(int(e.runs[0].outcome.records.size()), f.decisions);
  QCOMPARE(e.runs[0].spec.clients, 4);  // the schedule's four keys
  QVERIFY(e.runs[1].spec.modelsTarget);
  QCOMPARE(e.runs[0].outcome.records.front().intendedUs(), std::int64_t(0));
  QCOMPARE(e.runs[0].outcome.clockOriginUs, kT0);
  QCOMPARE(e.runs[1].outcome.counters[0].admitted + e.runs[1].outcome.counters[0].denied, std::int64_t(f.decisions));
  // Nothing replayed: nothing to draw.
  report.fingerprint = Fingerprint{};
  QVERIFY(auditExperiment(report).runs.empty());
}

QTEST_GUILESS_MAIN(FingerprintTest)
#include "test_fingerprint.moc"
