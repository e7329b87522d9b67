// Dialects against the real things: `explain` as the issue states it; emitted
// nginx directives loaded into a REAL nginx (static file, so limit_req runs)
// stormed beside RateLab's model of the same config; emitted
// express-rate-limit and rate-limiter-flexible options run by the real npm
// packages (tests/peers/node/emitted_limiters.js) on one schedule, admitting
// what RateLab's model admits.

#include <QtTest>

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <algorithm>
#include <random>

#include "dialects/dialect.hpp"
#include "limiter/limiter_state.hpp"
#include "support/cli_process.hpp"
#include "support/nginx_limit_req.hpp"
#include "support/peer_libraries.hpp"
#include "support/checked.hpp"

using namespace rl;

namespace {
// The quota a dialect's text parses to (the round trip's second half).
Result<DialectQuota> parsedBack(const char* dialect, const QByteArray& text) {
  const auto r = parseDialect(dialect, text.toStdString());
  if (!r) return invalidArgument(std::string(dialect) + " does not parse its own emission: " + r.error().message);
  if (r->empty()) return invalidArgument(std::string(dialect) + "'s emission parses to no quota");
  return r.value()[0];
}

// One request as nginx logged it: its arrival on nginx's clock (whole ms) and its answer.
struct Logged {
  Micros at;
  bool admitted = false;
};

// The access log written with `log_format rl '$msec $request_time $status'`, in the order nginx decided.
std::vector<Logged> readNginxLog(const QString& path) {
  QFile log(path);
  std::vector<Logged> out;
  if (!log.open(QIODevice::ReadOnly)) return out;
  for (const QByteArray& line : log.readAll().split('\n')) {
    const QList<QByteArray> f = line.split(' ');
    if (f.size() != 3) continue;
    out.push_back({Micros{std::llround((f[0].toDouble() - f[1].toDouble()) * 1000) * 1000}, f[2] == "200"});
  }
  // Within one millisecond the log can't say which request nginx decided first (a delayed one is logged
  // later): the admitted ones go first, so the model is asked how many of that millisecond pass, not which.
  std::stable_sort(out.begin(), out.end(), [](const Logged& x, const Logged& y) {
    return x.at < y.at || (x.at == y.at && x.admitted > y.admitted);
  });
  return out;
}

// How RateLab's model agrees with nginx's answers.
struct Agreement {
  int decisions = 0, agree = 0, boundary = 0, unexplained = 0, admitted = 0;
};

// The model decides nginx's requests on nginx's times; a disagreement that flips when the request
// moves by 1 ms is a boundary case (the model then follows nginx), any other is unexplained.
Agreement agreement(const DialectQuota& model, const std::vector<Logged>& logged) {
  Agreement g;
  LimiterState state = freshState(model.algorithm);
  auto allows = [&](LimiterState& s, Micros at) { return decide(model.algorithm, s, at, 1, model.quota).decision.allowed; };
  for (const Logged& r : logged) {
    ++g.decisions;
    g.admitted += r.admitted;
    LimiterState here = state;
    if (allows(here, r.at) == r.admitted) {
      ++g.agree;
      state = here;
      continue;
    }
    bool explained = false;
    for (Micros shift : {-kMillisecond, kMillisecond}) {
      LimiterState moved = state;
      if (!explained && allows(moved, r.at + shift) == r.admitted) explained = true, state = moved;
    }
    if (!explained) {
      qInfo("unexplained: request %d at %lld us: nginx %d", g.decisions, static_cast<long long>(r.at.count()), r.admitted);
      state = here;
    }
    ++(explained ? g.boundary : g.unexplained);
  }
  return g;
}
}  // namespace

class DialectPeersTest : public QObject {
  Q_OBJECT
 private slots:
  void explainSaysWhatTheIssueSays();
  void explainRefusesBadInputWithOneLine();
  void tuneEmitsTheRecommendation();
  void emittedNginxDecidesLikeTheModel_data();
  void emittedNginxDecidesLikeTheModel();
  void emittedNodeOptionsAdmitLikeTheModel();
};

void DialectPeersTest::explainSaysWhatTheIssueSays() {
  const QString config = "limit_req_zone $binary_remote_addr zone=z:10m rate=6000r/m; limit_req zone=z;";
  const auto c = test::runCli({"explain", "--from", "nginx", config});
  QVERIFY2(c.exitCode == 0, c.err.constData());
  QVERIFY2(c.out.contains("leaky_bucket, limit 1, 100/s"), c.out.constData());
  QVERIFY2(c.out.contains("Emission interval 10 ms."), c.out.constData());
  QVERIFY2(c.out.contains("Of 10 simultaneous requests, 1 passes at once, 0 are delayed and 9 are denied."), c.out.constData());
  QVERIFY2(c.out.contains("100 admitted in its busiest second and 6000 in its busiest minute"), c.out.constData());
  const auto j = test::runCli({"explain", "--from", "nginx", config, "--json"});
  QCOMPARE(j.exitCode, 0);
  const QJsonObject q = j.json()["quotas"].toArray()[0].toObject();
  QCOMPARE(q["algorithm"].toString(), QString("leaky_bucket"));
  QCOMPARE(q["limit"].toInt(), 1);
  QCOMPARE(q["refill_rate"].toDouble(), 100.0);
  QCOMPARE(q["emission_interval_us"].toInt(), 10'000);
  QCOMPARE(q["simultaneous"].toObject()["denied"].toInt(), 9);
  // A file works as well as the text; --to prints paste-ready config.
  QTemporaryDir dir;
  QFile f(dir.filePath("nginx.conf"));
  QVERIFY(f.open(QIODevice::WriteOnly));
  f.write(config.toUtf8());
  f.close();
  QCOMPARE(test::runCli({"explain", "--from", "nginx", f.fileName()}).out, c.out);
  const auto to = test::runCli({"explain", "--to", "nginx", "--algorithm", "gcra", "--limit", "6", "--refill-rate", "10"});
  QCOMPARE(to.exitCode, 0);
  QCOMPARE(to.out, QByteArray("limit_req_zone $binary_remote_addr zone=ratelab:10m rate=10r/s;  # in http { }\n"
                              "limit_req zone=ratelab burst=5 nodelay;  # in server { } or location { }\n"
                              "limit_req_status 429;\n"));
  QVERIFY(to.err.isEmpty());  // exact: nothing differs
}

void DialectPeersTest::explainRefusesBadInputWithOneLine() {
  const auto rate = test::runCli({"explain", "--from", "nginx", "limit_req_zone $k zone=z:1m rate=10r/h;"});
  QCOMPARE(rate.exitCode, 2);
  QCOMPARE(rate.err, QByteArray("ratelab-cli explain: nginx: 'rate=10r/h': expected rate=Nr/s or rate=Nr/m with N a whole number\n"));
  const auto dialect = test::runCli({"explain", "--from", "haproxy", "x"});
  QCOMPARE(dialect.exitCode, 2);
  QVERIFY2(dialect.err.startsWith("ratelab-cli explain: --from 'haproxy' is not a dialect: allowed nginx, envoy,"), dialect.err.constData());
  const auto sliding = test::runCli({"explain", "--to", "nginx", "--algorithm", "sliding_log", "--limit", "120", "--window-ms", "60000"});
  QCOMPARE(sliding.exitCode, 0);  // inexact: the closest setting, and what differs on stderr
  QVERIFY(sliding.out.contains("rate=2r/s"));
  QVERIFY2(sliding.err.startsWith("differs: sliding_log counts in windows; nginx refills steadily"), sliding.err.constData());
  const auto limit = test::runCli({"explain", "--to", "envoy", "--algorithm", "fixed_window", "--limit", "0"});
  QCOMPARE(limit.exitCode, 2);
  QCOMPARE(limit.err.count('\n'), 1);
}

void DialectPeersTest::tuneEmitsTheRecommendation() {
  // Two clients at 5 requests/s each: the recommendation, written as Traefik and nginx config, parses back to it.
  QTemporaryDir dir;
  QFile trace(dir.filePath("trace.jsonl"));
  QVERIFY(trace.open(QIODevice::WriteOnly));
  for (int i = 0; i < 200; ++i)
    trace.write(QString("{\"time\": %1, \"key\": \"%2\"}\n").arg(1'700'000'000'000LL + i * 100).arg(i % 2 ? "a" : "b").toUtf8());
  trace.close();
  const QStringList tune{"tune", "--trace", trace.fileName(), "--trace-format", "jsonl", "--trace-time", "time:ms",
                         "--trace-key", "field:key", "--limit", "1:10:1", "--refill-rate", "1:10:1", "--json"};
  for (const char* dialect : {"traefik", "nginx"}) {
    const auto c = test::runCli(tune + QStringList{"--emit", dialect});
    QVERIFY2(c.exitCode == 0, c.err.constData());
    const QJsonObject rec = c.json()["algorithms"].toArray()[0].toObject()["recommended"].toObject();
    const QJsonObject emitted = c.json()["emitted"].toArray()[0].toObject();
    QCOMPARE(emitted["dialect"].toString(), QString(dialect));
    QCOMPARE(emitted["differences"].toArray().size(), 0);
    RL_CHECKED(back, parsedBack(dialect, emitted["text"].toString().toUtf8()));
    QCOMPARE(back.quota.limit, rec["limit"].toInteger());
    QCOMPARE(back.quota.ratePerSecond(), rec["refill_rate"].toDouble());
  }
  const auto bad = test::runCli(tune + QStringList{"--emit", "haproxy"});
  QCOMPARE(bad.exitCode, 2);
  QVERIFY2(bad.err.startsWith("ratelab-cli tune: --emit 'haproxy' is not a dialect: allowed nginx,"), bad.err.constData());
}

void DialectPeersTest::emittedNginxDecidesLikeTheModel_data() {
  QTest::addColumn<QString>("algorithm");
  QTest::addColumn<QString>("limit");
  QTest::addColumn<QString>("refill");
  QTest::addColumn<QString>("offered");   // poisson requests/s
  QTest::addColumn<int>("requests");
  QTest::addColumn<QString>("concurrency");
  QTest::addColumn<int>("minAdmitted");
  QTest::addColumn<int>("maxAdmitted");
  // burst=5 nodelay at 10 r/s, 30 requests/s for 4 s: 6 at once + about 10/s.
  QTest::newRow("nodelay (gcra)") << "gcra" << "6" << "10" << "30" << 120 << "1" << 40 << 52;
  // burst=2 without nodelay at 20 r/s, 40 requests/s for 2 s: nginx holds the queued ones (up to 100 ms), so
  // 8 connections keep sending meanwhile; 3 + about 20/s.
  QTest::newRow("delayed (leaky_bucket)") << "leaky_bucket" << "3" << "20" << "40" << 80 << "8" << 36 << 48;
}

void DialectPeersTest::emittedNginxDecidesLikeTheModel() {
  QFETCH(QString, algorithm);
  QFETCH(QString, limit);
  QFETCH(QString, refill);
  QFETCH(QString, offered);
  QFETCH(int, requests);
  QFETCH(QString, concurrency);
  QFETCH(int, minAdmitted);
  QFETCH(int, maxAdmitted);
  const QStringList quota{"--algorithm", algorithm, "--limit", limit, "--refill-rate", refill, "--window-ms", "1000"};
  const auto to = test::runCli(QStringList{"explain", "--to", "nginx"} + quota);
  QCOMPARE(to.exitCode, 0);
  test::NginxLimitReq::Directives directives;
  for (const QByteArray& line : to.out.split('\n'))
    (line.startsWith("limit_req_zone") ? directives.http : directives.location) += QString::fromUtf8(line) + "\n      ";
  // nginx logs its own clock for each request: $msec when answered, minus $request_time (the delay, if any).
  QTemporaryDir logDir;
  QFile::setPermissions(logDir.path(), QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner | QFile::ReadOther |
                                           QFile::WriteOther | QFile::ExeOther);  // nginx may run as nobody
  directives.http += "log_format rl '$msec $request_time $status';";
  directives.location += "access_log " + logDir.filePath("access.log") + " rl;";
  test::NginxLimitReq nginx(directives);
  QVERIFY2(nginx.ok(), qPrintable(nginx.error()));
  RL_CHECKED(model, parsedBack("nginx", to.out));
  QCOMPARE(QString::fromStdString(std::string(algorithmName(model.algorithm))), algorithm);
  const auto run = test::runCli(QStringList{"run", "--backend", "http", "--http-target", nginx.url()} + quota +
                                QStringList{"--pattern", "poisson", "--rate", offered, "--requests", QString::number(requests),
                                            "--concurrency", concurrency, "--clock", "client", "--json"});
  QVERIFY2(run.exitCode == 0, run.err.constData());
  const std::vector<Logged> logged = readNginxLog(logDir.filePath("access.log"));
  const Agreement g = agreement(model, logged);
  const int decisions = g.decisions, agree = g.agree, boundary = g.boundary, unexplained = g.unexplained,
            nginxAdmitted = g.admitted;
  qInfo("nginx vs RateLab's %s model: %d decisions, %d agree (%.1f%%), %d within the +-1 ms boundary, %d unexplained; "
        "nginx admitted %d",
        qPrintable(algorithm), decisions, agree, 100.0 * agree / decisions, boundary, unexplained, nginxAdmitted);
  QCOMPARE(decisions, requests);
  QCOMPARE(unexplained, 0);
  QVERIFY(agree >= decisions * 9 / 10);
  QVERIFY2(nginxAdmitted >= minAdmitted && nginxAdmitted <= maxAdmitted, qPrintable(QString::number(nginxAdmitted)));
}

void DialectPeersTest::emittedNodeOptionsAdmitLikeTheModel() {
  QString error;
  const QString peers = test::nodePeersDir(error);
  QVERIFY2(!peers.isEmpty(), qPrintable(error));
  const QStringList quota{"--algorithm", "fixed_window", "--limit", "5", "--window-ms", "1000"};
  const auto express = test::runCli(QStringList{"explain", "--to", "express-rate-limit"} + quota);
  const auto flexible = test::runCli(QStringList{"explain", "--to", "rate-limiter-flexible"} + quota);
  QVERIFY(express.exitCode == 0 && flexible.exitCode == 0);
  // Two clumps of poisson requests (about 25/s), each well inside one clock-aligned window and one
  // client-opened window (100 ms from any boundary), with the limit exceeded in each.
  std::mt19937_64 rng(23);
  std::exponential_distribution<double> gap(25.0 / 1000);
  QJsonArray offsets;
  int perClump[2] = {0, 0};
  for (int clump = 0; clump < 2; ++clump)
    for (double t = clump * 2000 + 100; t <= clump * 2000 + 700; t += gap(rng)) offsets.append(qRound(t)), ++perClump[clump];
  QVERIFY(perClump[0] > 5 && perClump[1] > 5);
  QTemporaryDir dir;
  QFile in(dir.filePath("input.json"));
  QVERIFY(in.open(QIODevice::WriteOnly));
  in.write(QJsonDocument(QJsonObject{{"express", QString::fromUtf8(express.out)},
                                     {"flexible", QString::fromUtf8(flexible.out)},
                                     {"offsets_ms", offsets}})
               .toJson());
  in.close();
  const test::PeerOutput out = test::runPeer("node", {peers + "/emitted_limiters.js", in.fileName()}, peers, 30'000);
  QVERIFY2(out.error.isEmpty(), qPrintable(out.error));
  QCOMPARE(out.lines.size(), 2 * offsets.size());
  for (const char* library : {"express-rate-limit", "rate-limiter-flexible"}) {
    RL_CHECKED(model, parsedBack(library, library[0] == 'e' ? express.out : flexible.out));
    LimiterState state = freshState(model.algorithm);
    int admittedByLibrary = 0, admittedByModel = 0, differing = 0;
    for (const QJsonObject& line : out.lines) {
      if (line["route"].toString() != library) continue;
      const bool byLibrary = line["status"].toInt() == 200;
      const bool byModel = decide(model.algorithm, state, Micros{line["t_ms"].toInteger() * 1000}, 1, model.quota).decision.allowed;
      admittedByLibrary += byLibrary;
      admittedByModel += byModel;
      differing += byLibrary != byModel;
    }
    qInfo("%s vs RateLab's fixed_window: %lld requests, admitted %d vs %d, %d decisions differ", library,
          static_cast<long long>(offsets.size()), admittedByLibrary, admittedByModel, differing);
    QCOMPARE(admittedByModel, 10);  // 5 per clump
    QCOMPARE(admittedByLibrary, admittedByModel);
    QCOMPARE(differing, 0);
  }
}

QTEST_GUILESS_MAIN(DialectPeersTest)
#include "test_dialect_peers.moc"
