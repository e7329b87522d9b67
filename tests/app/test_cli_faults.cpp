// ratelab-cli run --fault end to end: the CLI starts its own private
// redis-server (--redis managed), does the faults to it, and reports each
// fault window in the text table and in --json with the numbers that matter.
// Bad fault specs exit 2 with one line naming the wrong part.

#include <QtTest>

#include <QJsonArray>
#include <QJsonObject>
#include <QRegularExpression>

#include "support/cli_process.hpp"

using rl::test::runCli;

namespace {
const QStringList kStorm = {"run", "--backend", "redis-lua", "--clock", "client", "--pattern", "constant",
                            "--rate", "200", "--requests", "240", "--limit", "20", "--window-ms", "3600000"};
}  // namespace

class CliFaultsTest : public QObject {
  Q_OBJECT
 private slots:
  void oomAndReadonlyUnderClosedPolicyJson();
  void killRestartTextReport();
  void badFaultSpecsExitTwo_data();
  void badFaultSpecsExitTwo();
};

void CliFaultsTest::oomAndReadonlyUnderClosedPolicyJson() {
  // Limit 1000: Redis never reaches it, so every decision writes (a denial at the limit writes nothing).
  const auto c = runCli(kStorm + QStringList{"--limit", "1000", "--on-redis-error", "closed", "--fault",
                                             "oom@50:450,readonly@600:1000", "--json"});
  QVERIFY2(c.exitCode == 0, c.err.constData());
  QVERIFY(c.err.contains("a private redis-server on 127.0.0.1:"));
  const QJsonObject run = c.json()["runs"].toArray()[0].toObject();
  const QJsonArray faults = run["faults"].toArray();
  QCOMPARE(faults.size(), 2);
  const char* causes[] = {"out_of_memory", "read_only"};
  for (int i = 0; i < 2; ++i) {
    const QJsonObject f = faults[i].toObject();
    qInfo("%s", QJsonDocument(f).toJson(QJsonDocument::Compact).constData());
    const int decisions = f["decisions"].toInt();
    QVERIFY(decisions >= 60);
    QCOMPARE(f["reached"].toBool(), true);
    QVERIFY(f["errors"].toInt() >= decisions - 3);  // the window's edges may straddle a decision
    QCOMPARE(f["errors_by_cause"].toObject()[causes[i]].toInt(), f["errors"].toInt());
    QCOMPARE(f["policy"].toObject()["name"].toString(), QString("closed"));
    QCOMPARE(f["policy"].toObject()["denied"].toInt(), f["errors"].toInt());  // closed denies every one
    QCOMPARE(f["policy"].toObject()["admitted"].toInt(), 0);
    QCOMPARE(f["admitted"].toInt(), 0);
    QVERIFY(!f["recovery_ms"].isNull());
  }
  const QJsonArray actions = run["fault_actions"].toArray();
  QCOMPARE(actions.size(), 4);  // begin and end of each
  for (const auto& a : actions) QVERIFY(!a.toObject().contains("error"));
}

void CliFaultsTest::killRestartTextReport() {
  const auto c = runCli(kStorm + QStringList{"--redis", "managed", "--on-redis-error", "local", "--fault", "kill@100,restart@500"});
  QVERIFY2(c.exitCode == 0, c.err.constData());
  const QString out = QString::fromUtf8(c.out);
  qInfo("%s", qPrintable(out));
  QVERIFY(out.contains("faults (--on-redis-error local; in time = answered within the 100 ms command timeout + 50 ms):"));
  const QString line = out.section('\n', -2, -2);  // the one fault line
  QVERIFY2(line.startsWith("kill@100,restart@500"), qPrintable(line));
  QVERIFY2(line.contains("unavailable="), qPrintable(line));
  // local: its memory limiter admits the limit (at most 20; an edge decision may fall outside the window)
  const auto policy = QRegularExpression(" (\\d+)/(\\d+) ").match(line);
  QVERIFY2(policy.hasMatch(), qPrintable(line));
  QVERIFY(policy.captured(1).toInt() >= 17 && policy.captured(1).toInt() <= 20);
  QVERIFY(policy.captured(2).toInt() >= 40);
  QVERIFY2(line.contains(" ms  unavailable="), qPrintable(line));  // recovered after some ms
}

void CliFaultsTest::badFaultSpecsExitTwo_data() {
  QTest::addColumn<QStringList>("args");
  QTest::addColumn<QString>("message");
  QTest::newRow("kind") << QStringList{"--fault", "crash@100"}
                        << "ratelab-cli run: --fault 'crash@100': unknown fault 'crash': allowed kill@T, restart@T, pause@S:E";
  QTest::newRow("window") << QStringList{"--fault", "pause@100"}
                          << "ratelab-cli run: --fault 'pause@100': pause needs a window: allowed pause@START:END or pause@START+DURATION (ms)";
  QTest::newRow("overlap") << QStringList{"--fault", "oom@100:500,pause@400:600"}
                           << "ratelab-cli run: --fault 'pause@400:600': overlaps oom@100:500: allowed one fault at a time";
  QTest::newRow("after the run") << QStringList{"--fault", "kill@1000,restart@1300"}
                                 << "ratelab-cli run: --fault 'kill@1000,restart@1300' ends at 1300 ms, after the run's last send at 1200 ms";
  QTest::newRow("url") << QStringList{"--redis", "redis://user:pw@127.0.0.1:1", "--fault", "kill@100"}
                       << "ratelab-cli run: --fault acts on the redis-server RateLab starts itself: allowed with --redis managed "
                          "or without --redis, not --redis redis://user:***@127.0.0.1:1";
  QTest::newRow("virtual clock") << QStringList{"--clock", "virtual", "--fault", "kill@100"}
                                 << "ratelab-cli run: --fault happens on the wall clock: allowed with --clock client or server";
}

void CliFaultsTest::badFaultSpecsExitTwo() {
  QFETCH(QStringList, args);
  QFETCH(QString, message);
  const auto c = runCli(kStorm + args);
  QCOMPARE(c.exitCode, 2);
  const QString err = QString::fromUtf8(c.err);
  QCOMPARE(err.count('\n'), 1);
  QVERIFY2(err.startsWith(message), qPrintable(err));
  QVERIFY(c.out.isEmpty());
}

QTEST_GUILESS_MAIN(CliFaultsTest)
#include "test_cli_faults.moc"
