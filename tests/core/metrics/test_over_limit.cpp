// The over-limit judgement (metrics/over_limit.hpp): the five exact algorithms are
// never over their own limit, whatever the traffic and quota changes (sliding_counter,
// an estimate of the sliding window, goes over it by design, but never twice); an
// admission one past the limit always is; per client, never summed; the benefit
// of the doubt on real clocks; checkpoint and restore give the same judgement.

#include <QtTest>

#include <random>

#include "limiter/limiter_state.hpp"
#include "metrics/over_limit.hpp"

using namespace rl;

namespace {

const Algorithm kAll[] = {Algorithm::FixedWindow,  Algorithm::SlidingLog,  Algorithm::SlidingCounter,
                          Algorithm::TokenBucket, Algorithm::LeakyBucket, Algorithm::Gcra};

struct Judged {
  std::int64_t admitted = 0;
  std::int64_t over = 0;
  double worst = 0;
};

// Runs the real algorithm on `times` for one client (quota switching as `quotas` says)
// and judges what it admitted; `leak` admits every denied request too.
Judged runAndJudge(Algorithm a, const std::vector<TimedQuota>& quotas, const std::vector<std::int64_t>& times,
                   std::int64_t cost, std::int64_t origin, bool leak = false) {
  LimiterState state = freshState(a);
  OverLimitJudge judge({a, quotas, cost, origin});
  Judged out;
  std::size_t q = 0;
  for (std::int64_t t : times) {
    while (q + 1 < quotas.size() && quotas[q + 1].atUs <= t) ++q;
    const Step s = decide(a, state, Micros{origin + t}, cost, quotas[q].quota);
    if (!s.decision.allowed && !leak) continue;
    ++out.admitted;
    out.over += judge.admit(0, t).over;
  }
  out.worst = judge.worst().ratio;
  return out;
}

std::vector<std::int64_t> poisson(std::mt19937_64& rng, double perSecond, std::int64_t spanUs) {
  std::exponential_distribution<double> gap(perSecond / 1e6);
  std::vector<std::int64_t> out;
  for (double t = gap(rng); t < static_cast<double>(spanUs); t += gap(rng)) out.push_back(static_cast<std::int64_t>(t));
  return out;
}

}  // namespace

class OverLimitTest : public QObject {
  Q_OBJECT
 private slots:
  void exactAlgorithmsAreNeverOver_data();
  void exactAlgorithmsAreNeverOver();
  void oneAdmissionPastTheLimitIsOver();
  void perClientNeverSummed();
  void realClocksGetTheBenefitOfTheDoubt();
  void checkpointRestoreJudgesAlike();
  void boundTexts();
};

void OverLimitTest::exactAlgorithmsAreNeverOver_data() {
  QTest::addColumn<int>("algorithm");
  QTest::addColumn<bool>("changes");
  for (Algorithm a : kAll) {
    QTest::newRow(QByteArray(algorithmName(a).data()).append(" steady").constData()) << static_cast<int>(a) << false;
    QTest::newRow(QByteArray(algorithmName(a).data()).append(" tuned").constData()) << static_cast<int>(a) << true;
  }
}

void OverLimitTest::exactAlgorithmsAreNeverOver() {
  QFETCH(int, algorithm);
  QFETCH(bool, changes);
  const auto a = static_cast<Algorithm>(algorithm);
  std::mt19937_64 rng(20261203 + static_cast<unsigned>(algorithm));
  for (int round = 0; round < 40; ++round) {
    const std::int64_t limit = 1 + static_cast<std::int64_t>(rng() % 30);
    const Micros window{kMillisecond.count() * (50 + static_cast<std::int64_t>(rng() % 2000))};
    Quota q = Quota::perWindow(limit, window);
    if (rng() % 2 == 0) q = q.withRefill(0.5 + static_cast<double>(rng() % 400) / 10.0);
    std::vector<TimedQuota> quotas{{0, q}};
    if (changes)  // a raise and a cut, as a user tuning live would
      for (std::int64_t at : {3'000'000, 6'000'000}) {
        Quota next = quotas.back().quota;
        next.limit = 1 + static_cast<std::int64_t>(rng() % 30);
        if (rng() % 2 == 0) next = next.withRefill(0.5 + static_cast<double>(rng() % 400) / 10.0);
        quotas.push_back({at, next});
      }
    const double rate = 5.0 + static_cast<double>(rng() % 200);
    const auto times = poisson(rng, rate, 9'000'000);
    const std::int64_t cost = rng() % 4 == 0 ? 2 : 1;
    if (cost > limit) continue;
    const Judged j = runAndJudge(a, quotas, times, cost, 1'700'000'040'000'000);
    QVERIFY2(j.admitted > 0, "the storm admitted something");
    if (a == Algorithm::SlidingCounter) {  // an estimate of the sliding window: over by design, never twice
      QVERIFY2(j.worst < 2.0, qPrintable(QString::number(j.worst)));
      continue;
    }
    QVERIFY2(j.over == 0, qPrintable(QStringLiteral("round %1: %2 of %3 admissions judged over, worst %4 (limit %5, %6 ms)")
                                         .arg(round).arg(j.over).arg(j.admitted).arg(j.worst).arg(limit).arg(window.count() / 1000)));
    QVERIFY(j.worst <= 1.0);
    // The same traffic through a limiter that admits everything is over, and says so.
    const Judged leak = runAndJudge(a, quotas, times, cost, 1'700'000'040'000'000, true);
    if (leak.admitted > j.admitted) QVERIFY(leak.over > 0);
  }
}

void OverLimitTest::oneAdmissionPastTheLimitIsOver() {
  // Ten at one instant on a limit of 10, then an eleventh: each algorithm's own promise breaks.
  for (Algorithm a : kAll) {
    OverLimitJudge judge({a, {{0, Quota::perWindow(10, kSecond)}}, 1, 0});
    for (int i = 0; i < 10; ++i) QVERIFY(!judge.admit(0, 500'000).over);
    const OverLimitVerdict v = judge.admit(0, 500'000);
    QVERIFY2(v.over, algorithmName(a).data());
    QCOMPARE(v.ratio, 1.1);
    QCOMPARE(judge.overCount(), 1);
    QCOMPARE(judge.worst().atUs, 500'000);
  }
  // A token bucket of 10 refilling 10/s rightly admits 19 in one second: 10, then one per 100 ms.
  OverLimitJudge bucket({Algorithm::TokenBucket, {{0, Quota::perWindow(10, kSecond)}}, 1, 0});
  for (int i = 0; i < 10; ++i) bucket.admit(0, 0);
  for (int i = 1; i <= 9; ++i) QVERIFY(!bucket.admit(0, i * 100'000).over);
  QCOMPARE(bucket.worst().ratio, 1.0);
  QVERIFY(bucket.admit(0, 950'000).over);  // 50 ms after the last: half a token short
}

void OverLimitTest::perClientNeverSummed() {
  OverLimitJudge judge({Algorithm::SlidingLog, {{0, Quota::perWindow(5, kSecond)}}, 1, 0});
  for (std::uint32_t c = 0; c < 200; ++c)
    for (int i = 0; i < 5; ++i) QVERIFY(!judge.admit(c, 1000 * c + i).over);
  QCOMPARE(judge.overCount(), 0);
  QVERIFY(judge.admit(77, 300'000).over);
  QCOMPARE(judge.worst().client, 77u);
  QCOMPARE(judge.overByClient().size(), std::size_t{1});
  QCOMPARE(judge.overByClient().at(77), 1);
}

void OverLimitTest::realClocksGetTheBenefitOfTheDoubt() {
  // Token bucket 1 per 100 ms, burst 1: every other one recorded 0.1 ms early, but each
  // took 0.5 ms to answer, so they may have been decided 100 ms apart: not over. With no
  // service time (the virtual clock) the same times are over, at each early one.
  const std::vector<TimedQuota> q{{0, Quota::perWindow(1, Micros{100'000})}};
  OverLimitJudge real({Algorithm::TokenBucket, q, 1, 0});
  OverLimitJudge exact({Algorithm::TokenBucket, q, 1, 0});
  for (int i = 0; i < 20; ++i) {
    const std::int64_t t = i * 100'000 - (i % 2 == 1 ? 100 : 0);
    QVERIFY(!real.admit(0, t, 500).over);
    exact.admit(0, t);
  }
  QCOMPARE(real.overCount(), 0);
  QCOMPARE(exact.overCount(), 10);
  // A fixed-window admission whose service time spans a boundary is not counted in either window.
  OverLimitJudge fixed({Algorithm::FixedWindow, {{0, Quota::perWindow(1, kSecond)}}, 1, 0});
  QVERIFY(!fixed.admit(0, 999'800, 400).over);
  QVERIFY(!fixed.admit(0, 1'000'300, 10).over);
  QVERIFY(fixed.admit(0, 1'000'500, 10).over);
}

void OverLimitTest::checkpointRestoreJudgesAlike() {
  std::mt19937_64 rng(7);
  for (Algorithm a : kAll) {
    OverLimitJudge straight({a, {{0, Quota::perWindow(4, Micros{200'000})}}, 1, 0});
    OverLimitJudge rewound({a, {{0, Quota::perWindow(4, Micros{200'000})}}, 1, 0});
    std::vector<std::pair<std::uint32_t, std::int64_t>> events;
    for (std::int64_t t = 0; t < 3'000'000; t += 1 + static_cast<std::int64_t>(rng() % 40'000))
      events.push_back({static_cast<std::uint32_t>(rng() % 3), t});
    const std::size_t half = events.size() / 2;
    for (std::size_t i = 0; i < half; ++i) rewound.admit(events[i].first, events[i].second);
    const auto cp = rewound.checkpoint();
    for (std::size_t i = half; i < events.size(); ++i) rewound.admit(events[i].first + 5, events[i].second);  // wrong
    rewound.restore(cp);
    for (std::size_t i = half; i < events.size(); ++i) rewound.admit(events[i].first, events[i].second);
    for (const auto& [c, t] : events) straight.admit(c, t);
    QCOMPARE(rewound.overCount(), straight.overCount());
    QCOMPARE(rewound.worst().ratio, straight.worst().ratio);
    QCOMPARE(rewound.overByClient(), straight.overByClient());
    QVERIFY(straight.overCount() > 0);
  }
}

void OverLimitTest::boundTexts() {
  QCOMPARE(overLimitBoundText(Algorithm::FixedWindow, Quota::perWindow(20, kSecond)),
           std::string("at most 20 in each aligned 1 s window"));
  QCOMPARE(overLimitBoundText(Algorithm::SlidingLog, Quota::perWindow(5, Micros{1'500'000})),
           std::string("at most 5 in any 1500 ms"));
  QCOMPARE(overLimitBoundText(Algorithm::TokenBucket, Quota::perWindow(20, kSecond).withRefill(10)),
           std::string("at most 20 + 10/s x T in any T"));
}

QTEST_GUILESS_MAIN(OverLimitTest)
#include "test_over_limit.moc"
