// The one header codec (http/limit_headers.hpp), from both sides: real-world
// header strings of every dialect -> parsed values (dialect, policies, the
// binding limit, the reset's unit and its stated inference), and every
// dialect written -> read back to the same numbers. Absent = -1 (unknown).

#include <QtTest>

#include <cstdio>

#include "http/http_store.hpp"
#include "http/limit_headers.hpp"
#include "http/limit_response.hpp"

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
  void dialects_data();
  void dialects();
  void roundTrip_data();
  void roundTrip();
  void serveHeadersReadBack();
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

void LimitHeadersTest::dialects_data() {
  QTest::addColumn<Fields>("fields");
  QTest::addColumn<QString>("dialect");
  QTest::addColumn<int>("policies");
  QTest::addColumn<qint64>("limit");
  QTest::addColumn<qint64>("windowS");
  QTest::addColumn<qint64>("remaining");
  QTest::addColumn<qint64>("resetMs");
  QTest::addColumn<QString>("inference");  // "" = no reset number read
  // express-rate-limit 8, standardHeaders: 'draft-8' (spaces after ';', a partition key).
  QTest::newRow("express draft-8") << Fields{{"RateLimit-Policy", "\"10-in-1min\"; q=10; w=60; pk=:ZTNiMGM0NDI5OGZj:"},
                                             {"RateLimit", "\"10-in-1min\"; r=9; t=60"}}
                                   << "ietf-draft-8" << 1 << 10LL << 60LL << 9LL << 60'000LL << "";
  // Two named policies: the binding one is the state with the least remaining.
  QTest::newRow("draft-8 two policies") << Fields{{"RateLimit-Policy", "\"burst\";q=100;w=60, \"day\";q=1000;w=86400"},
                                                  {"RateLimit", "\"burst\";r=50;t=30, \"day\";r=5;t=3600"}}
                                        << "ietf-draft-8" << 2 << 1000LL << 86400LL << 5LL << 3'600'000LL << "";
  QTest::newRow("draft-8 token name") << Fields{{"RateLimit-Policy", "default;q=5;w=2"}, {"RateLimit", "default;r=0;t=1"}}
                                      << "ietf-draft-8" << 1 << 5LL << 2LL << 0LL << 1'000LL << "";
  QTest::newRow("express draft-7") << Fields{{"RateLimit-Policy", "10;w=60"}, {"RateLimit", "limit=10, remaining=9, reset=60"}}
                                   << "ietf-draft-7" << 1 << 10LL << 60LL << 9LL << 60'000LL << "";
  QTest::newRow("express draft-6") << Fields{{"RateLimit-Policy", "10;w=60"}, {"RateLimit-Limit", "10"},
                                             {"RateLimit-Remaining", "9"}, {"RateLimit-Reset", "60"}}
                                   << "ietf-draft-6" << 1 << 10LL << 60LL << 9LL << 60'000LL
                                   << "RateLimit-Reset 60: delta seconds (a small number)";
  QTest::newRow("legacy epoch s") << Fields{{"X-RateLimit-Limit", "60"}, {"X-RateLimit-Remaining", "59"},
                                            {"X-RateLimit-Reset", "1445412540"}}
                                  << "x-ratelimit" << 0 << 60LL << -1LL << 59LL << 60'000LL
                                  << "X-RateLimit-Reset 1445412540: epoch seconds (>= 10^9)";
  QTest::newRow("legacy epoch ms") << Fields{{"X-RateLimit-Limit", "60"}, {"X-RateLimit-Reset", "1445412485500"}}
                                   << "x-ratelimit" << 0 << 60LL << -1LL << -1LL << 5'500LL
                                   << "X-RateLimit-Reset 1445412485500: epoch milliseconds (>= 10^12)";
  // fastify-rate-limit#301 style: a reset in ms beside a 60 s policy.
  QTest::newRow("reset in ms beside a policy") << Fields{{"RateLimit-Policy", "10;w=60"}, {"X-RateLimit-Reset", "10141"}}
                                               << "ietf-draft-6" << 1 << 10LL << 60LL << -1LL << 10'141LL
                                               << "X-RateLimit-Reset 10141: delta milliseconds (over twice the 60 s window)";
  QTest::newRow("fastify legacy") << Fields{{"x-ratelimit-limit", "3"}, {"x-ratelimit-remaining", "0"},
                                            {"x-ratelimit-reset", "2"}, {"retry-after", "2"}}
                                  << "x-ratelimit" << 0 << 3LL << -1LL << 0LL << 2'000LL
                                  << "X-RateLimit-Reset 2: delta seconds (a small number)";
  QTest::newRow("nginx status") << Fields{{"X-Status", "REJECTED"}} << "nginx-status" << 0 << -1LL << -1LL << -1LL << -1LL << "";
  QTest::newRow("nginx dry run") << Fields{{"X-Limit", "REJECTED_DRY_RUN"}} << "nginx-status" << 0 << -1LL << -1LL << -1LL
                                 << -1LL << "";
  QTest::newRow("envoy") << Fields{{"x-envoy-ratelimited", "true"}} << "envoy" << 0 << -1LL << -1LL << -1LL << -1LL << "";
  QTest::newRow("retry-after only") << Fields{{"Retry-After", "3"}} << "retry-after" << 0 << -1LL << -1LL << -1LL << -1LL << "";
  QTest::newRow("malformed policy refused whole") << Fields{{"RateLimit-Policy", "\"x\";q=5;w=60,,"}}
                                                  << "none" << 0 << -1LL << -1LL << -1LL << -1LL << "";
}

void LimitHeadersTest::dialects() {
  QFETCH(Fields, fields);
  QFETCH(QString, dialect);
  QFETCH(int, policies);
  QFETCH(qint64, limit);
  QFETCH(qint64, windowS);
  QFETCH(qint64, remaining);
  QFETCH(qint64, resetMs);
  QFETCH(QString, inference);
  HttpHeaders headers;
  for (const auto& [name, value] : fields) headers.push_back({name.toStdString(), value.toStdString()});
  const LimitHeaders h = readLimitHeaders(headers, kNow);
  QCOMPARE(QString::fromStdString(std::string(limitDialectName(h.dialect))), dialect);
  QCOMPARE(int(h.policies.size()), policies);
  QCOMPARE(h.limit, limit);
  QCOMPARE(h.windowS, windowS);
  QCOMPARE(h.remaining, remaining);
  QCOMPARE(h.resetMs, resetMs);
  QCOMPARE(QString::fromStdString(h.resetInference), inference);
}

void LimitHeadersTest::roundTrip_data() {
  QTest::addColumn<int>("dialect");
  QTest::addColumn<bool>("denied");
  for (LimitDialect d : {LimitDialect::IetfDraft8, LimitDialect::IetfDraft7, LimitDialect::IetfDraft6,
                         LimitDialect::XRateLimit, LimitDialect::NginxStatus, LimitDialect::Envoy})
    for (bool denied : {false, true})
      QTest::newRow((std::string(limitDialectName(d)) + (denied ? " denied" : " admitted")).c_str()) << int(d) << denied;
}

void LimitHeadersTest::roundTrip() {
  QFETCH(int, dialect);
  QFETCH(bool, denied);
  const auto d = LimitDialect(dialect);
  LimitSnapshot s{"per-key", 25, 10, denied ? 0 : 7, 4, denied};
  const LimitHeaders h = readLimitHeaders(limitHeaderFields(d, s), kNow);
  if (d == LimitDialect::Envoy && !denied) {
    QCOMPARE(h.dialect, LimitDialect::None);  // envoy says nothing on an admit
    return;
  }
  QCOMPARE(h.dialect, d);
  QCOMPARE(h.retryAfterMs, denied ? 4'000LL : -1LL);
  if (d == LimitDialect::NginxStatus) {
    QCOMPARE(h.nginxStatus, std::string(denied ? "REJECTED" : "PASSED"));
    return;
  }
  if (d == LimitDialect::Envoy) {
    QVERIFY(h.envoyLimited);
    return;
  }
  QCOMPARE(h.limit, 25LL);
  QCOMPARE(h.remaining, denied ? 0LL : 7LL);
  QCOMPARE(h.resetMs, 4'000LL);
  QCOMPARE(h.windowS, d == LimitDialect::XRateLimit ? -1LL : 10LL);
  if (d == LimitDialect::IetfDraft8) QCOMPARE(h.policies.front().name, std::string("per-key"));
}

void LimitHeadersTest::serveHeadersReadBack() {
  // What `serve` sends for a denied fixed_window decision reads back as draft-8 with its numbers.
  const Decision denied{false, 0, 10, Micros{2'500'000}, Micros{2'500'000}, Micros{0}, 10.0};
  const LimitContext c{Algorithm::FixedWindow, Quota::perWindow(10, Micros{5'000'000}), "k", 0};
  const LimitHeaders h = readLimitHeaders(decisionResponse(denied, c), kNow);
  QCOMPARE(h.dialect, LimitDialect::IetfDraft8);
  QCOMPARE(h.policies.front().name, std::string("fixed_window"));
  QCOMPARE(h.limit, 10LL);
  QCOMPARE(h.windowS, 5LL);
  QCOMPARE(h.remaining, 0LL);
  QCOMPARE(h.resetMs, 3'000LL);        // t rounded up to whole seconds
  QCOMPARE(h.retryAfterMs, 3'000LL);   // Retry-After: 3
  QCOMPARE(h.retryAfterMsField, 2'500LL);
}

namespace {
// 127.a.b.c as the number a.b.c (0 for anything else).
std::uint32_t loopbackIndex(const std::string& address) {
  unsigned a = 0, b = 0, c = 0;
  char tail = 0;
  if (std::sscanf(address.c_str(), "127.%u.%u.%u%c", &a, &b, &c, &tail) != 3 || a > 255 || b > 255 || c > 255) return 0;
  return a << 16 | b << 8 | c;
}
}  // namespace

void LimitHeadersTest::sourceAddresses() {
  // One run's clients: consecutive addresses, so as many distinct ones as clients.
  const std::uint32_t first = loopbackIndex(sourceAddressFor("run1-client-0"));
  QVERIFY(first >= 2);  // never 127.0.0.1 (nor 127.0.0.0)
  for (int i = 1; i < 300; ++i) {
    const std::uint32_t at = loopbackIndex(sourceAddressFor("run1-client-" + std::to_string(i)));
    QVERIFY2(at >= 2 && at <= 0xFFFFFE, sourceAddressFor("run1-client-" + std::to_string(i)).c_str());
    QCOMPARE(at, first + static_cast<std::uint32_t>(i) <= 0xFFFFFE ? first + i : first + i - 0xFFFFFD);
  }
  // The next run (another tag) gets other addresses: a per-IP limit never sees
  // the first run's consumption.
  QVERIFY(sourceAddressFor("run2-client-0") != sourceAddressFor("run1-client-0"));
  QVERIFY(sourceAddressFor("run2-client-5") != sourceAddressFor("run1-client-5"));
  // The same name, the same address; a name without an index is hashed whole.
  QCOMPARE(sourceAddressFor("run1-client-5"), sourceAddressFor("run1-client-5"));
  const std::string hashed = sourceAddressFor("alice");
  QVERIFY(loopbackIndex(hashed) >= 2 && hashed == sourceAddressFor("alice"));
  QVERIFY(loopbackIndex(sourceAddressFor("client-123456789012")) >= 2);  // too long an index: hashed too
}

QTEST_GUILESS_MAIN(LimitHeadersTest)
#include "test_limit_headers.moc"
