// ratelab-cli on Sentinel, end to end: `run --redis sentinel` starts a private
// set (1 master, 2 replicas, 3 Sentinels), SIGKILLs its master with
// `--failover natural:kill@MS`, reports the failover in --json, and leaves no
// process and no dir behind; run, race, keys and bench work through a
// redis+sentinel:// URL of a set the test starts (serve: 3 of 5 curls admitted); a bad Sentinel URL exits 2
// with one exact line.

#include <QtTest>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>

#include "redis/redis_connection.hpp"
#include "redis/sentinel/managed_redis_sentinel.hpp"
#include "support/cli_process.hpp"
#include "support/sentinel_processes.hpp"

using namespace rl;

namespace {
QString binary() { return qEnvironmentVariable("RATELAB_BIN_DIR") + "/cli/ratelab-cli"; }

}  // namespace

class RatelabCliSentinelTest : public QObject {
  Q_OBJECT
 private slots:
  void privateSetFailsOverAndGoes();
  void commandsWorkThroughSentinelUrl();
  void badSentinelUrlExitsTwo();
};

void RatelabCliSentinelTest::privateSetFailsOverAndGoes() {
  QProcess p;
  p.setWorkingDirectory(RATELAB_SOURCE_DIR);
  p.start(binary(), {"run", "--redis", "sentinel", "--backend", "redis-lua", "--algorithm", "sliding_log,gcra",
                     "--clock", "server", "--pattern", "constant", "--rate", "150", "--duration-ms", "7000",
                     "--limit", "100000", "--window-ms", "60000", "--concurrency", "2", "--on-redis-error", "closed",
                     "--failover", "natural:kill@2500", "--json"});
  QVERIFY(p.waitForStarted());
  p.setReadChannel(QProcess::StandardError);  // the set's URL comes on stderr while the storm runs
  // The set's line on stderr, then every process's pid and dir while they run.
  QByteArray err;
  const QRegularExpression started("at redis\\+sentinel://127\\.0\\.0\\.1:(\\d+),127\\.0\\.0\\.1:(\\d+),127\\.0\\.0\\.1:(\\d+)/ratelab/0");
  QRegularExpressionMatch m;
  while (!(m = started.match(QString::fromUtf8(err))).hasMatch()) {
    QVERIFY2(p.waitForReadyRead(60'000), err.constData());
    err += p.readAll();
  }
  const test::SentinelProcesses procs =
      test::sentinelProcesses({m.captured(1).toInt(), m.captured(2).toInt(), m.captured(3).toInt()});
  QVERIFY2(procs.error.empty(), procs.error.c_str());
  QCOMPARE(procs.pids.size(), std::size_t{6});
  QCOMPARE(procs.dirs.size(), std::size_t{6});
  auto named = test::detail::askPort(m.captured(1).toInt(), {"SENTINEL", "get-master-addr-by-name", "ratelab"});
  QVERIFY(named);
  const int masterPort = static_cast<int>(*(*named)[1].toInt());
  QVERIFY(p.waitForFinished(120'000));
  err += p.readAllStandardError();
  QVERIFY2(p.exitCode() == 0, err.constData());
  const QJsonObject f = QJsonDocument::fromJson(p.readAllStandardOutput()).object()["failover"].toObject();
  QCOMPARE(f["kind"].toString(), QString("natural:kill"));
  QCOMPARE(f["master"].toString(), QString("127.0.0.1:%1").arg(masterPort));
  QVERIFY(f["elected_ms"].toDouble() > f["kill_ms"].toDouble());
  QVERIFY(f["without_master_ms"].toDouble() > 0);
  QVERIFY(f["errors_during_failover"].toInteger() > 0);
  QVERIFY(f["script_reloads"].toInteger() >= 1);  // the promoted replica had no scripts
  const QJsonArray keys = f["keys"].toArray();
  QCOMPARE(keys.size(), 2);
  const QJsonObject log = keys[0].toObject();
  QCOMPARE(log["algorithm"].toString(), QString("sliding_log"));
  QCOMPARE(log["lost_writes"].toInteger(), log["admitted"].toInteger() - log["on_new_master"].toInteger());
  QVERIFY(log["overshoot"].toDouble() >= 0);
  QCOMPARE(keys[1].toObject()["not_countable"].toString(),
           QString("its state is the theoretical arrival time, which moves back with time"));
  QVERIFY2(procs.allGone(), "the set's processes and dirs are gone after the run");
}

void RatelabCliSentinelTest::commandsWorkThroughSentinelUrl() {
  auto set = ManagedRedisSentinel::start();
  QVERIFY2(set, set ? "" : set.error().message.c_str());
  const QString url = QString::fromStdString(set->endpoint().toString());
  const test::CliRun run = test::runCli({"run", "--backend", "redis-lua", "--redis", url, "--prefix", "sk:",
                                         "--algorithm", "fixed_window", "--clients", "3", "--limit", "5",
                                         "--window-ms", "60000", "--requests", "30", "--json"});
  QVERIFY2(run.exitCode == 0, run.err.constData());
  QCOMPARE(run.json()["runs"].toArray()[0].toObject()["admitted"].toInt(), 15);
  // Python limits' use_replicas=True: the count read from a replica the Sentinels name.
  const test::CliRun replica = test::runCli({"run", "--backend", "redis-naive", "--read-from", "replica", "--redis", url,
                                             "--prefix", "sr:", "--algorithm", "fixed_window", "--limit", "5",
                                             "--window-ms", "60000", "--requests", "30", "--json"});
  QVERIFY2(replica.exitCode == 0, replica.err.constData());
  qInfo("--read-from replica, link up: admitted %d of 30 (limit 5)",
        replica.json()["runs"].toArray()[0].toObject()["admitted"].toInt());
  QVERIFY(replica.json()["runs"].toArray()[0].toObject()["admitted"].toInt() >= 5);
  const test::CliRun keys = test::runCli({"keys", "--redis", url, "--prefix", "sk:", "--json"});
  QVERIFY2(keys.exitCode == 0, keys.err.constData());
  QCOMPARE(keys.json()["keys"].toArray().size(), 3);
  const test::CliRun race = test::runCli({"race", "--rounds", "20", "--limit", "10", "--concurrency", "20", "--redis", url, "--json"});
  QVERIFY2(race.exitCode == 0, race.err.constData());
  const test::CliRun bench = test::runCli({"bench", "--backend", "redis-lua", "--redis", url, "--duration-ms", "300",
                                           "--concurrency", "2", "--json"});
  QVERIFY2(bench.exitCode == 0, bench.err.constData());
  QCOMPARE(bench.json()["results"].toArray()[0].toObject()["errors"].toInt(), 0);
  // serve: its replica asks the store synchronously (the async path knows one fixed server only).
  QProcess serve;
  serve.setWorkingDirectory(RATELAB_SOURCE_DIR);
  serve.start(qEnvironmentVariable("RATELAB_BIN_DIR") + "/cli/ratelab-cli",
              {"serve", "--backend", "redis-lua", "--redis", url, "--limit", "3", "--window-ms", "60000", "--front",
               "builtin", "--prefix", "sserve:"});
  QVERIFY(serve.waitForStarted(10'000));
  QByteArray seen;
  const QByteArray front = test::waitForServeFront(serve, seen);
  QVERIFY2(front.startsWith("http://127.0.0.1:"), (seen + serve.readAllStandardError()).constData());
  const std::vector<int> codes = test::curlCodes(QString::fromUtf8(front) + "/ping", "c", 5);
  QCOMPARE(codes, (std::vector<int>{200, 200, 200, 429, 429}));
  serve.terminate();
  QVERIFY(serve.waitForFinished(10'000));
}

void RatelabCliSentinelTest::badSentinelUrlExitsTwo() {
  const test::CliRun lua = test::runCli({"run", "--backend", "redis-lua", "--read-from", "replica", "--redis", "sentinel"});
  QCOMPARE(lua.exitCode, 2);
  QCOMPARE(QString::fromUtf8(lua.err),
           QString("ratelab-cli run: --read-from replica needs --backend redis-naive (read the count, decide, write it "
                   "to the master, as Python limits does with use_replicas=True)\n"));
  const test::CliRun c = test::runCli({"run", "--backend", "redis-lua", "--redis", "redis+sentinel://127.0.0.1:26379"});
  QCOMPARE(c.exitCode, 2);
  QCOMPARE(QString::fromUtf8(c.err),
           QString("ratelab-cli run: --redis: bad Redis URL 'redis+sentinel://127.0.0.1:26379': the service name is "
                   "missing: a Sentinel URL ends in /service_name[/db] (expected redis://[user:password@]host:port[/db], "
                   "redis+cluster://[user:password@]host:port[,host:port...] or "
                   "redis+sentinel://[user:password@]host:port[,host:port...]/service_name[/db])\n"));
}

QTEST_GUILESS_MAIN(RatelabCliSentinelTest)
#include "test_ratelab_cli_sentinel.moc"
