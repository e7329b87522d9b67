// A dead HTTP target (issue 25, item 16): before, every request cost the 5 s
// timeout, errors only, nothing said (200 requests: about 17 minutes). Now the
// target's breaker makes it fail fast after 3 requests without an answer, the
// run's failure policy decides, and the first outage names the target and why.
// Two dead targets, both real sockets: a port that listens and never reads
// (the kernel completes the TCP handshake, nobody answers) and a closed port.
#include <QtTest>

#include <chrono>

#include "dead_port.hpp"
#include "http/http_store.hpp"
#include "storm/storm_runner.hpp"
#include "storm/store_factory.hpp"

using namespace rl;

using test::DeadPort;

class HttpBreakerTest : public QObject {
  Q_OBJECT
 private slots:
  void deadTargetFollowsThePolicyQuickly_data();
  void deadTargetFollowsThePolicyQuickly();
  void breakerOpensAtThreeAndProbesOnce();
};

void HttpBreakerTest::deadTargetFollowsThePolicyQuickly_data() {
  QTest::addColumn<bool>("listening");
  QTest::addColumn<QString>("policy");
  QTest::addColumn<QString>("cause");
  QTest::newRow("silent, open") << true << "open" << "no complete answer within 500 ms";
  QTest::newRow("silent, closed") << true << "closed" << "no complete answer within 500 ms";
  QTest::newRow("closed port, open") << false << "open" << "cannot connect: Connection refused";
  QTest::newRow("closed port, closed") << false << "closed" << "cannot connect: Connection refused";
}

void HttpBreakerTest::deadTargetFollowsThePolicyQuickly() {
  QFETCH(bool, listening);
  QFETCH(QString, policy);
  QFETCH(QString, cause);
  DeadPort dead(listening);
  QVERIFY(dead.port > 0);
  const std::string target = "http://127.0.0.1:" + std::to_string(dead.port) + "/";
  StormSpec spec;
  spec.backend = Backend::Http;
  spec.http.targets = {target};
  spec.http.timeout = Micros{500'000};
  spec.resilience.onRedisError = *parseFailurePolicy(policy.toStdString());
  spec.quota = Quota::perWindow(10, Micros{60'000'000});
  spec.algorithms = {Algorithm::FixedWindow};
  spec.requests = 200;
  spec.concurrency = 4;
  auto factory = storeFactoryFor(spec);
  QVERIFY(factory.ok());
  const auto t0 = std::chrono::steady_clock::now();
  auto o = runStorm(spec, *factory);
  const auto took = std::chrono::steady_clock::now() - t0;
  QVERIFY(o.ok());
  // main: 200 x the timeout; now 4 workers pay it about once each before the breaker opens.
  QVERIFY2(took < std::chrono::seconds(20), qPrintable(QString::number(took.count() / 1e9) + " s"));
  const AlgorithmCounters& c = o->counters.at(0);
  QCOMPARE(c.admitted + c.denied, std::int64_t{200});
  QCOMPARE(c.admitted, policy == "open" ? std::int64_t{200} : std::int64_t{0});  // main: 0 admitted, 200 faults
  QCOMPARE(c.errors, std::int64_t{200});  // every one an outage the policy decided...
  QVERIFY2(!o->firstDecisionError, o->firstDecisionError ? o->firstDecisionError->message.c_str() : "");  // ...no fault
  QVERIFY(o->firstOutage);
  const std::string& why = o->firstOutage->message;
  QVERIFY2(why.find(target) != std::string::npos, why.c_str());  // the target
  QVERIFY2(why.find(cause.toStdString()) != std::string::npos, why.c_str());  // and the cause
}

void HttpBreakerTest::breakerOpensAtThreeAndProbesOnce() {
  HttpTargetBreaker b("http://127.0.0.1:9/");
  bool probe = true;
  for (int i = 0; i < kHttpBreakerThreshold; ++i) {  // below the threshold every request goes through
    QVERIFY(!b.admit(probe));
    QVERIFY(!probe);
    b.failed(probe, "HTTP http://127.0.0.1:9/: cannot connect: Connection refused");
  }
  QVERIFY(b.open());
  auto fast = b.admit(probe);  // cooling off: fails at once, naming the target and the cause once
  QVERIFY(fast);
  QCOMPARE(fast->code, ErrorCode::Unavailable);
  QVERIFY2(fast->message.starts_with("HTTP target http://127.0.0.1:9/ is down: 3 requests in a row got no answer "
                                     "(the last: cannot connect: Connection refused); not asked for "),
           fast->message.c_str());
  QElapsedTimer coolOff;  // after the cool-off (100 ms): one probe...
  coolOff.start();
  while (b.admit(probe) && coolOff.elapsed() < 2000) QTest::qWait(5);
  QVERIFY(probe);
  QVERIFY2(coolOff.elapsed() >= 90, qPrintable(QString::number(coolOff.elapsed())));
  bool other = false;
  auto second = b.admit(other);  // ...and only one
  QVERIFY(second);
  QVERIFY2(second->message.ends_with("one probe request is on its way"), second->message.c_str());
  b.answered(probe);  // any answer closes it
  QVERIFY(!b.open());
  QVERIFY(!b.admit(other));
  QVERIFY(!other);
}

QTEST_GUILESS_MAIN(HttpBreakerTest)
#include "test_http_breaker.moc"
