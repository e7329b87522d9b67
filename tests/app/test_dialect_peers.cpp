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
#include <random>

#include "dialects/dialect.hpp"
#include "limiter/limiter_state.hpp"
#include "support/cli_process.hpp"
#include "support/nginx_limit_req.hpp"
#include "support/peer_libraries.hpp"

using namespace rl;

namespace {
// The quota a dialect's text parses to (the round trip's second half).
DialectQuota parsedBack(const char* dialect, const QByteArray& text) {
  const auto r = parseDialect(dialect, text.toStdString());
  if (!r) qFatal("%s does not parse its own emission: %s", dialect, r.error().message.c_str());
  return r.value()[0];
}
}  // namespace

class DialectPeersTest : public QObject {
  Q_OBJECT
 private slots:
  void explainSaysWhatTheIssueSays();
  void explainRefusesBadInputWithOneLine();
  void tuneEmitsTheRecommendation();
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
    const DialectQuota back = parsedBack(dialect, emitted["text"].toString().toUtf8());
    QCOMPARE(back.quota.limit, rec["limit"].toInteger());
    QCOMPARE(back.quota.ratePerSecond(), rec["refill_rate"].toDouble());
  }
  const auto bad = test::runCli(tune + QStringList{"--emit", "haproxy"});
  QCOMPARE(bad.exitCode, 2);
  QVERIFY2(bad.err.startsWith("ratelab-cli tune: --emit 'haproxy' is not a dialect: allowed nginx,"), bad.err.constData());
}

void DialectPeersTest::emittedNginxDecidesLikeTheModel() {
  const auto to = test::runCli({"explain", "--to", "nginx", "--algorithm", "gcra", "--limit", "6", "--refill-rate", "10"});
  QCOMPARE(to.exitCode, 0);
  test::NginxLimitReq::Directives directives;
  for (const QByteArray& line : to.out.split('\n'))
    (line.startsWith("limit_req_zone") ? directives.http : directives.location) += QString::fromUtf8(line) + "\n      ";
  test::NginxLimitReq nginx(directives);
  QVERIFY2(nginx.ok(), qPrintable(nginx.error()));
  const DialectQuota model = parsedBack("nginx", to.out);
  QCOMPARE(model.algorithm, Algorithm::Gcra);
  QTemporaryDir dir;
  const QString csv = dir.filePath("nginx.csv");
  // 30 requests/s for 4 s (poisson, seeded) against 10 r/s burst 5.
  const auto run = test::runCli({"run", "--backend", "http", "--http-target", nginx.url(), "--algorithm", "gcra", "--limit", "6",
                                 "--refill-rate", "10", "--window-ms", "1000", "--pattern", "poisson", "--rate", "30",
                                 "--requests", "120", "--clock", "client", "--csv", csv, "--json"});
  QVERIFY2(run.exitCode == 0, run.err.constData());
  QFile f(csv);
  QVERIFY(f.open(QIODevice::ReadOnly));
  f.readLine();  // header: intended_us,actual_us,replica,client,algorithm,allowed,...
  // RateLab's model on the times nginx was asked; a disagreement must flip when the request moves by 1 ms.
  LimiterState state = freshState(model.algorithm);
  int decisions = 0, agree = 0, boundary = 0, unexplained = 0, nginxAdmitted = 0;
  while (!f.atEnd()) {
    const QList<QByteArray> cols = f.readLine().trimmed().split(',');
    const Micros at{cols[1].toLongLong()};
    const bool byNginx = cols[5] == "1";
    ++decisions;
    nginxAdmitted += byNginx;
    LimiterState here = state;
    if (decide(model.algorithm, here, at, 1, model.quota).decision.allowed == byNginx) {
      ++agree;
      state = here;
      continue;
    }
    bool explained = false;
    for (Micros shift : {-kMillisecond, kMillisecond}) {
      LimiterState moved = state;
      if (!explained && decide(model.algorithm, moved, at + shift, 1, model.quota).decision.allowed == byNginx) {
        explained = true;
        state = moved;  // follow nginx, so one boundary case is counted once
      }
    }
    ++(explained ? boundary : unexplained);
    if (!explained) state = here;
  }
  qInfo("nginx vs RateLab's gcra model: %d decisions, %d agree (%.1f%%), %d within the +-1 ms boundary, %d unexplained; "
        "nginx admitted %d",
        decisions, agree, 100.0 * agree / decisions, boundary, unexplained, nginxAdmitted);
  QCOMPARE(decisions, 120);
  QCOMPARE(unexplained, 0);
  QVERIFY(agree >= decisions * 9 / 10);
  QVERIFY(nginxAdmitted >= 40 && nginxAdmitted <= 52);  // 6 at once + about 10/s for 4 s
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
    const DialectQuota model = parsedBack(library, library[0] == 'e' ? express.out : flexible.out);
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
