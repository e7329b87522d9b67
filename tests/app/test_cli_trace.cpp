// Trace replay and tune end to end, on a log written by a real nginx: the
// test starts Debian's nginx as an unprivileged child on a free loopback port
// with a temp config (its own access logs: one log_format with $msec, one
// combined), sends known traffic with curl from two client addresses
// (127.0.0.2 light, 127.0.0.3 heavy) with two API keys, stops nginx, then
// checks that `run --trace` replays exactly what nginx logged and that `tune`
// finds the limit separating the two clients.
#include <QtTest>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTcpServer>
#include <QTemporaryDir>

#include <algorithm>
#include <csignal>

#include "process/loopback_port.hpp"

namespace {

constexpr int kLight = 5;   // alpha from 127.0.0.2: 5 requests at 4/s
constexpr int kHeavy = 40;  // beta from 127.0.0.3: 40 requests back to back
const char* kMsecFormat = "$msec $remote_addr \"$request\" $status key=$http_x_api_key";

struct Cli {
  int exitCode = -1;
  QByteArray out, err;
  QJsonObject json() const { return QJsonDocument::fromJson(out).object(); }
};

quint16 freePort() {
  const auto port = rl::freePort();
  return port ? static_cast<quint16>(*port) : 0;
}

// The (time us, key) rows of the $msec log, parsed here independently of core/trace.
QList<QPair<qint64, QString>> msecRows(const QString& path) {
  QFile f(path);
  f.open(QIODevice::ReadOnly);
  QList<QPair<qint64, QString>> rows;
  for (const QByteArray& line : f.readAll().split('\n')) {
    if (line.isEmpty()) continue;
    const QList<QByteArray> sec = line.split(' ').first().split('.');
    rows.append({sec[0].toLongLong() * 1'000'000 + sec[1].toLongLong() * 1000, QString(line.split('=').last())});
  }
  std::stable_sort(rows.begin(), rows.end(), [](auto& a, auto& b) { return a.first < b.first; });
  return rows;
}
}  // namespace

class CliTraceTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase();
  void cleanupTestCase();
  void replayIsExactlyWhatNginxLogged();
  void combinedLogIsDetectedAndKeyedByAddress();
  void tuneFindsTheLimitSeparatingTheClients();
  void tunePointEqualsPlainRun();
  void recommendedQuotaIsNeverOverItsLimit();
  void wallClockReplayCountsLateAndDropped();
  void badTraceInputExitsTwo_data();
  void badTraceInputExitsTwo();

 private:
  Cli cli(const QStringList& args);
  void curl(const QString& from, const QString& key, int n, const QString& rate);
  QStringList msecTrace() const {
    return {"--trace", dir_.filePath("msec.log"), "--trace-format", QString("nginx:'%1'").arg(kMsecFormat),
            "--trace-key", "header:x-api-key"};
  }
  QTemporaryDir dir_;
  QProcess nginx_;
  quint16 port_ = 0;
};

Cli CliTraceTest::cli(const QStringList& args) {
  QProcess p;
  p.start(qEnvironmentVariable("RATELAB_BIN_DIR") + "/cli/ratelab-cli", args);
  if (!p.waitForFinished(60'000)) p.kill();
  return {p.exitCode(), p.readAllStandardOutput(), p.readAllStandardError()};
}

void CliTraceTest::curl(const QString& from, const QString& key, int n, const QString& rate) {
  QStringList args{"-s", "-o", "/dev/null", "--interface", from, "-H", "x-api-key: " + key};
  if (!rate.isEmpty()) args << "--rate" << rate;
  args << QString("http://127.0.0.1:%1/api/items?[1-%2]").arg(port_).arg(n);
  QProcess p;
  p.start("curl", args);
  QVERIFY(p.waitForFinished(30'000));
  QCOMPARE(p.exitCode(), 0);
}

void CliTraceTest::initTestCase() {
  if (!QFile::exists("/usr/sbin/nginx")) QFAIL("/usr/sbin/nginx is missing: scripts/install-deps.sh installs nginx-light");
  port_ = freePort();
  const QString d = dir_.path();
  for (const char* sub : {"body", "proxy", "fastcgi", "uwsgi", "scgi"}) QDir(d).mkpath(sub);
  QFile conf(d + "/nginx.conf");
  QVERIFY(conf.open(QIODevice::WriteOnly));
  conf.write(QString("daemon off;\nworker_processes 1;\npid %1/nginx.pid;\nerror_log %1/error.log;\n"
                     "events { worker_connections 64; }\n"
                     "http {\n  client_body_temp_path %1/body; proxy_temp_path %1/proxy;\n"
                     "  fastcgi_temp_path %1/fastcgi; uwsgi_temp_path %1/uwsgi; scgi_temp_path %1/scgi;\n"
                     "  log_format msec '%3';\n"
                     "  server {\n    listen 127.0.0.1:%2;\n"
                     "    access_log %1/msec.log msec;\n    access_log %1/combined.log combined;\n"
                     "    location / { return 200 \"ok\\n\"; }\n  }\n}\n")
                 .arg(d)
                 .arg(port_)
                 .arg(kMsecFormat)
                 .toUtf8());
  conf.close();
  nginx_.start("/usr/sbin/nginx", {"-p", d, "-c", d + "/nginx.conf", "-e", d + "/error.log"});
  QVERIFY(nginx_.waitForStarted());
  QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(d + "/nginx.pid"), 10'000);
  const auto listening = [this] {
    QTcpSocket probe;
    probe.connectToHost("127.0.0.1", port_);
    return probe.waitForConnected(200);
  };
  QTRY_VERIFY_WITH_TIMEOUT(listening(), 10'000);
  curl("127.0.0.2", "alpha", kLight, "4/s");
  curl("127.0.0.3", "beta", kHeavy, "");
  ::kill(static_cast<pid_t>(nginx_.processId()), SIGQUIT);  // graceful: logs flushed and closed
  QVERIFY(nginx_.waitForFinished(10'000));
  QCOMPARE(msecRows(d + "/msec.log").size(), kLight + kHeavy);
}

void CliTraceTest::cleanupTestCase() {
  if (nginx_.state() != QProcess::NotRunning) {
    nginx_.kill();
    nginx_.waitForFinished();
  }
}

void CliTraceTest::replayIsExactlyWhatNginxLogged() {
  const QString csv = dir_.filePath("decisions.csv");
  const Cli c = cli(QStringList{"run"} + msecTrace() + QStringList{"--limit", "1000", "--json", "--csv", csv});
  QVERIFY2(c.exitCode == 0, c.err.constData());
  const QJsonObject run = c.json()["runs"].toArray()[0].toObject();
  QCOMPARE(run["offered"].toInt(), kLight + kHeavy);
  QCOMPARE(run["clients"].toInt(), 2);
  QCOMPARE(run["pattern"].toString(), QString("trace"));
  QCOMPARE(c.json()["trace"].toObject()["bad_lines"].toInt(), 0);
  // Every decision, in order: the logged key and the logged time ($msec, exact), relative to the first.
  const auto rows = msecRows(dir_.filePath("msec.log"));
  QFile f(csv);
  QVERIFY(f.open(QIODevice::ReadOnly));
  QList<QByteArray> lines = f.readAll().trimmed().split('\n');
  QVERIFY(lines.takeFirst().endsWith(",key"));
  QCOMPARE(lines.size(), rows.size());
  QList<QPair<qint64, QString>> replayed;
  for (const QByteArray& l : lines) {
    const auto cells = l.split(',');
    replayed.append({cells[0].toLongLong() + rows.first().first, QString(cells.last())});
  }
  std::stable_sort(replayed.begin(), replayed.end(), [](auto& a, auto& b) { return a.first < b.first; });
  QCOMPARE(replayed, rows);
  QCOMPARE(std::count_if(rows.begin(), rows.end(), [](auto& r) { return r.second == "alpha"; }), kLight);
}

void CliTraceTest::combinedLogIsDetectedAndKeyedByAddress() {
  const Cli c = cli({"run", "--trace", dir_.filePath("combined.log"), "--limit", "1000", "--json"});
  QVERIFY2(c.exitCode == 0, c.err.constData());
  QCOMPARE(c.json()["trace"].toObject()["format"].toString(), QString("combined"));
  QCOMPARE(c.json()["trace"].toObject()["clients"].toInt(), 2);
  QCOMPARE(c.json()["runs"].toArray()[0].toObject()["offered"].toInt(), kLight + kHeavy);
}

void CliTraceTest::tuneFindsTheLimitSeparatingTheClients() {
  // alpha's worst second, from the log itself: the limit a sliding log needs to never deny it.
  QList<qint64> alpha;
  for (const auto& r : msecRows(dir_.filePath("msec.log")))
    if (r.second == "alpha") alpha.append(r.first);
  int peak = 0;
  for (int i = 0; i < alpha.size(); ++i)
    peak = std::max<int>(peak, int(std::count_if(alpha.begin(), alpha.end(),
                                                 [&](qint64 t) { return t <= alpha[i] && t > alpha[i] - 1'000'000; })));
  QFile keys(dir_.filePath("legit.txt"));
  QVERIFY(keys.open(QIODevice::WriteOnly));
  keys.write("alpha\n");
  keys.close();
  const Cli c = cli(QStringList{"tune"} + msecTrace() + QStringList{"--algorithm", "sliding_log", "--limit", "1:60:1", "--window-ms",
                                              "1000", "--legit-file", dir_.filePath("legit.txt"), "--target-denied",
                                              "0%", "--json"});
  QVERIFY2(c.exitCode == 0, c.err.constData());
  const QJsonObject rec = c.json()["algorithms"].toArray()[0].toObject()["recommended"].toObject();
  QCOMPARE(rec["limit"].toInt(), peak);
  QCOMPARE(rec["legit_denied"].toInt(), 0);
  QVERIFY(rec["denied"].toInt() > 0);             // beta is cut
  QCOMPARE(rec["clients_denied"].toInt(), 1);     // and only beta
  QCOMPARE(c.json()["peaks"].toArray()[0].toObject()["top"].toArray()[0].toObject()["key"].toString(), QString("beta"));
}

void CliTraceTest::recommendedQuotaIsNeverOverItsLimit() {
  // A 200-client combined log (scripts/gen-access-log.py: heavy hitters and bursting
  // abusers); the token_bucket quota tune recommends, replayed, is judged per client
  // against its own promise (burst + rate x T): no admission over it.
  const QString log = dir_.filePath("clients200.log");
  QProcess gen;
  gen.start(QStringLiteral("/usr/bin/python3"), {QStringLiteral(RATELAB_SOURCE_DIR "/scripts/gen-access-log.py"),
                                                 QStringLiteral("30000"), log, QStringLiteral("--clients"),
                                                 QStringLiteral("200"), QStringLiteral("--seconds"), QStringLiteral("300")});
  QVERIFY(gen.waitForFinished(60'000));
  QCOMPARE(gen.exitCode(), 0);
  const Cli t = cli({"tune", "--trace", log, "--algorithm", "token_bucket", "--limit", "2:60:2", "--window-ms", "1000", "--json"});
  QVERIFY2(t.exitCode == 0, t.err.constData());
  const QJsonObject rec = t.json()["algorithms"].toArray()[0].toObject()["recommended"].toObject();
  QVERIFY2(rec["limit"].toInt() > 0, t.out.constData());
  QStringList args{"run", "--trace", log, "--algorithm", "token_bucket", "--limit", QString::number(rec["limit"].toInt()),
                   "--window-ms", QString::number(rec["window_ms"].toInt()), "--json"};
  if (rec.contains("refill_rate")) args << "--refill-rate" << QString::number(rec["refill_rate"].toDouble(), 'g', 17);
  const Cli r = cli(args);
  QVERIFY2(r.exitCode == 0, r.err.constData());
  const QJsonObject run = r.json()["runs"].toArray()[0].toObject();
  QVERIFY(run["denied"].toInt() > 0);  // the abusers are cut...
  QCOMPARE(run["over_limit"].toObject()["admitted"].toInt(), 0);  // ...and nobody got past the bucket
  QVERIFY2(run["overshoot"].toDouble() <= 1.0, qPrintable(QString::number(run["overshoot"].toDouble())));
  QVERIFY(run["max_admitted_in_window"].toInt() > rec["limit"].toInt());  // burst + refill in one window: allowed
}

void CliTraceTest::tunePointEqualsPlainRun() {
  for (const char* algo : {"fixed_window", "token_bucket", "gcra"}) {
    const Cli t = cli(QStringList{"tune"} + msecTrace() + QStringList{"--algorithm", algo, "--limit", "7", "--json"});
    QVERIFY2(t.exitCode == 0, t.err.constData());
    const Cli r = cli(QStringList{"run"} + msecTrace() + QStringList{"--algorithm", algo, "--limit", "7", "--window-ms", "1000", "--json"});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const int tuned = t.json()["points"].toArray()[0].toObject()["denied"].toInt();
    QVERIFY(tuned > 0);
    QCOMPARE(r.json()["runs"].toArray()[0].toObject()["denied"].toInt(), tuned);
  }
}

void CliTraceTest::wallClockReplayCountsLateAndDropped() {
  const Cli c = cli(QStringList{"run"} + msecTrace() + QStringList{"--limit", "1000", "--speed", "20", "--json"});
  QVERIFY2(c.exitCode == 0, c.err.constData());
  const QJsonObject run = c.json()["runs"].toArray()[0].toObject();
  QCOMPARE(run["clock"].toString(), QString("client"));
  QCOMPARE(run["offered"].toInt() + run["dropped"].toInt(), kLight + kHeavy);
  QVERIFY(run.contains("late"));
}

void CliTraceTest::badTraceInputExitsTwo_data() {
  QTest::addColumn<QStringList>("args");
  QTest::addColumn<QString>("flag");
  QTest::newRow("missing file") << QStringList{"run", "--trace", "/nonexistent.log"} << "--trace:";
  QTest::newRow("bad format") << QStringList{"run", "--trace", "x", "--trace-format", "apache"} << "--trace-format:";
  QTest::newRow("bad key") << QStringList{"run", "--trace", "x", "--trace-key", "cookie:a"} << "--trace-key:";
  QTest::newRow("speed on virtual") << QStringList{"run", "--trace", "@msec", "--speed", "2", "--clock", "virtual"} << "--speed";
  QTest::newRow("no valid line") << QStringList{"run", "--trace", "@conf", "--trace-format", "combined"} << "--trace:";
  QTest::newRow("strict") << QStringList{"run", "--trace", "@conf", "--trace-format", "csv", "--strict"} << "--strict:";
  QTest::newRow("tune without limit") << QStringList{"tune", "--trace", "@msec"} << "--limit is missing";
  QTest::newRow("tune bad grid") << QStringList{"tune", "--trace", "x", "--limit", "9:1:1"} << "--limit:";
  QTest::newRow("tune bad target") << QStringList{"tune", "--trace", "x", "--limit", "5", "--target-denied", "2"} << "--target-denied:";
}

void CliTraceTest::badTraceInputExitsTwo() {
  QFETCH(QStringList, args);
  QFETCH(QString, flag);
  args.replaceInStrings("@msec", dir_.filePath("msec.log")).replaceInStrings("@conf", dir_.filePath("nginx.conf"));
  if (args.contains(dir_.filePath("msec.log")) && args[0] == "run") args << msecTrace().mid(2);
  const QString command = args.takeFirst();
  const Cli c = cli(QStringList{command} + args);
  QCOMPARE(c.exitCode, 2);
  const QString err = QString::fromUtf8(c.err).trimmed();
  QCOMPARE(err.count('\n'), 0);
  QVERIFY2(err.startsWith("ratelab-cli " + command + ": " + flag), qPrintable(err));
}

QTEST_GUILESS_MAIN(CliTraceTest)
#include "test_cli_trace.moc"
