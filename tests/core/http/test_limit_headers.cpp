// Limit headers of any HTTP limiter, as HttpStore reads them: Retry-After
// (seconds or HTTP date), RateLimit / RateLimit-Policy (IETF draft, structured
// and older forms), RateLimit-* and X-RateLimit-*; absent = -1 (unknown).

#include <QtTest>

#include "http/http_store.hpp"

using namespace rl;

namespace {
constexpr std::int64_t kNow = 1'445'412'480;  // Wed, 21 Oct 2015 07:28:00 GMT
using Fields = QList<QPair<QByteArray, QByteArray>>;
}  // namespace

class LimitHeadersTest : public QObject {
  Q_OBJECT
 private slots:
  void read_data();
  void read();
  void sourceAddresses();
};

void LimitHeadersTest::read_data() {
  QTest::addColumn<Fields>("fields");
  QTest::addColumn<qint64>("limit");
  QTest::addColumn<qint64>("remaining");
  QTest::addColumn<qint64>("retryAfterMs");
  QTest::addColumn<qint64>("resetMs");
  QTest::newRow("none") << Fields{} << -1LL << -1LL << -1LL << -1LL;
  QTest::newRow("retry seconds") << Fields{{"Retry-After", "120"}} << -1LL << -1LL << 120'000LL << -1LL;
  QTest::newRow("retry date") << Fields{{"Retry-After", "Wed, 21 Oct 2015 07:28:30 GMT"}} << -1LL << -1LL << 30'000LL << -1LL;
  QTest::newRow("retry garbage") << Fields{{"Retry-After", "soon"}} << -1LL << -1LL << -1LL << -1LL;
  QTest::newRow("ietf structured") << Fields{{"RateLimit-Policy", "\"burst\";q=100;w=60"}, {"RateLimit", "\"burst\";r=42;t=7"}}
                                   << 100LL << 42LL << -1LL << 7'000LL;
  QTest::newRow("ietf draft-07") << Fields{{"RateLimit", "limit=10, remaining=3, reset=5"}} << 10LL << 3LL << -1LL << 5'000LL;
  QTest::newRow("ietf separate") << Fields{{"RateLimit-Limit", "10"}, {"RateLimit-Remaining", "0"}, {"RateLimit-Reset", "2"}}
                                 << 10LL << 0LL << -1LL << 2'000LL;
  QTest::newRow("x-ratelimit epoch") << Fields{{"X-RateLimit-Limit", "60"}, {"X-RateLimit-Remaining", "59"},
                                               {"X-RateLimit-Reset", "1445412540"}}
                                     << 60LL << 59LL << -1LL << 60'000LL;
  // Absurd seconds saturate at 2^52 us (4503599627 s) instead of wrapping in ms or us.
  QTest::newRow("retry-after absurd") << Fields{{"Retry-After", "99999999999999"}} << -1LL << -1LL
                                      << 4'503'599'627'000LL << -1LL;
  QTest::newRow("reset absurd") << Fields{{"RateLimit", "limit=5, remaining=0, reset=99999999999999"}} << 5LL << 0LL
                                << -1LL << 4'503'599'627'000LL;
  QTest::newRow("x-ratelimit negative") << Fields{{"X-RateLimit-Remaining", "-3"}} << -1LL << -1LL << -1LL << -1LL;
}

void LimitHeadersTest::read() {
  QFETCH(Fields, fields);
  QFETCH(qint64, limit);
  QFETCH(qint64, remaining);
  QFETCH(qint64, retryAfterMs);
  QFETCH(qint64, resetMs);
  HttpResponse r;
  r.status = 429;
  for (const auto& [name, value] : fields) r.set(name.toStdString(), value.toStdString());
  const LimitHeaders h = readLimitHeaders(r, kNow);
  QCOMPARE(h.limit, limit);
  QCOMPARE(h.remaining, remaining);
  QCOMPARE(h.retryAfterMs, retryAfterMs);
  QCOMPARE(h.resetMs, resetMs);
}

void LimitHeadersTest::sourceAddresses() {
  QCOMPARE(sourceAddressFor("run1-client-0"), std::string("127.0.0.2"));
  QCOMPARE(sourceAddressFor("run1-client-5"), std::string("127.0.0.7"));
  QCOMPARE(sourceAddressFor("run1-client-300"), std::string("127.0.1.46"));
  const std::string hashed = sourceAddressFor("alice");
  QVERIFY(hashed.starts_with("127.") && hashed != "127.0.0.1" && hashed == sourceAddressFor("alice"));
}

QTEST_GUILESS_MAIN(LimitHeadersTest)
#include "test_limit_headers.moc"
