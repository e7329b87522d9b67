// Any HTTP limiter as a storm target: a REAL nginx limit_req (Debian nginx-light,
// started here on a free loopback port) stormed beside RateLab's leaky_bucket
// with the same rate and burst, through ratelab-cli and through HttpStore.
// Measured, not assumed: nginx's burst=N admits N + 1 at once, exactly like
// leaky_bucket --limit N; both decide the same on a burst and on a steady
// trace; nginx truncates r/m rates to whole thousandths of a request per
// second (7r/m drains one request per 8.621 s, not 8.571 s), shown below.

#include <QtTest>

#include <QJsonArray>
#include <chrono>
#include <thread>

#include "http/http_store.hpp"
#include "store/memory_store.hpp"
#include "support/cli_process.hpp"
#include "support/nginx_limit_req.hpp"

using namespace rl;

namespace {
QJsonObject run(const QJsonObject& doc, int i) { return doc["runs"].toArray()[i].toObject(); }
}  // namespace

class HttpTargetsTest : public QObject {
  Q_OBJECT
 private slots:
  void burstDecidesLikeLeakyBucket();
  void steadyTrafficDecidesLikeLeakyBucket();
  void sourceAddressIsTheClient();
  void unlistedStatusIsAnErrorNeverAnAdmit();
  void nothingListeningExitsThree();
  void minuteRatesAreTruncatedByNginx();
};

void HttpTargetsTest::burstDecidesLikeLeakyBucket() {
  test::NginxLimitReq nginx("10r/s", 5);
  QVERIFY2(nginx.ok(), qPrintable(nginx.error()));
  const auto c = test::runCli({"run", "--backend", "http", "--http-target", nginx.url(), "--algorithm", "leaky_bucket",
                               "--limit", "6", "--refill-rate", "10", "--window-ms", "1000", "--requests", "100",
                               "--clock", "client", "--compare-backend", "memory", "--json"});
  QVERIFY2(c.exitCode == 0, c.err.constData());
  const QJsonObject doc = c.json();
  QCOMPARE(run(doc, 0)["backend"].toString(), QString("http"));
  QCOMPARE(run(doc, 0)["admitted"].toInt(), 6);  // burst=5: 5 queued + the one served, all at once (limit 6)
  QCOMPARE(run(doc, 0)["denied"].toInt(), 94);
  QCOMPARE(run(doc, 0)["errors"].toInt(), 0);
  QCOMPARE(run(doc, 1)["backend"].toString(), QString("memory"));
  QCOMPARE(run(doc, 1)["admitted"].toInt(), 6);
  QCOMPARE(run(doc, 1)["decisions_differing_from_first_run"].toInt(), 0);
}

void HttpTargetsTest::steadyTrafficDecidesLikeLeakyBucket() {
  // 30 requests/s for 2 s against 10 r/s burst 5 (poisson, seeded): same totals;
  // single decisions may swap only where a request lands within a millisecond
  // of a drain instant (nginx's clock is whole ms of its event loop).
  test::NginxLimitReq nginx("10r/s", 5);
  QVERIFY2(nginx.ok(), qPrintable(nginx.error()));
  const auto c = test::runCli({"run", "--backend", "http", "--http-target", nginx.url(), "--algorithm", "leaky_bucket",
                               "--limit", "6", "--refill-rate", "10", "--window-ms", "1000", "--pattern", "poisson",
                               "--rate", "30", "--requests", "60", "--clock", "client", "--compare-backend", "memory",
                               "--json"});
  QVERIFY2(c.exitCode == 0, c.err.constData());
  const QJsonObject doc = c.json();
  const int nginxAdmitted = run(doc, 0)["admitted"].toInt();
  const int leakyAdmitted = run(doc, 1)["admitted"].toInt();
  QVERIFY2(std::abs(nginxAdmitted - leakyAdmitted) <= 1, qPrintable(QString("nginx %1, leaky_bucket %2").arg(nginxAdmitted).arg(leakyAdmitted)));
  QVERIFY(nginxAdmitted >= 20 && nginxAdmitted <= 28);  // 6 at once + about 10/s
  QVERIFY(run(doc, 1)["decisions_differing_from_first_run"].toInt() <= 12);  // swapped pairs near drain instants
  QCOMPARE(run(doc, 0)["errors"].toInt(), 0);
}

void HttpTargetsTest::sourceAddressIsTheClient() {
  // $binary_remote_addr: three clients from 127.0.0.2..4 get three buckets; as one header key, one.
  test::NginxLimitReq nginx("1r/s", 2);
  QVERIFY2(nginx.ok(), qPrintable(nginx.error()));
  const QStringList common{"run", "--backend", "http", "--http-target", nginx.url(), "--algorithm", "leaky_bucket",
                           "--limit", "3", "--refill-rate", "1", "--requests", "30", "--clients", "3", "--json"};
  const auto perIp = test::runCli(common + QStringList{"--http-key", "source-addr"});
  QVERIFY2(perIp.exitCode == 0, perIp.err.constData());
  QCOMPARE(run(perIp.json(), 0)["admitted"].toInt(), 9);  // 3 clients x (burst 2 + 1)
  QTest::qWait(3100);  // every bucket drains
  const auto oneIp = test::runCli(common + QStringList{"--http-key", "header:x-api-key"});
  QVERIFY2(oneIp.exitCode == 0, oneIp.err.constData());
  QCOMPARE(run(oneIp.json(), 0)["admitted"].toInt(), 3);  // nginx keys on the address only
}

void HttpTargetsTest::unlistedStatusIsAnErrorNeverAnAdmit() {
  test::NginxLimitReq nginx("10r/s", 1);
  QVERIFY2(nginx.ok(), qPrintable(nginx.error()));
  const auto c = test::runCli({"run", "--backend", "http", "--http-target", nginx.url(), "--requests", "10",
                               "--http-deny-status", "503", "--on-redis-error", "open", "--json"});
  QCOMPARE(c.exitCode, 1);  // decisions failed: the run says so
  QCOMPARE(run(c.json(), 0)["admitted"].toInt(), 2);
  QCOMPARE(run(c.json(), 0)["errors"].toInt(), 8);  // the 429s: not listed as a deny status
  QVERIFY2(c.err.contains("answered 429: neither 2xx (admitted) nor a deny status (503, see --http-deny-status)"), c.err.constData());
  // From a fresh address (a fresh bucket): limit_req passes two, the file is missing.
  const auto path = test::runCli({"run", "--backend", "http", "--http-target", nginx.url() + "missing.html",
                                  "--http-key", "source-addr", "--requests", "3", "--json"});
  QCOMPARE(path.exitCode, 1);
  QCOMPARE(run(path.json(), 0)["errors"].toInt(), 2);  // 404: an error, never admitted
  QCOMPARE(run(path.json(), 0)["admitted"].toInt(), 0);
  QCOMPARE(run(path.json(), 0)["denied"].toInt(), 3);  // the third: 429 from limit_req
}

void HttpTargetsTest::nothingListeningExitsThree() {
  const auto c = test::runCli({"run", "--backend", "http", "--http-target", "http://127.0.0.1:1/", "--requests", "5"});
  QCOMPARE(c.exitCode, 3);
  QVERIFY2(c.err.startsWith("ratelab-cli run: cannot reach the HTTP target: HTTP http://127.0.0.1:1/: cannot connect"),
           c.err.constData());
  QVERIFY(c.out.isEmpty());
}

void HttpTargetsTest::minuteRatesAreTruncatedByNginx() {
  // nginx stores a rate as thousandths of a request per second, truncated:
  // 7r/m = 7000/60 = 116 (not 116.67), so one request drains in 1000/0.116 ms =
  // 8621 ms; RateLab's interval is round(60 s / 7) = 8571429 us. A request
  // 8600 ms after a full burst: RateLab admits, nginx refuses.
  test::NginxLimitReq nginx("7r/m", 1);
  QVERIFY2(nginx.ok(), qPrintable(nginx.error()));
  auto http = makeHttpStore(nginx.url().toStdString());
  QVERIFY(http);
  MemoryStore memory;
  const Quota q = Quota::perWindow(2, Micros{60'000'000}).withRefill(7.0 / 60.0);  // burst=1 is limit 2
  const auto t0 = std::chrono::steady_clock::now();
  const Micros now0{1'800'000'000'000'000};
  std::vector<int> viaNginx, viaLeaky;
  for (int i = 0; i < 3; ++i) {
    const auto d = (*http)->decide({Algorithm::LeakyBucket, "c", q, 1, now0});
    QVERIFY2(d, d ? "" : d.error().message.c_str());
    viaNginx.push_back(d->allowed);
    if (!d->allowed) {
      QCOMPARE(d->remaining, -1);                 // nginx sends no limit headers: unknown,
      QCOMPARE(d->retryAfter.count(), 0);         // never invented
    }
    viaLeaky.push_back(memory.decide({Algorithm::LeakyBucket, "c", q, 1, now0})->allowed);
  }
  QCOMPARE(viaNginx, (std::vector<int>{1, 1, 0}));  // burst=1: two at once
  QCOMPARE(viaLeaky, (std::vector<int>{1, 1, 0}));
  std::this_thread::sleep_until(t0 + std::chrono::milliseconds(8600));
  const auto late = (*http)->decide({Algorithm::LeakyBucket, "c", q, 1, now0});
  QVERIFY(late);
  QVERIFY2(!late->allowed, "nginx admitted at 8600 ms: its 7r/m drains a request every 8621 ms");
  QVERIFY(memory.decide({Algorithm::LeakyBucket, "c", q, 1, now0 + Micros{8'600'000}})->allowed);
}

QTEST_GUILESS_MAIN(HttpTargetsTest)
#include "test_http_targets.moc"
