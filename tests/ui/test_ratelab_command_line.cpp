// The `ratelab` executable: bad flags give one line and exit 2; a preset run
// with --autostart --screenshot renders the window after the run and exits 0;
// --audit URL --autostart audits a real nginx limit_req and saves its lanes.

#include <QtTest>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <QImage>
#include <QProcess>
#include <QTemporaryDir>

#include "support/nginx_limit_req.hpp"

class RatelabCommandLineTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase();
  void badFlagsExitTwo_data();
  void badFlagsExitTwo();
  void presetScreenshotRendersAfterTheRun();
  void auditOfNginxRendersItsLanes();
  void helpAndVersionNeedNoDisplay();

 private:
  QString bin_;
  QTemporaryDir dir_;
};

void RatelabCommandLineTest::initTestCase() {
  bin_ = qEnvironmentVariable("RATELAB_BIN_DIR") + QStringLiteral("/gui/ratelab");
  QVERIFY2(QFileInfo::exists(bin_), qPrintable(bin_));
  QVERIFY(dir_.isValid());
}

void RatelabCommandLineTest::badFlagsExitTwo_data() {
  QTest::addColumn<QStringList>("args");
  QTest::addColumn<QString>("message");
  QTest::newRow("unknown preset") << QStringList{"--preset", "nope"}
                                  << "--preset 'nope' is unknown: allowed boundary, replica_leak, race, clock_skew, outage, burst_tolerance";
  QTest::newRow("exit-after-ms text") << QStringList{"--exit-after-ms", "soon"} << "--exit-after-ms 'soon' is invalid: allowed a whole number from 1 to 86400000";
  QTest::newRow("missing value") << QStringList{"--screenshot"} << "Missing value after '--screenshot'.";
  QTest::newRow("unknown flag") << QStringList{"--frobnicate"} << "Unknown option 'frobnicate'.";
  QTest::newRow("flag=value form") << QStringList{"--theme=purple"} << "--theme 'purple' is unknown: allowed light, dark";
  QTest::newRow("stray argument") << QStringList{"boundary"} << "unexpected argument 'boundary'";
  QTest::newRow("both sources") << QStringList{"--preset", "race", "--scenario", "x.json"} << "--scenario and --preset both given";
  QTest::newRow("audit and trace") << QStringList{"--audit", "http://127.0.0.1:1/", "--trace", "x.log"}
                                   << "--audit and --trace both given: allowed one of them";
  QTest::newRow("missing scenario") << QStringList{"--scenario", "/nonexistent/x.json"} << "--scenario:";
}

void RatelabCommandLineTest::badFlagsExitTwo() {
  QFETCH(QStringList, args);
  QFETCH(QString, message);
  QProcess p;
  p.start(bin_, args);
  QVERIFY(p.waitForFinished(30'000));
  QCOMPARE(p.exitCode(), 2);
  const QString err = QString::fromUtf8(p.readAllStandardError());
  QVERIFY2(err.contains(message), qPrintable(err));
}

void RatelabCommandLineTest::presetScreenshotRendersAfterTheRun() {
  const QString png = dir_.filePath(QStringLiteral("boundary.png"));
  const QString json = dir_.filePath(QStringLiteral("boundary.json"));
  QProcess p;
  p.start(bin_, {"--preset", "boundary", "--managed-redis", "--autostart", "--screenshot", png, "--json-out", json,
                 "--exit-after-ms", "60000", "--size", "1200x800"});
  QVERIFY(p.waitForFinished(90'000));
  const QString err = QString::fromUtf8(p.readAllStandardError());
  QVERIFY2(p.exitCode() == 0, qPrintable(err));
  QVERIFY2(err.contains(QStringLiteral("saved ") + png), qPrintable(err));
  const QImage image(png);
  QCOMPARE(image.size(), QSize(1200, 800));
  // --json-out: the run document of ratelab-cli run --json, one entry per algorithm of boundary.json.
  QVERIFY2(err.contains(QStringLiteral("wrote ") + json), qPrintable(err));
  QFile f(json);
  QVERIFY(f.open(QIODevice::ReadOnly));
  const QJsonArray runs = QJsonDocument::fromJson(f.readAll()).object()[QStringLiteral("runs")].toArray();
  QCOMPARE(runs.size(), 6);
  const QJsonObject fixed = runs[0].toObject();
  QCOMPARE(fixed[QStringLiteral("algorithm")].toString(), QStringLiteral("fixed_window"));
  QCOMPARE(fixed[QStringLiteral("clock")].toString(), QStringLiteral("virtual"));
  QCOMPARE(fixed[QStringLiteral("max_admitted_in_window")].toInt(), 2 * fixed[QStringLiteral("limit")].toInt());  // the boundary's 2x
}

void RatelabCommandLineTest::auditOfNginxRendersItsLanes() {
  rl::test::NginxLimitReq nginx("10r/s", 5);
  QVERIFY2(nginx.ok(), qPrintable(nginx.error()));
  const QString png = dir_.filePath(QStringLiteral("audit.png"));
  const QString json = dir_.filePath(QStringLiteral("audit.json"));
  QProcess p;
  p.start(bin_, {"--audit", nginx.url(), "--autostart", "--screenshot", png, "--json-out", json, "--exit-after-ms",
                 "120000", "--size", "1200x800"});
  QVERIFY(p.waitForFinished(150'000));
  const QString err = QString::fromUtf8(p.readAllStandardError());
  QVERIFY2(p.exitCode() == 0, qPrintable(err));
  // The verdict line names a rate model 6 at 10/s (burst=5: six at once), named or listed beside a window model.
  QVERIFY2(err.contains(QRegularExpression("audit: (pass|warn|fail): .*(leaky_bucket|token_bucket|gcra) 6 at 10/s")), qPrintable(err));
  QCOMPARE(QImage(png).size(), QSize(1200, 800));
  // --json-out writes the run the lanes show: nginx's decisions, then the fingerprint's model on them.
  QFile f(json);
  QVERIFY2(f.open(QIODevice::ReadOnly), qPrintable(err));
  const QJsonArray runs = QJsonDocument::fromJson(f.readAll()).object()[QStringLiteral("runs")].toArray();
  QCOMPARE(runs.size(), 2);
  const int offered = runs[0].toObject()[QStringLiteral("offered")].toInt();
  QVERIFY2(offered >= 50, qPrintable(err));  // discover, burst, headers, boundary and sustained's requests
  QCOMPARE(runs[1].toObject()[QStringLiteral("decisions_compared_with_target")].toInt(), offered);
  QVERIFY2(runs[1].toObject()[QStringLiteral("decisions_differing_from_target")].toInt() <= offered / 50, qPrintable(err));
}

void RatelabCommandLineTest::helpAndVersionNeedNoDisplay() {
  // No DISPLAY and the xcb platform: a QApplication could not start, yet --help and --version answer.
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  env.remove(QStringLiteral("DISPLAY"));
  env.remove(QStringLiteral("WAYLAND_DISPLAY"));
  env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("xcb"));
  for (const QString& flag : {QStringLiteral("--help"), QStringLiteral("--version")}) {
    QProcess p;
    p.setProcessEnvironment(env);
    p.start(bin_, {flag});
    QVERIFY(p.waitForFinished(30'000));
    QCOMPARE(p.exitStatus(), QProcess::NormalExit);
    QCOMPARE(p.exitCode(), 0);
    const QString out = QString::fromUtf8(p.readAllStandardOutput());
    if (flag == QStringLiteral("--help")) {
      QVERIFY2(out.contains(QStringLiteral("--preset <NAME>")) && out.contains(QStringLiteral("burst_tolerance")), qPrintable(out));
      QVERIFY2(out.startsWith(QStringLiteral("Usage: ratelab [options]")), qPrintable(out));
    } else {
      QVERIFY2(out.startsWith(QStringLiteral("ratelab ")), qPrintable(out));
    }
  }
}

QTEST_GUILESS_MAIN(RatelabCommandLineTest)
#include "test_ratelab_command_line.moc"
