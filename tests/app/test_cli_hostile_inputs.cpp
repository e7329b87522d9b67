// Hostile inputs through the real ratelab-cli (issue 25): a trace filter on a
// 70 KB URL and a backtracking pattern, a gzip trace past the request caps of
// tune and run, sliding_log costs that needed gigabytes, /dev/zero as a script
// or a legit-file, and terminal escapes in trace keys and Redis key names.
// Each exits with one clear line (or prints escaped bytes) and never crashes.
#include <QtTest>

#include <QJsonArray>
#include <QTcpServer>
#include <QTemporaryDir>
#include <zlib.h>

#include "support/cli_process.hpp"
#include "support/redis_test_server.hpp"

using namespace rl;

namespace {
QByteArray combinedLine(const QByteArray& target) {
  return "127.0.0.1 - - [10/Oct/2023:13:55:36 +0000] \"GET " + target + " HTTP/1.1\" 200 2 \"-\" \"curl/7.88.1\"\n";
}

// One line on stderr, starting with `prefix`.
bool oneLineError(const test::CliRun& c, const QString& prefix) {
  const QString err = QString::fromUtf8(c.err).trimmed();
  return c.exitCode == 2 && err.count('\n') == 0 && err.startsWith(prefix);
}
}  // namespace

class CliHostileInputsTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase();
  void regexFilterOnA70KbUrl();
  void nestedStarFilterIsPrompt();
  void tuneStopsReadingAtMaxRequests();
  void runChecksTheDecisionCapWhileLoading();
  void slidingLogCostIsBounded();
  void devZeroIsRefused_data();
  void devZeroIsRefused();
  void traceKeysPrintEscaped();
  void redisKeyNamesPrintEscaped();
  void scriptOutagesGoThroughThePolicy_data();
  void scriptOutagesGoThroughThePolicy();
  void deeplyNestedScriptReplyIsAFault();

 private:
  QString write(const char* name, const QByteArray& body) { return test::writeFile(tmp_, name, body); }
  QString url() const { return QString("redis://127.0.0.1:%1").arg(redis_->endpoint().port); }
  QTemporaryDir tmp_;
  QString longLog_;
  std::unique_ptr<test::RedisTestServer> redis_;
};

void CliHostileInputsTest::initTestCase() {
  redis_ = std::make_unique<test::RedisTestServer>();
  RL_REQUIRE_REDIS(*redis_);
  longLog_ = write("long.log", combinedLine("/api/login") + combinedLine("/home") +
                                   combinedLine("/x?pad=" + QByteArray(70'000, 'a') + "&next=/login") +
                                   combinedLine("/y?pad=" + QByteArray(70'000, 'b')) +
                                   combinedLine("/api/login?next=/home"));
}

void CliHostileInputsTest::regexFilterOnA70KbUrl() {
  // Segfaulted run, tune and the window's Tune panel (the same loadTrace) with std::regex.
  const auto run = test::runCli({"run", "--trace", longLog_, "--trace-filter", ".*login", "--limit", "1000", "--json"});
  QVERIFY2(run.exitCode == 0, run.err.constData());
  QCOMPARE(run.json()["runs"].toArray()[0].toObject()["offered"].toInt(), 3);
  QCOMPARE(run.json()["trace"].toObject()["filtered"].toInt(), 2);
  const auto tune = test::runCli({"tune", "--trace", longLog_, "--trace-filter", ".*login", "--limit", "1,2", "--json"});
  QVERIFY2(tune.exitCode == 0, tune.err.constData());
  QCOMPARE(tune.json()["trace"].toObject()["requests"].toInt(), 3);
}

void CliHostileInputsTest::nestedStarFilterIsPrompt() {
  const QByteArray a28 = "/" + QByteArray(27, 'a');
  const QString log = write("nested.log", combinedLine(a28) + combinedLine(a28) + combinedLine("/aab"));
  QElapsedTimer clock;
  clock.start();
  const auto run = test::runCli({"run", "--trace", log, "--trace-filter", "(a*)*b", "--limit", "10", "--json"}, 30'000);
  QVERIFY2(run.exitCode == 0, run.err.constData());
  QVERIFY(clock.elapsed() < 10'000);  // more than 60 s with std::regex
  QCOMPARE(run.json()["runs"].toArray()[0].toObject()["offered"].toInt(), 1);
}

void CliHostileInputsTest::tuneStopsReadingAtMaxRequests() {
  const QString gz = tmp_.filePath("many.csv.gz");
  gzFile f = gzopen(gz.toLocal8Bit().constData(), "wb9");
  QVERIFY(f != nullptr);
  for (int i = 0; i < 2000; ++i) gzputs(f, "1700000000,a\n");
  gzclose(f);
  const auto c = test::runCli({"tune", "--trace", gz, "--limit", "5", "--max-requests", "1000"});
  QVERIFY2(oneLineError(c, "ratelab-cli tune: --trace: '" + gz + "' has more than 1000 requests (reading stopped at "
                           "line 1001, 26000 bytes decompressed): allowed at most 1000 requests (--max-requests 1000: "
                           "allowed 1 to 100000000 (16 bytes each))"),
           c.err.constData());
  const auto zero = test::runCli({"tune", "--trace", gz, "--limit", "5", "--max-requests", "0"});
  QVERIFY2(oneLineError(zero, "ratelab-cli tune: --max-requests"), zero.err.constData());
  const auto enough = test::runCli({"tune", "--trace", gz, "--limit", "5", "--max-requests", "2000", "--json"});
  QVERIFY2(enough.exitCode == 0, enough.err.constData());
  QCOMPARE(enough.json()["trace"].toObject()["bytes_read"].toInt(), 26000);
}

void CliHostileInputsTest::runChecksTheDecisionCapWhileLoading() {
  // Six algorithms: 20000000 / 6 = 3333333 requests; the read stops at the next one.
  const QString gz = tmp_.filePath("cap.csv.gz");
  gzFile f = gzopen(gz.toLocal8Bit().constData(), "wb1");
  QVERIFY(f != nullptr);
  const QByteArray block = QByteArray("1700000000,a\n").repeated(10'000);
  for (int i = 0; i < 334; ++i) gzwrite(f, block.constData(), unsigned(block.size()));  // 3340000 lines
  gzclose(f);
  const auto c = test::runCli({"run", "--trace", gz, "--algorithm", "all", "--limit", "10"});
  QVERIFY2(oneLineError(c, "ratelab-cli run: --trace: '" + gz + "' has more than 3333333 requests (reading stopped "
                           "at line 3333334, "),
           c.err.constData());
  QVERIFY2(c.err.contains(" bytes decompressed): allowed at most 3333333 requests (a run makes at most 20000000 "
                          "decisions: requests x 6 algorithms)"),
           c.err.constData());
}

void CliHostileInputsTest::slidingLogCostIsBounded() {
  const auto c = test::runCli({"run", "--algorithm", "sliding_log", "--limit", "1000000000", "--cost", "1000000000",
                               "--requests", "2"});
  QVERIFY2(oneLineError(c, "ratelab-cli run: --limit: limit 1000000000 is too large for sliding_log"), c.err.constData());
  const QString trace = write("cost.csv", "1700000000,a,2147483647\n");
  const auto t = test::runCli({"run", "--trace", trace, "--algorithm", "sliding_log", "--limit", "2147483647"});
  QVERIFY2(oneLineError(t, "ratelab-cli run: --limit: limit 2147483647 is too large for sliding_log"), t.err.constData());
}

void CliHostileInputsTest::devZeroIsRefused_data() {
  QTest::addColumn<QStringList>("args");
  QTest::addColumn<QString>("error");
  QTest::newRow("--script") << QStringList{"run", "--backend", "redis-script", "--script", "/dev/zero", "--redis", "@url",
                                           "--requests", "5"}
                            << "ratelab-cli run: --script '/dev/zero' is larger than the 4 MB cap";
  QTest::newRow("scenario script") << QStringList{"run", "--scenario", "@scenario", "--redis", "@url"}
                                   << "ratelab-cli run: --script '/dev/zero' is larger than the 4 MB cap";
  QTest::newRow("--legit-file") << QStringList{"tune", "--trace", "@trace", "--limit", "5", "--legit-file", "/dev/zero"}
                                << "ratelab-cli tune: --legit-file '/dev/zero' is larger than the 4 MB cap";
}

void CliHostileInputsTest::devZeroIsRefused() {
  QFETCH(QStringList, args);
  QFETCH(QString, error);
  const QString scenario = write("zero.json", R"({"name": "zero", "backend": "redis-script", "script": "/dev/zero",
                                                  "requests": 5})");
  args.replaceInStrings("@url", url()).replaceInStrings("@scenario", scenario).replaceInStrings("@trace", longLog_);
  QElapsedTimer clock;
  clock.start();
  const auto c = test::runCli(args, 30'000);
  QVERIFY(clock.elapsed() < 10'000);  // /dev/zero passed 3 GB before
  QVERIFY2(oneLineError(c, error), c.err.constData());
}

void CliHostileInputsTest::traceKeysPrintEscaped() {
  const QString trace = write("keys.csv", "1700000000,\x1b]0;owned\x07\n1700000000.5,\x1b[2Jx\n1700000001,plain\n");
  const auto c = test::runCli({"tune", "--trace", trace, "--limit", "5"});
  QVERIFY2(c.exitCode == 0, c.err.constData());
  QVERIFY2(c.out.contains("\\x1b]0;owned\\x07 (1)") && c.out.contains("\\x1b[2Jx (1)"), c.out.constData());
  QVERIFY(!c.out.contains('\x1b') && !c.out.contains('\x07'));
}

void CliHostileInputsTest::redisKeyNamesPrintEscaped() {
  auto conn = redis_->connect();
  QVERIFY(conn.ok());
  const std::string name = std::string("esc:\x1b]0;owned\x07\r\nname\0cut", 24);
  const std::string value = std::string("HYLL\x01\x00\x1b[2J", 10);
  QVERIFY(conn->command({"SET", name, value}).ok());
  const auto c = test::runCli({"keys", "--redis", url(), "--prefix", "esc:"});
  QVERIFY2(c.exitCode == 0, c.err.constData());
  QVERIFY2(c.out.contains("esc:\\x1b]0;owned\\x07\\x0d\\x0aname\\x00cut"), c.out.constData());
  QVERIFY2(c.out.contains("HYLL\\x01\\x00\\x1b[2J"), c.out.constData());
  QVERIFY(!c.out.contains('\x1b') && !c.out.contains('\x07') && !c.out.contains('\r') && !c.out.contains('\0'));
  QCOMPARE(c.out.count('\n'), 3);  // header, the key, the count
}

void CliHostileInputsTest::scriptOutagesGoThroughThePolicy_data() {
  QTest::addColumn<QString>("setup");  // the CONFIG / REPLICAOF that makes the script's write fail
  QTest::addColumn<QString>("policy");
  QTest::addColumn<int>("admitted");
  QTest::newRow("OOM open") << "maxmemory" << "open" << 5;
  QTest::newRow("OOM closed") << "maxmemory" << "closed" << 0;
  QTest::newRow("READONLY open") << "replicaof" << "open" << 5;
  QTest::newRow("READONLY closed") << "replicaof" << "closed" << 0;
}

void CliHostileInputsTest::scriptOutagesGoThroughThePolicy() {
  // Both were 500s (faults) under either policy: the script store wrapped every error as a protocol error.
  QFETCH(QString, setup);
  QFETCH(QString, policy);
  QFETCH(int, admitted);
  const QString script = write("writes.lua", "redis.call('INCR', KEYS[1])\nreturn 1\n");
  auto conn = redis_->connect();
  QVERIFY(conn.ok());
  if (setup == "maxmemory") {
    QVERIFY(conn->command({"CONFIG", "SET", "maxmemory", "1"}).ok());
  } else {
    QTcpServer nobody;  // a master that never answers: the server turns into a read-only replica
    QVERIFY(nobody.listen(QHostAddress::LocalHost, 0));
    QVERIFY(conn->command({"REPLICAOF", "127.0.0.1", std::to_string(nobody.serverPort())}).ok());
  }
  const auto c = test::runCli({"run", "--backend", "redis-script", "--script", script, "--redis", url(), "--requests",
                               "5", "--on-redis-error", policy, "--json"});
  QVERIFY(conn->command({"CONFIG", "SET", "maxmemory", "0"}).ok());
  QVERIFY(conn->command({"REPLICAOF", "NO", "ONE"}).ok());
  const QJsonObject r = c.json()["runs"].toArray()[0].toObject();
  QVERIFY2(!r.isEmpty(), c.err.constData());
  QCOMPARE(r["degraded"].toInt(), 5);  // main: 0 degraded, 5 faults, none admitted under either policy
  QCOMPARE(r["admitted"].toInt(), admitted);
}

void CliHostileInputsTest::deeplyNestedScriptReplyIsAFault() {
  // hiredis 0.14 reads at most 7 levels; the unreadable reply was taken as "Redis down" and fail-open admitted it.
  const QString script = write("nested.lua", "return {{{{{{{{{1}}}}}}}}}\n");
  const auto c = test::runCli({"run", "--backend", "redis-script", "--script", script, "--redis", url(), "--requests",
                               "5", "--on-redis-error", "open", "--json"});
  QCOMPARE(c.exitCode, 1);
  const QJsonObject r = c.json()["runs"].toArray()[0].toObject();
  QCOMPARE(r["errors"].toInt(), 5);
  QCOMPARE(r["admitted"].toInt(), 0);
  QCOMPARE(r["degraded"].toInt(), 0);
  QVERIFY2(r["first_error"].toString().startsWith("script nested.lua failed: EVALSHA on 127.0.0.1:"),
           qPrintable(r["first_error"].toString()));
  QVERIFY2(r["first_error"].toString().contains("the reply could not be read"), qPrintable(r["first_error"].toString()));
}

QTEST_GUILESS_MAIN(CliHostileInputsTest)
#include "test_cli_hostile_inputs.moc"
