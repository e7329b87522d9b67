// Quota validation: every invalid field is rejected with a message naming the
// field and the allowed range; nothing is clamped.

#include <QtTest>

#include <cmath>
#include <limits>

#include "limiter/quota.hpp"

using namespace rl;

class QuotaTest : public QObject {
  Q_OBJECT
 private slots:
  void invalid_data();
  void invalid();
  void validExtremes();
  void printing();
  void interval();
  void cost();
};

void QuotaTest::invalid_data() {
  QTest::addColumn<QString>("algorithm");
  QTest::addColumn<qint64>("limit");
  QTest::addColumn<qint64>("windowUs");
  QTest::addColumn<double>("refill");  // NaN = unset
  QTest::addColumn<QString>("message");
  const double unset = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  QTest::newRow("limit 0") << "fixed_window" << 0LL << 1'000'000LL << unset
                           << "limit 0 is out of range: allowed 1 to 1000000000000";
  QTest::newRow("limit negative") << "gcra" << -5LL << 1'000'000LL << unset
                                  << "limit -5 is out of range: allowed 1 to 1000000000000";
  QTest::newRow("limit too big") << "sliding_log" << 1'000'000'000'001LL << 1'000'000LL << unset
                                 << "limit 1000000000001 is out of range: allowed 1 to 1000000000000";
  // Issue 25 item 10: one timestamp per unit of cost; --cost 1000000000 or a trace cost of 2^31-1 needed 4 GB.
  QTest::newRow("sliding_log limit over 10^6") << "sliding_log" << 1'000'001LL << 1'000'000LL << unset
      << "limit 1000001 is too large for sliding_log, which keeps one timestamp per admitted unit of cost (8 bytes "
         "each in memory, 17 in Redis): allowed 1 to 1000000 (sliding_counter or fixed_window for larger limits)";
  QTest::newRow("sliding_log cost 2^31-1") << "sliding_log" << 2'147'483'647LL << 60'000'000LL << unset
      << "limit 2147483647 is too large for sliding_log, which keeps one timestamp per admitted unit of cost (8 bytes "
         "each in memory, 17 in Redis): allowed 1 to 1000000 (sliding_counter or fixed_window for larger limits)";
  QTest::newRow("window 0") << "fixed_window" << 10LL << 0LL << unset
                            << "window 0 ms is out of range: allowed 1 ms to 31536000000 ms (one year)";
  QTest::newRow("window > year") << "sliding_counter" << 10LL << 31'536'000'001'000LL << unset
                                 << "window 31536000001 ms is out of range: allowed 1 ms to 31536000000 ms (one year)";
  QTest::newRow("window fraction of ms") << "fixed_window" << 10LL << 1'500LL << unset
                                         << "window 1500 us is not a whole number of milliseconds";
  QTest::newRow("refill 0") << "token_bucket" << 10LL << 1'000'000LL << 0.0
                            << "refill rate 0/s is out of range: allowed a finite rate > 0 and <= 1000000/s";
  QTest::newRow("refill negative") << "leaky_bucket" << 10LL << 1'000'000LL << -1.0
                                   << "refill rate -1/s is out of range: allowed a finite rate > 0 and <= 1000000/s";
  QTest::newRow("refill inf") << "token_bucket" << 10LL << 1'000'000LL << inf
                              << "refill rate inf/s is out of range: allowed a finite rate > 0 and <= 1000000/s";
  QTest::newRow("refill nan") << "gcra" << 10LL << 1'000'000LL << -unset
                              << "refill rate -nan/s is out of range: allowed a finite rate > 0 and <= 1000000/s";
  QTest::newRow("refill too fast") << "gcra" << 10LL << 1'000'000LL << 2e6
                                   << "refill rate 2e+06/s is out of range: allowed a finite rate > 0 and <= 1000000/s";
  QTest::newRow("implied rate too fast") << "token_bucket" << 1'000'000'000'000LL << 1'000LL << unset
                                         << "limit 1000000000000 per 1ms refills faster than one token per microsecond: allowed up to 1000000/s (set a refill rate or a longer window)";
  // Issue 9: a window algorithm ignored the refill rate, and a per-request algorithm then ran on a 0 or overflowed interval.
  QTest::newRow("refill 1e-300 (window algorithm)") << "fixed_window" << 10LL << 1'000'000LL << 1e-300
                                   << "refill rate 1e-300/s is out of range: allowed at least one token per year (>= 3.2e-08/s)";
  QTest::newRow("refill 1e-300 (gcra)") << "gcra" << 1LL << 1'000'000LL << 1e-300
                                   << "refill rate 1e-300/s is out of range: allowed at least one token per year (>= 3.2e-08/s)";
  QTest::newRow("fill takes > year") << "token_bucket" << 1'000'000LL << 1'000'000LL << 0.001
                                     << "refill rate 0.001/s with limit 1000000 takes more than one year to fill: allowed limit / rate <= 1 year";
}

void QuotaTest::invalid() {
  QFETCH(QString, algorithm);
  QFETCH(qint64, limit);
  QFETCH(qint64, windowUs);
  QFETCH(double, refill);
  QFETCH(QString, message);
  Quota q{limit, Micros{windowUs}, std::nullopt};
  if (!std::isnan(refill) || std::signbit(refill)) q.refillPerSecond = refill;
  const auto r = q.validate(*parseAlgorithm(algorithm.toStdString()));
  QVERIFY(!r.ok());
  QCOMPARE(r.error().code, ErrorCode::InvalidArgument);
  QCOMPARE(QString::fromStdString(r.error().message), message);
}

void QuotaTest::validExtremes() {
  // 10^12 per year (sliding_log: 10^6) and 1 per ms are valid for every algorithm, no overflow.
  for (Algorithm a : kAllAlgorithms) {
    QVERIFY(Quota::perWindow(a == Algorithm::SlidingLog ? kMaxSlidingLogLimit : kMaxLimit, kMaxWindow).validate(a).ok());
    QVERIFY(Quota::perWindow(1, kMillisecond).validate(a).ok());
    QVERIFY(Quota::perSecond(1).withRefill(1e6).validate(a).ok());
  }
  QCOMPARE(Quota::perWindow(kMaxLimit, kMaxWindow).interval(), Micros{32});  // 31.536 us rounds to 32
}

void QuotaTest::printing() {
  QCOMPARE(Quota::perSecond(10).withBurst(20).toString(), std::string("10 req/s (burst 20)"));
  QCOMPARE(Quota::perSecond(10).toString(), std::string("10 req/s (burst 10)"));
  QCOMPARE(Quota::perMinute(100).toString(), std::string("100 req / 60s"));
  QCOMPARE(Quota::perWindow(5, Micros{1'500'000}).toString(), std::string("5 req / 1500ms"));
}

void QuotaTest::interval() {
  QCOMPARE(Quota::perMinute(100).interval(), Micros{600'000});
  QCOMPARE(Quota::perSecond(1).withRefill(3).interval(), Micros{333'333});
  QCOMPARE(Quota::perSecond(1).withRefill(0.5).interval(), Micros{2'000'000});
}

void QuotaTest::cost() {
  const Quota q = Quota::perSecond(10);
  QVERIFY(validateCost(1, q).ok());
  QVERIFY(validateCost(10, q).ok());
  QCOMPARE(QString::fromStdString(validateCost(0, q).error().message),
           QStringLiteral("cost 0 is out of range: allowed 1 to 10 (the limit)"));
  QCOMPARE(QString::fromStdString(validateCost(11, q).error().message),
           QStringLiteral("cost 11 is out of range: allowed 1 to 10 (the limit)"));
}

QTEST_APPLESS_MAIN(QuotaTest)
#include "test_quota.moc"
