// Peers that stop answering, through the real ratelab-cli (issue 25):
// - item 16: a dead HTTP target cost 5 s per request with nothing printed
//   (200 requests: about 17 minutes). Now --http-timeout-ms bounds a request,
//   the target's breaker fails fast, --on-redis-error decides, and one line
//   names the target and the cause.
// - item 6: a looping user script left the shared Redis BUSY for every client,
//   reported as "Redis down". Now RateLab sends SCRIPT KILL on a new connection
//   and says so in one sentence; a script that wrote cannot be killed, and the
//   sentence says that (and that only SHUTDOWN NOSAVE would stop it).
// Exit codes: a dead HTTP target mid-run is an outage the policy decided: 0
// (3 when it is down at start); a looping script is the script's fault: 1.
#include <QtTest>

#include <QJsonArray>
#include <QTcpSocket>
#include <QTemporaryDir>

#include "support/cli_process.hpp"
#include "support/dead_port.hpp"
#include "support/redis_test_server.hpp"

using namespace rl;

namespace {
// The first reply line of `command` (RESP inline) on a new connection to `port`, within `ms`.
QByteArray firstReplyLine(int port, const QByteArray& command, int ms = 2000) {
  QTcpSocket s;
  s.connectToHost("127.0.0.1", static_cast<quint16>(port));
  if (!s.waitForConnected(ms)) return "no connection";
  s.write(command + "\r\n");
  s.waitForBytesWritten(ms);
  QElapsedTimer t;
  t.start();
  while (!s.canReadLine() && t.elapsed() < ms) s.waitForReadyRead(50);
  return s.readLine().trimmed();
}
}  // namespace

class CliRunawayPeersTest : public QObject {
  Q_OBJECT
 private slots:
  void silentHttpTargetFollowsThePolicy();
  void closedHttpPortExitsThree();
  void httpTimeoutIsBounded_data();
  void httpTimeoutIsBounded();
  void loopingScriptIsKilled();
  void loopingScriptAfterAWriteIsNamedUnkillable();

 private:
  QString write(const char* name, const QByteArray& body) { return test::writeFile(tmp_, name, body); }
  QTemporaryDir tmp_;
};

void CliRunawayPeersTest::silentHttpTargetFollowsThePolicy() {
  test::DeadPort silent(true);
  QVERIFY(silent.port > 0);
  const QString target = QString("http://127.0.0.1:%1").arg(silent.port);
  QElapsedTimer t;
  t.start();
  const auto c = test::runCli({"run", "--backend", "http", "--http-target", target, "--requests", "200", "--limit",
                               "10", "--on-redis-error", "closed", "--json"});
  // main: 200 x 5 s. Now 3 x the 2 s default before the breaker opens, then fast.
  QVERIFY2(t.elapsed() < 20'000, qPrintable(QString::number(t.elapsed()) + " ms"));
  QCOMPARE(c.exitCode, 0);  // an outage the policy decided, as when Redis is down mid-run
  const QJsonObject r = c.json()["runs"].toArray()[0].toObject();
  QVERIFY2(!r.isEmpty(), c.err.constData());
  QCOMPARE(r["offered"].toInt(), 200);
  QCOMPARE(r["admitted"].toInt(), 0);  // closed: every one denied...
  QCOMPARE(r["denied"].toInt(), 200);
  QCOMPARE(r["degraded"].toInt(), 200);  // ...by the policy (main: 200 faults, "cannot connect" as an error)
  QVERIFY(!r.contains("first_error"));
  const QByteArray line = "ratelab-cli run: http: down, --on-redis-error closed decided: first outage: HTTP " +
                          target.toUtf8() + "/: no complete answer within 2000 ms\n";
  QVERIFY2(c.err.contains(line), c.err.constData());
  QCOMPARE(c.err.count("first outage"), 1);  // one line
}

void CliRunawayPeersTest::closedHttpPortExitsThree() {
  const int port = test::DeadPort(false).port;  // a free port, closed again: connects are refused
  QElapsedTimer t;
  t.start();
  const auto c = test::runCli({"run", "--backend", "http", "--http-target", QString("http://127.0.0.1:%1").arg(port),
                               "--requests", "200"});
  QVERIFY(t.elapsed() < 20'000);
  QCOMPARE(c.exitCode, 3);
  QCOMPARE(QString::fromUtf8(c.err), QString("ratelab-cli run: cannot reach the HTTP target: HTTP http://127.0.0.1:%1/: "
                                             "cannot connect: Connection refused\n").arg(port));
}

void CliRunawayPeersTest::httpTimeoutIsBounded_data() {
  QTest::addColumn<QString>("value");
  QTest::addColumn<QString>("error");
  QTest::newRow("0") << "0" << "ratelab-cli run: --http-timeout-ms 0 is out of range: allowed 1 to 60000 ms";
  QTest::newRow("60001") << "60001" << "ratelab-cli run: --http-timeout-ms 60001 is out of range: allowed 1 to 60000 ms";
  QTest::newRow("text") << "soon" << "ratelab-cli run: --http-timeout-ms: 'soon' is not valid: allowed an integer 1 to 60000 ms";
}

void CliRunawayPeersTest::httpTimeoutIsBounded() {
  QFETCH(QString, value);
  QFETCH(QString, error);
  const auto c = test::runCli({"run", "--backend", "http", "--http-target", "http://127.0.0.1:1", "--requests", "5",
                               "--http-timeout-ms", value});
  QCOMPARE(c.exitCode, 2);
  QCOMPARE(QString::fromUtf8(c.err).trimmed(), error);
  const QString scenario = write("timeout.json", "{\"backend\": \"http\", \"http_target\": \"http://127.0.0.1:1\", "
                                                 "\"requests\": 5, \"http_timeout_ms\": 0}");
  const auto s = test::runCli({"run", "--scenario", scenario});
  QCOMPARE(s.exitCode, 2);
  QVERIFY2(s.err.contains("--http-timeout-ms 0 is out of range: allowed 1 to 60000 ms"), s.err.constData());
}

void CliRunawayPeersTest::loopingScriptIsKilled() {
  test::RedisTestServer redis;
  RL_REQUIRE_REDIS(redis);
  {
    auto conn = redis.connect();
    QVERIFY(conn.ok());
    QVERIFY(conn->command({"CONFIG", "SET", "lua-time-limit", "200"}).ok());  // busy-reply-threshold since Redis 7
  }
  const QString script = write("loop.lua", "while true do end\nreturn 1\n");
  QElapsedTimer t;
  t.start();
  const auto c = test::runCli({"run", "--backend", "redis-script", "--script", script, "--redis",
                               QString("redis://127.0.0.1:%1").arg(redis.endpoint().port), "--requests", "5", "--json"});
  QVERIFY2(t.elapsed() < 20'000, qPrintable(QString::number(t.elapsed()) + " ms"));
  QCOMPARE(c.exitCode, 1);  // the script's fault (main: 0, five decisions "degraded (Redis down)" and admitted)
  const QJsonObject r = c.json()["runs"].toArray()[0].toObject();
  QVERIFY2(!r.isEmpty(), c.err.constData());
  QCOMPARE(r["errors"].toInt(), 5);
  QCOMPARE(r["admitted"].toInt(), 0);
  QCOMPARE(r["degraded"].toInt(), 0);
  const QString sentence = "script loop.lua looped: no answer within the 100 ms command timeout, and it was still "
                           "running after the server's busy-reply-threshold (200 ms; other clients got BUSY meanwhile); "
                           "RateLab sent SCRIPT KILL on a new connection and Redis killed it; it is not run again in "
                           "this run (a limiter script must return: fix the loop)";
  QCOMPARE(r["first_error"].toString(), sentence);
  QVERIFY2(c.err.contains(sentence.toUtf8()), c.err.constData());
  // Another client finds the server answering (main: BUSY until the script ended, i.e. never).
  QTRY_COMPARE_WITH_TIMEOUT(firstReplyLine(redis.endpoint().port, "PING"), QByteArray("+PONG"), 2000);
}

void CliRunawayPeersTest::loopingScriptAfterAWriteIsNamedUnkillable() {
  test::RedisTestServer redis;
  RL_REQUIRE_REDIS(redis);
  const int port = redis.endpoint().port;
  {
    auto conn = redis.connect();
    QVERIFY(conn.ok());
    QVERIFY(conn->command({"CONFIG", "SET", "lua-time-limit", "200"}).ok());
  }
  const QString script = write("writes_then_loops.lua", "redis.call('SET', KEYS[1], '1')\nwhile true do end\nreturn 1\n");
  const auto c = test::runCli({"run", "--backend", "redis-script", "--script", script, "--redis",
                               QString("redis://127.0.0.1:%1").arg(port), "--requests", "3", "--json"});
  QCOMPARE(c.exitCode, 1);
  const QJsonObject r = c.json()["runs"].toArray()[0].toObject();
  QVERIFY2(!r.isEmpty(), c.err.constData());
  QCOMPARE(r["errors"].toInt(), 3);
  QCOMPARE(r["admitted"].toInt(), 0);
  const QString sentence = QString("script writes_then_loops.lua looped after writing: no answer within the 100 ms "
                                   "command timeout, and Redis refused SCRIPT KILL (UNKILLABLE: a script that wrote "
                                   "cannot be killed), so 127.0.0.1:%1 answers BUSY to every client until the script "
                                   "ends; only SHUTDOWN NOSAVE stops it, losing the data not saved, and RateLab does "
                                   "not send that (fix the loop)").arg(port);
  QCOMPARE(r["first_error"].toString(), sentence);
  QVERIFY(firstReplyLine(port, "PING").startsWith("-BUSY"));  // what the sentence says
  firstReplyLine(port, "SHUTDOWN NOSAVE");  // this test's own server: stopped the only way there is
}

QTEST_GUILESS_MAIN(CliRunawayPeersTest)
#include "test_cli_runaway_peers.moc"
