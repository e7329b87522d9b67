// ratelab-cli end to end: the binary from $RATELAB_BIN_DIR/cli/ratelab-cli run
// as a process against a private redis-server; JSON parsed, numbers compared,
// exit codes and the exact one-line messages of bad input checked.

#include <QtTest>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>

#include <csignal>

#include "support/cli_process.hpp"
#include "support/redis_test_server.hpp"

using namespace rl;

namespace {
struct Cli {
  int exitCode = -1;
  QByteArray out;
  QByteArray err;
  QJsonObject json() const { return QJsonDocument::fromJson(out).object(); }
};

QJsonObject runOf(const Cli& c, const QString& algorithm) {
  for (const auto& v : c.json()["runs"].toArray())
    if (v.toObject()["algorithm"].toString() == algorithm) return v.toObject();
  return {};
}
}  // namespace

class RatelabCliTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase();
  void replicaLeak_data();
  void replicaLeak();
  void boundaryScenario();
  void burstToleranceScenario();
  void classicTokenBucketCheck();
  void quotaChangeScenario();
  void raceJson();
  void clockSkewScenario_data();
  void clockSkewScenario();
  void badInputExitsTwo_data();
  void badInputExitsTwo();
  void unknownScenarioKeyExitsTwo();
  void settingsListsEveryFlag();
  void passwordFromFileOrEnvironment();
  void localPolicyInJson();
  void unreachableRedisExitsThree();
  void csvHasEveryDecision();
  void keysShowsTtl();
  void scriptPrintsLua();
  void benchReportsThroughput();
  void ctrlCPrintsWhatWasRecorded();

 private:
  Cli cli(const QStringList& args, int timeoutMs = 120'000, const QProcessEnvironment& env = QProcessEnvironment::systemEnvironment());
  QString redisUrl() const { return QString("redis://127.0.0.1:%1").arg(redis_->endpoint().port); }
  std::unique_ptr<test::RedisTestServer> redis_;
  QTemporaryDir tmp_;
};

void RatelabCliTest::initTestCase() {
  QVERIFY2(qEnvironmentVariableIsSet("RATELAB_BIN_DIR"), "RATELAB_BIN_DIR must point at <build>/app");
  QVERIFY(QFileInfo::exists(qEnvironmentVariable("RATELAB_BIN_DIR") + "/cli/ratelab-cli"));
  redis_ = std::make_unique<test::RedisTestServer>();
  RL_REQUIRE_REDIS(*redis_);
}

Cli RatelabCliTest::cli(const QStringList& args, int timeoutMs, const QProcessEnvironment& env) {
  QProcess p;
  p.setProcessEnvironment(env);
  p.setWorkingDirectory(RATELAB_SOURCE_DIR);
  p.start(qEnvironmentVariable("RATELAB_BIN_DIR") + "/cli/ratelab-cli", args);
  Cli c;
  if (!p.waitForFinished(timeoutMs)) {
    p.kill();
    p.waitForFinished();
    c.err = "timed out";
    return c;
  }
  c.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
  c.out = p.readAllStandardOutput();
  c.err = p.readAllStandardError();
  return c;
}

void RatelabCliTest::replicaLeak_data() {
  QTest::addColumn<QString>("backend");
  QTest::addColumn<int>("admitted");
  QTest::addColumn<double>("overshoot");
  QTest::newRow("memory leaks 4x") << "memory" << 400 << 4.0;
  QTest::newRow("redis-lua holds 1x") << "redis-lua" << 100 << 1.0;
}

void RatelabCliTest::replicaLeak() {
  QFETCH(QString, backend);
  QFETCH(int, admitted);
  QFETCH(double, overshoot);
  const Cli c = cli({"run", "--backend", backend, "--replicas", "4", "--algorithm", "fixed_window", "--limit", "100",
                     "--window-ms", "60000", "--requests", "400", "--redis", redisUrl(), "--json"});
  QVERIFY2(c.exitCode == 0, c.err.constData());
  const QJsonObject r = runOf(c, "fixed_window");
  QCOMPARE(r["backend"].toString(), backend);
  QCOMPARE(r["offered"].toInt(), 400);
  QCOMPARE(r["admitted"].toInt(), admitted);
  QCOMPARE(r["denied"].toInt(), 400 - admitted);
  QCOMPARE(r["errors"].toInt(), 0);
  QCOMPARE(r["max_admitted_in_window"].toInt(), admitted);
  QCOMPARE(r["overshoot"].toDouble(), overshoot);
  QCOMPARE(r["limit"].toInt(), 100);
  QCOMPARE(r["window_ms"].toInt(), 60000);
  for (const char* key : {"duration_ms", "throughput_rps", "latency_us"}) QVERIFY2(r.contains(key), key);
  for (const char* key : {"p50", "p90", "p99", "max"}) QVERIFY2(r["latency_us"].toObject().contains(key), key);
}

void RatelabCliTest::boundaryScenario() {
  const Cli c = cli({"run", "--scenario", "resources/scenarios/boundary.json", "--json"});
  QVERIFY2(c.exitCode == 0, c.err.constData());
  // 200 in one sliding second, but each aligned window held its 100: not over its own limit.
  QCOMPARE(runOf(c, "fixed_window")["overshoot"].toDouble(), 1.0);
  QCOMPARE(runOf(c, "fixed_window")["over_limit"].toObject()["admitted"].toInt(), 0);
  QCOMPARE(runOf(c, "fixed_window")["over_limit"].toObject()["bound"].toString(),
           QStringLiteral("at most 100 in each aligned 60 s window"));
  QCOMPARE(runOf(c, "fixed_window")["max_admitted_in_window"].toInt(), 200);
  QCOMPARE(runOf(c, "sliding_log")["overshoot"].toDouble(), 1.0);
  QCOMPARE(runOf(c, "sliding_log")["admitted"].toInt(), 100);
  // The default table (scripts/run.sh prints it) names both.
  const Cli table = cli({"run", "--scenario", "resources/scenarios/boundary.json"});
  QCOMPARE(table.exitCode, 0);
  QVERIFY(table.out.contains("fixed_window"));
  QVERIFY(table.out.contains("200"));
  QVERIFY(!table.out.contains("fixed_window: "));  // no line of admissions over its limit
  QVERIFY(table.out.contains("sliding_counter: 1 admission(s) over its limit (at most 100 in any 60 s)"));  // an estimate
}

void RatelabCliTest::burstToleranceScenario() {
  // token_bucket: full bucket of 10 at once, 19 in the worst 1 s window; sliding_log: 10.
  const Cli c = cli({"run", "--scenario", "resources/scenarios/burst_tolerance.json", "--json"});
  QVERIFY2(c.exitCode == 0, c.err.constData());
  QCOMPARE(runOf(c, "token_bucket")["max_admitted_in_window"].toInt(), 19);
  QCOMPARE(runOf(c, "token_bucket")["admitted"].toInt(), 29);
  QCOMPARE(runOf(c, "sliding_log")["max_admitted_in_window"].toInt(), 10);
  QCOMPARE(runOf(c, "sliding_log")["overshoot"].toDouble(), 1.0);
  QVERIFY(runOf(c, "token_bucket")["overshoot"].toDouble() <= 1.0);
  QCOMPARE(runOf(c, "token_bucket")["over_limit"].toObject()["admitted"].toInt(), 0);
}

void RatelabCliTest::quotaChangeScenario() {
  // The preset "Raising a GCRA's rate in production", headless: at 4 s the
  // refill goes 1 -> 10/s. The token bucket keeps its tokens and admits 40
  // more by 8 s; GCRA keeps its TAT, 20 s ahead, and admits none after 4 s.
  const Cli c = cli({"run", "--scenario", "resources/scenarios/gcra_rate_raise.json", "--json"});
  QVERIFY2(c.exitCode == 0, c.err.constData());
  QCOMPARE(runOf(c, "token_bucket")["admitted"].toInt(), 23 + 40);
  QCOMPARE(runOf(c, "gcra")["admitted"].toInt(), 23);
  const QJsonArray changes = runOf(c, "gcra")["quota_changes"].toArray();
  QCOMPARE(changes.size(), 1);
  QCOMPARE(changes[0].toString(), QString("4000:refill_rate=10"));
  // The same change as a flag, on redis-lua: the same numbers.
  const Cli f = cli({"run", "--backend", "redis-lua", "--redis", redisUrl(), "--algorithm", "token_bucket,gcra",
                     "--limit", "20", "--refill-rate", "1", "--pattern", "constant", "--rate", "40", "--duration-ms",
                     "8000", "--clock", "virtual", "--run-tag", "qc-", "--quota-change", "4000:refill_rate=10", "--json"});
  QVERIFY2(f.exitCode == 0, f.err.constData());
  QCOMPARE(runOf(f, "token_bucket")["admitted"].toInt(), 23 + 40);
  QCOMPARE(runOf(f, "gcra")["admitted"].toInt(), 23);
}

void RatelabCliTest::classicTokenBucketCheck() {
  const Cli c = cli({"run", "--backend", "redis-lua", "--redis", redisUrl(), "--algorithm", "token_bucket", "--limit",
                     "10", "--refill-rate", "1", "--replicas", "4", "--requests", "20", "--concurrency", "20",
                     "--clock", "server", "--json"});
  QVERIFY2(c.exitCode == 0, c.err.constData());
  const QJsonObject r = runOf(c, "token_bucket");
  QCOMPARE(r["admitted"].toInt(), 10);
  QCOMPARE(r["denied"].toInt(), 10);
}

void RatelabCliTest::raceJson() {
  const Cli c = cli({"race", "--rounds", "200", "--limit", "10", "--concurrency", "20", "--redis", redisUrl(), "--json"});
  QVERIFY2(c.exitCode == 0, c.err.constData());
  const QJsonObject doc = c.json();
  QCOMPARE(doc["rounds"].toInt(), 200);
  QCOMPARE(doc["capacity"].toInt(), 10);
  QCOMPARE(doc["concurrency"].toInt(), 20);
  const QJsonArray variants = doc["variants"].toArray();
  QCOMPARE(variants.size(), 3);
  for (const auto& v : variants) {
    const QJsonObject o = v.toObject();
    for (const char* key : {"name", "admitted_min", "admitted_max", "admitted_mean", "over_limit_rounds", "retries"})
      QVERIFY2(o.contains(key), key);
    if (o["name"] == "naive") {
      QVERIFY(o["over_limit_rounds"].toInt() >= 1);
      qInfo("naive distribution: %s", QJsonDocument(o["distribution"].toObject()).toJson(QJsonDocument::Compact).constData());
    } else {
      QCOMPARE(o["admitted_min"].toInt(), 10);
      QCOMPARE(o["admitted_max"].toInt(), 10);
      QCOMPARE(o["over_limit_rounds"].toInt(), 0);
    }
  }
}

void RatelabCliTest::clockSkewScenario_data() {
  QTest::addColumn<QStringList>("extra");
  QTest::addColumn<int>("admitted");
  QTest::newRow("replica 2 ten seconds ahead") << QStringList{} << 5;
  QTest::newRow("no skew") << QStringList{"--skew-ms", "0,0"} << 4;
}

void RatelabCliTest::clockSkewScenario() {
  QFETCH(QStringList, extra);
  QFETCH(int, admitted);
  const Cli c = cli(QStringList{"run", "--scenario", "resources/scenarios/clock_skew.json", "--redis", redisUrl(), "--json"} + extra);
  QVERIFY2(c.exitCode == 0, c.err.constData());
  QCOMPARE(runOf(c, "token_bucket")["admitted"].toInt(), admitted);
  QCOMPARE(runOf(c, "token_bucket")["offered"].toInt(), 8);
}

void RatelabCliTest::badInputExitsTwo_data() {
  QTest::addColumn<QStringList>("args");
  QTest::addColumn<QString>("message");
  QTest::newRow("limit text") << QStringList{"run", "--limit", "abc"}
                              << "ratelab-cli run: --limit: 'abc' is not valid: allowed an integer 1 to 1000000000000";
  QTest::newRow("limit zero") << QStringList{"run", "--limit", "0"}
                              << "ratelab-cli run: --limit: limit 0 is out of range: allowed 1 to 1000000000000";
  QTest::newRow("quota change") << QStringList{"run", "--quota-change", "4000:burst=3"}
                                << "ratelab-cli run: --quota-change: 'burst=3' is not valid: allowed limit=, window_ms= or refill_rate=";
  QTest::newRow("pattern") << QStringList{"run", "--pattern", "wave"}
                           << "ratelab-cli run: --pattern: 'wave' is not valid: allowed burst, constant, boundary, ramp or poisson";
  QTest::newRow("replicas") << QStringList{"run", "--replicas", "0", "--requests", "5"}
                            << "ratelab-cli run: --replicas 0 is out of range: allowed 1 to 64";
  QTest::newRow("missing value") << QStringList{"run", "--requests"} << "ratelab-cli run: --requests needs a value";
  QTest::newRow("redis url") << QStringList{"run", "--backend", "redis-lua", "--redis", "http://x:1", "--requests", "1"}
                             << "ratelab-cli run: --redis: ";
  QTest::newRow("race rounds") << QStringList{"race", "--rounds", "0"}
                               << "ratelab-cli race: --rounds: '0' is not valid: allowed an integer 1 to 100000";
  QTest::newRow("race algorithm") << QStringList{"race", "--algorithm", "gcra"}
                                  << "ratelab-cli race: --algorithm gcra is not raced: allowed token_bucket or fixed_window";
  QTest::newRow("bench pipeline") << QStringList{"bench", "--pipeline", "4"}
                                  << "ratelab-cli bench: --pipeline 4 needs --backend redis-lua";
  QTest::newRow("script name") << QStringList{"script", "leaky"}
                               << "ratelab-cli script: NAME: 'leaky' is not an algorithm: allowed fixed_window, "
                                  "sliding_log, sliding_counter, token_bucket, leaky_bucket or gcra";
  QTest::newRow("requests zero") << QStringList{"run", "--requests", "0"}
                                 << "ratelab-cli run: --requests: '0' is not valid: allowed an integer 1 to 20000000 "
                                    "(leave it out for the default: twice the limit)";
  QTest::newRow("scenario /dev/zero") << QStringList{"run", "--scenario", "/dev/zero"}
                                      << "ratelab-cli run: --scenario '/dev/zero' is larger than the 4 MB cap: "
                                         "allowed files up to --max-file-mb MB (1 to 1024)";
  QTest::newRow("scenario /dev/zero, cap 1") << QStringList{"run", "--max-file-mb", "1", "--scenario", "/dev/zero"}
                                             << "ratelab-cli run: --scenario '/dev/zero' is larger than the 1 MB cap";
  QTest::newRow("max-file-mb 0") << QStringList{"run", "--max-file-mb", "0"}
                                 << "ratelab-cli run: --max-file-mb 0 is out of range: allowed 1 to 1024 (MB)";
  QTest::newRow("scenario missing") << QStringList{"run", "--scenario", "/nonexistent.json"}
                                    << "ratelab-cli run: --scenario '/nonexistent.json': cannot read it (No such file or directory)";
  QTest::newRow("password file missing")
      << QStringList{"keys", "--redis", "redis://127.0.0.1:1", "--redis-password-file", "/nonexistent-pw"}
      << "ratelab-cli keys: --redis: --redis-password-file '/nonexistent-pw': cannot read it";
  QTest::newRow("password never printed") << QStringList{"keys", "--redis", "redis://user:SuperSecret@127.0.0.1:99999"}
                                          << "ratelab-cli keys: --redis: bad Redis URL 'redis://user:***@127.0.0.1:99999': "
                                             "port '99999' must be 1 to 65535";
  QTest::newRow("command") << QStringList{"fly"}
                           << "ratelab-cli: unknown command 'fly': allowed run, race, bench, keys, script, serve";
}

void RatelabCliTest::badInputExitsTwo() {
  QFETCH(QStringList, args);
  QFETCH(QString, message);
  const Cli c = cli(args);
  QCOMPARE(c.exitCode, 2);
  const QString err = QString::fromUtf8(c.err);
  QCOMPARE(err.count('\n'), 1);  // one line
  QVERIFY2(err.startsWith(message), qPrintable(err));
  QVERIFY(c.out.isEmpty());
}

void RatelabCliTest::unknownScenarioKeyExitsTwo() {
  const QString path = tmp_.filePath("bad.json");
  QFile f(path);
  QVERIFY(f.open(QIODevice::WriteOnly));
  f.write(R"({"limit": 10, "requests": 20, "replicaz": 4})");
  f.close();
  const Cli c = cli({"run", "--scenario", path});
  QCOMPARE(c.exitCode, 2);
  QVERIFY2(c.err.startsWith(("ratelab-cli run: --scenario '" + path + "': scenario key 'replicaz' is unknown: allowed").toUtf8()),
           c.err.constData());
}

// `run --settings` prints the settings table; every flag it lists is one `run` parses: a value
// flag given without its value is "needs a value", a switch given one is "takes no value".
void RatelabCliTest::settingsListsEveryFlag() {
  const Cli c = cli({"run", "--settings"});
  QCOMPARE(c.exitCode, 0);
  const QStringList lines = QString::fromUtf8(c.out).split('\n', Qt::SkipEmptyParts);
  QCOMPARE(lines.size(), 53);  // a heading and 52 settings
  QVERIFY(lines.contains("--replicas                    replicas                      an integer 1 to 64"));
  int switches = 0;
  for (const QString& line : lines.mid(1)) {
    const QString flag = line.section(' ', 0, 0);
    const bool isSwitch = line.contains("(a switch on the command line)");
    switches += isSwitch;
    const Cli probe = cli({"run", isSwitch ? flag + "=yes" : flag});
    QCOMPARE(probe.exitCode, 2);
    QCOMPARE(QString::fromUtf8(probe.err).trimmed(),
             "ratelab-cli run: " + flag + (isSwitch ? " takes no value" : " needs a value"));
  }
  QCOMPARE(switches, 4);
}

void RatelabCliTest::passwordFromFileOrEnvironment() {
  // A server with requirepass: the password from --redis-password-file or
  // REDISCLI_AUTH reaches AUTH (the run admits exactly the limit); without it,
  // exit 3 naming NOAUTH; the password is never printed.
  test::RedisTestServer secured({"--requirepass", "Sup3rSecret"});
  RL_REQUIRE_REDIS(secured);
  const QString url = QString("redis://127.0.0.1:%1").arg(secured.endpoint().port);
  const QString pwFile = tmp_.filePath("pw");
  QFile f(pwFile);
  QVERIFY(f.open(QIODevice::WriteOnly));
  f.write("Sup3rSecret\n");
  f.close();
  const QStringList run{"run", "--backend", "redis-lua", "--redis", url, "--limit", "7", "--requests", "20", "--json"};
  const Cli viaFile = cli(run + QStringList{"--redis-password-file", pwFile});
  QVERIFY2(viaFile.exitCode == 0, viaFile.err.constData());
  QCOMPARE(runOf(viaFile, "fixed_window")["admitted"].toInt(), 7);
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  env.insert("REDISCLI_AUTH", "Sup3rSecret");
  const Cli viaEnv = cli(run, 120'000, env);
  QVERIFY2(viaEnv.exitCode == 0, viaEnv.err.constData());
  QCOMPARE(runOf(viaEnv, "fixed_window")["admitted"].toInt(), 7);
  const Cli encoded = cli({"run", "--backend", "redis-lua", "--redis",
                           QString("redis://:Sup3r%53ecret@127.0.0.1:%1").arg(secured.endpoint().port), "--requests", "3"});
  QVERIFY2(encoded.exitCode == 0, encoded.err.constData());  // %53 is 'S'
  env.remove("REDISCLI_AUTH");
  const Cli without = cli(run, 120'000, env);
  QCOMPARE(without.exitCode, 3);
  QVERIFY2(without.err.contains("NOAUTH"), without.err.constData());
  const Cli wrong = cli({"keys", "--redis", QString("redis://:WrongSecret@127.0.0.1:%1").arg(secured.endpoint().port)});
  QCOMPARE(wrong.exitCode, 3);
  QVERIFY2(!wrong.err.contains("WrongSecret") && !wrong.out.contains("WrongSecret"), wrong.err.constData());
}

void RatelabCliTest::localPolicyInJson() {
  // The policy and the degraded decisions are in run --json (Redis healthy here: none degraded).
  const Cli c = cli({"run", "--backend", "redis-lua", "--redis", redisUrl(), "--on-redis-error", "local", "--limit", "5",
                     "--requests", "10", "--json"});
  QVERIFY2(c.exitCode == 0, c.err.constData());
  const QJsonObject r = runOf(c, "fixed_window");
  QCOMPARE(r["on_redis_error"].toString(), QString("local"));
  QCOMPARE(r["degraded"].toInt(), 0);
  QCOMPARE(r["degraded_admitted"].toInt(), 0);
  QCOMPARE(r["admitted"].toInt(), 5);
}

void RatelabCliTest::unreachableRedisExitsThree() {
  const Cli c = cli({"run", "--backend", "redis-lua", "--redis", "redis://127.0.0.1:1", "--requests", "5"});
  QCOMPARE(c.exitCode, 3);
  QVERIFY2(c.err.startsWith("ratelab-cli run: cannot reach Redis at 127.0.0.1:1: "), c.err.constData());
  QVERIFY(c.err.contains("refused"));
}

void RatelabCliTest::csvHasEveryDecision() {
  const QString path = tmp_.filePath("decisions.csv");
  const Cli c = cli({"run", "--scenario", "resources/scenarios/replica_leak.json", "--replicas", "2", "--csv", path});
  QVERIFY2(c.exitCode == 0, c.err.constData());
  QFile f(path);
  QVERIFY(f.open(QIODevice::ReadOnly));
  const QList<QByteArray> lines = f.readAll().trimmed().split('\n');
  QCOMPARE(lines.size(), 401);
  QCOMPARE(lines[0], QByteArray("intended_us,actual_us,replica,client,algorithm,allowed,remaining,retry_after_us,latency_us,error,late,level"));
  int allowed = 0;
  for (int i = 1; i < lines.size(); ++i) allowed += lines[i].split(',')[5] == "1";
  QCOMPARE(allowed, 200);  // 2 replicas x 100
  QVERIFY(lines[1].startsWith("0,0,0,0,fixed_window,1,"));
}

void RatelabCliTest::keysShowsTtl() {
  const Cli run = cli({"run", "--backend", "redis-lua", "--redis", redisUrl(), "--prefix", "clikeys:", "--algorithm",
                       "token_bucket,sliding_log", "--limit", "5", "--window-ms", "10000", "--requests", "3"});
  QVERIFY2(run.exitCode == 0, run.err.constData());
  const Cli c = cli({"keys", "--redis", redisUrl(), "--prefix", "clikeys:", "--json"});
  QVERIFY2(c.exitCode == 0, c.err.constData());
  const QJsonArray keys = c.json()["keys"].toArray();
  QCOMPARE(keys.size(), 2);
  for (const auto& k : keys) {
    const QJsonObject o = k.toObject();
    QVERIFY(o["name"].toString().startsWith("clikeys:{"));
    QVERIFY(o["pttl_ms"].toInt() > 0);
    QVERIFY(o["pttl_ms"].toInt() <= 10'000);
    QCOMPARE(o["type"].toString(), QString("string"));
    if (o["name"].toString().contains("{sliding_log:")) {
      QCOMPARE(o["fields"].toObject()["entries"].toString(), QString("3"));  // decoded from the string
    } else {  // token_bucket: "fullAt:interval:limit"; 3 taken, one refilled per 2 s
      const QStringList parts = o["value"].toString().split(':');
      QCOMPARE(parts.size(), 3);
      QVERIFY(parts[0].toLongLong() > 0);
      QCOMPARE(parts[1], QString("2000000"));
      QVERIFY(o["pttl_ms"].toInt() <= 6'000);
    }
  }
}

void RatelabCliTest::scriptPrintsLua() {
  const Cli c = cli({"script", "token_bucket"});
  QCOMPARE(c.exitCode, 0);
  QVERIFY(c.out.contains("token_bucket"));
  QVERIFY(c.out.contains("redis.call('GET', key)"));
}

void RatelabCliTest::benchReportsThroughput() {
  const Cli c = cli({"bench", "--backend", "memory,redis-lua", "--redis", redisUrl(), "--duration-ms", "200",
                     "--concurrency", "2", "--clients", "1000", "--json"});
  QVERIFY2(c.exitCode == 0, c.err.constData());
  const QJsonArray r = c.json()["results"].toArray();
  QCOMPARE(r.size(), 2);
  for (const auto& v : r) {
    QVERIFY(v.toObject()["decisions"].toInteger() > 0);
    QCOMPARE(v.toObject()["errors"].toInt(), 0);
  }
  // Redis' own time per decision (INFO commandstats), for Redis backends only
  QVERIFY(!r[0].toObject().contains("redis_us_per_decision"));
  QVERIFY(r[1].toObject()["redis_us_per_decision"].toDouble() > 0);
  // memory decides on 2 threads; redis-lua drives its 2 connections from 2 event loops
  QCOMPARE(r[0].toObject()["path"].toString(), QString("store"));
  QCOMPARE(r[0].toObject()["threads"].toInt(), 2);
  QCOMPARE(r[1].toObject()["path"].toString(), QString("wire"));
  QCOMPARE(r[1].toObject()["threads"].toInt(), 2);
  const Cli piped = cli({"bench", "--backend", "redis-lua", "--redis", redisUrl(), "--pipeline", "8", "--duration-ms",
                         "200", "--concurrency", "2", "--json"});
  QVERIFY2(piped.exitCode == 0, piped.err.constData());
  QCOMPARE(piped.json()["results"].toArray()[0].toObject()["pipeline"].toInt(), 8);
  QCOMPARE(piped.json()["results"].toArray()[0].toObject()["errors"].toInt(), 0);
}

void RatelabCliTest::ctrlCPrintsWhatWasRecorded() {
  // A 10-minute run on the wall clock, interrupted: it stops promptly, prints
  // the decisions made so far and exits 130.
  QProcess p;
  p.setWorkingDirectory(RATELAB_SOURCE_DIR);
  p.start(qEnvironmentVariable("RATELAB_BIN_DIR") + "/cli/ratelab-cli",
          {"run", "--clock", "client", "--pattern", "constant", "--rate", "100", "--duration-ms", "600000", "--json"});
  QVERIFY(p.waitForStarted());
  QTest::qWait(700);
  QCOMPARE(::kill(static_cast<pid_t>(p.processId()), SIGINT), 0);
  QVERIFY(p.waitForFinished(30'000));  // generous "no hang" bound
  QCOMPARE(p.exitCode(), 130);
  const QJsonObject r = QJsonDocument::fromJson(p.readAllStandardOutput()).object()["runs"].toArray()[0].toObject();
  QVERIFY(r["cancelled"].toBool());
  QVERIFY(r["offered"].toInt() > 0);
  QVERIFY(r["offered"].toInt() < 60'000);
  QCOMPARE(r["admitted"].toInt() + r["denied"].toInt(), r["offered"].toInt());
}

QTEST_GUILESS_MAIN(RatelabCliTest)
#include "test_ratelab_cli.moc"
