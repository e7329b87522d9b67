// `ratelab-cli serve` as a user runs it: URLs on stdout, real curl through the
// front, a tally line, a clean stop on SIGINT / SIGTERM, exit codes 2 and 3.

#include <QtTest>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <csignal>
#include <thread>

#include "http_test_support.hpp"

using namespace rl::test;

namespace {


}  // namespace

class ServeCliTest : public QObject {
  Q_OBJECT
 private slots:
  void servesAndStopsCleanly_data();
  void servesAndStopsCleanly();
  void stormTargetsHttp();
  void nginxDiesWithItsOwner();
  void exitCodes_data();
  void exitCodes();
};

void ServeCliTest::servesAndStopsCleanly_data() {
  QTest::addColumn<int>("signal");
  QTest::newRow("SIGINT (Ctrl+C)") << int(SIGINT);
  QTest::newRow("SIGTERM") << int(SIGTERM);
}

void ServeCliTest::servesAndStopsCleanly() {
  QFETCH(int, signal);
  QProcess p;
  p.start(cliPath(), {"serve", "--algorithm", "token_bucket", "--limit", "10", "--refill-rate", "1",
                      "--replicas", "4", "--port", "0"});
  QVERIFY2(p.waitForStarted(10'000), qPrintable(cliPath()));
  QByteArray seen;
  // Memory replicas share one event thread per core beside the front's (at least 1, at most 4).
  const int threads = std::clamp(static_cast<int>(std::thread::hardware_concurrency()) - 1, 1, 4);
  const auto serving = waitForLine(p, "serving ", seen);
  QVERIFY2(serving.contains("(4 replicas on " + QByteArray::number(threads) + (threads == 1 ? " thread" : " threads") +
                            ", at most 100000 keys each, fail-open"),
           seen.constData());
  const auto front = waitForLine(p, "front ", seen);
  QVERIFY2(front.startsWith("http://127.0.0.1:"), seen.constData());
  for (int i = 0; i < 4; ++i) QVERIFY2(!waitForLine(p, "replica " + QByteArray::number(i) + " http://127.0.0.1:", seen).isEmpty(), seen.constData());
  // Memory backend, 4 replicas: 5 requests reach each bucket of 10, so all 20 pass.
  const auto counts = parallelCurl(front.toStdString() + "/ping", "test-client", 20);
  QCOMPARE(counts.count(200) ? counts.at(200) : 0, 20);
  QVERIFY2(!waitForLine(p, "tally: 200: 20  429: 0", seen).isEmpty(), seen.constData());
  ::kill(static_cast<pid_t>(p.processId()), signal);
  QVERIFY(p.waitForFinished(10'000));
  QCOMPARE(p.exitStatus(), QProcess::NormalExit);
  QCOMPARE(p.exitCode(), 0);
  QVERIFY(p.readAllStandardOutput().contains("stopped: 200: 20  429: 0"));
}

void ServeCliTest::stormTargetsHttp() {
  // serve: token_bucket 10 per hour (no refill during the test), 2 replicas with a
  // memory bucket each; run: 30 requests through the front with the HTTP client
  // store. The front sends exactly 15 to each replica, each admits 10: exactly
  // 20 admitted and 10 denied, the memory backend's leak seen end to end.
  QProcess serve;
  serve.start(cliPath(), {"serve", "--algorithm", "token_bucket", "--limit", "10", "--window-ms", "3600000",
                          "--replicas", "2", "--port", "0"});
  QVERIFY(serve.waitForStarted(10'000));
  QByteArray seen;
  const auto front = waitForLine(serve, "front ", seen);
  QVERIFY2(!front.isEmpty(), seen.constData());
  QProcess run;
  run.start(cliPath(), {"run", "--backend", "http", "--http-target", QString::fromUtf8(front), "--algorithm",
                        "token_bucket", "--limit", "10", "--window-ms", "3600000", "--requests", "30",
                        "--concurrency", "4", "--clock", "server", "--json"});
  QVERIFY(run.waitForFinished(60'000));
  QCOMPARE(run.exitCode(), 0);
  const auto doc = QJsonDocument::fromJson(run.readAllStandardOutput());
  const auto r = doc.object()["runs"].toArray().at(0).toObject();
  QCOMPARE(r["backend"].toString(), QString("http"));
  QCOMPARE(r["offered"].toInt(), 30);
  QCOMPARE(r["admitted"].toInt(), 20);
  QCOMPARE(r["denied"].toInt(), 10);
  QCOMPARE(r["errors"].toInt(), 0);
  ::kill(static_cast<pid_t>(serve.processId()), SIGTERM);
  QVERIFY(serve.waitForFinished(10'000));
}

void ServeCliTest::nginxDiesWithItsOwner() {
  // SIGKILL leaves no time to clean up: nginx goes with its owner (PR_SET_PDEATHSIG).
  QProcess serve;
  serve.start(cliPath(), {"serve", "--front", "nginx", "--replicas", "2", "--port", "0"});
  QVERIFY(serve.waitForStarted(10'000));
  QByteArray seen;
  const auto front = waitForLine(serve, "front ", seen);
  const int pid = waitForLine(serve, "nginx pid ", seen).toInt();
  QVERIFY2(!front.isEmpty() && pid > 0, seen.constData());
  QVERIFY(curlInclude(front.toStdString() + "/ping", "k").startsWith("HTTP/1.1 200"));
  QCOMPARE(::kill(pid, 0), 0);
  ::kill(static_cast<pid_t>(serve.processId()), SIGKILL);
  QVERIFY(serve.waitForFinished(10'000));
  QTRY_VERIFY_WITH_TIMEOUT(::kill(pid, 0) != 0, 10'000);
}

void ServeCliTest::exitCodes_data() {
  QTest::addColumn<QStringList>("args");
  QTest::addColumn<int>("code");
  QTest::addColumn<QByteArray>("message");
  QTest::newRow("unknown flag") << QStringList{"--bogus", "1"} << 2 << QByteArray("unknown flag --bogus");
  QTest::newRow("two algorithms") << QStringList{"--algorithm", "gcra,token_bucket"} << 2 << QByteArray("--algorithm");
  QTest::newRow("backend http") << QStringList{"--backend", "http"} << 2 << QByteArray("--backend http");
  QTest::newRow("bad port") << QStringList{"--port", "70000"} << 2 << QByteArray("--port");
  QTest::newRow("max keys below 1024") << QStringList{"--max-keys", "100"} << 2 << QByteArray("--max-keys");
  QTest::newRow("bad bind") << QStringList{"--bind", "localhost:80"} << 2 << QByteArray("bind address");
  QTest::newRow("replica ports count") << QStringList{"--replicas", "2", "--replica-ports", "9001"} << 2
                                       << QByteArray("--replica-ports");
  QTest::newRow("replica threads over replicas") << QStringList{"--replicas", "2", "--replica-threads", "3"} << 2
                                                << QByteArray("--replica-threads");
  QTest::newRow("replica threads 0") << QStringList{"--replica-threads", "0"} << 2 << QByteArray("--replica-threads");
  QTest::newRow("bad front") << QStringList{"--front", "haproxy"} << 2 << QByteArray("--front 'haproxy' is unknown: allowed builtin, nginx or none");
  QTest::newRow("bad trusted proxy") << QStringList{"--trusted-proxy", "10.0.0.0/99"} << 2 << QByteArray("--trusted-proxy '10.0.0.0/99'");
  QTest::newRow("refill 1e-300") << QStringList{"--refill-rate", "1e-300"} << 2 << QByteArray("at least one token per year");
  QTest::newRow("redis unreachable") << QStringList{"--backend", "redis-lua", "--redis", "redis://127.0.0.1:1"} << 3
                                     << QByteArray("127.0.0.1:1");
}

void ServeCliTest::exitCodes() {
  QFETCH(QStringList, args);
  QFETCH(int, code);
  QFETCH(QByteArray, message);
  QProcess p;
  p.start(cliPath(), QStringList{"serve"} + args);
  QVERIFY(p.waitForFinished(15'000));
  QCOMPARE(p.exitCode(), code);
  const auto err = p.readAllStandardError();
  QVERIFY2(err.contains(message), err.constData());
  QCOMPARE(err.count('\n'), 1);  // one clear line
}

QTEST_GUILESS_MAIN(ServeCliTest)
#include "test_serve_cli.moc"
