// ratelab-cli with the team's own limiter: the seed script scenario beside
// token_bucket, a wrong script, bad templates, and `keys --json` decoding a
// foreign key, end to end against a private redis-server.

#include <QtTest>

#include <QJsonArray>
#include <QTemporaryDir>

#include "support/cli_process.hpp"
#include "support/redis_test_server.hpp"

using namespace rl;

class CliForeignTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase();
  void seedScenarioBesideTokenBucket();
  void wrongScriptFailsTheRun();
  void badTemplateExitsTwo();
  void keysJsonNamesTheLibrary();
  void keysJsonWarnsAboutAKeyWithoutTtl();
  void raceRunsTheScript();

 private:
  QString url() const { return QString("redis://127.0.0.1:%1").arg(redis_->endpoint().port); }
  std::unique_ptr<test::RedisTestServer> redis_;
  QTemporaryDir tmp_;
};

void CliForeignTest::initTestCase() {
  redis_ = std::make_unique<test::RedisTestServer>();
  RL_REQUIRE_REDIS(*redis_);
}

void CliForeignTest::seedScenarioBesideTokenBucket() {
  const auto c = test::runCli({"run", "--scenario", "resources/scenarios/seed_vs_token_bucket.json", "--redis", url(), "--json"});
  QVERIFY2(c.exitCode == 0, c.err.constData());
  const QJsonArray runs = c.json()["runs"].toArray();
  QCOMPARE(runs.size(), 2);
  QCOMPARE(runs[0].toObject()["backend"].toString(), QString("redis-script"));
  QCOMPARE(runs[0].toObject()["script"].toString(), QString("seed_token_bucket.lua"));
  QCOMPARE(runs[0].toObject()["admitted"].toInt(), 109);
  QCOMPARE(runs[1].toObject()["backend"].toString(), QString("redis-lua"));
  QCOMPARE(runs[1].toObject()["admitted"].toInt(), 109);
  QCOMPARE(runs[1].toObject()["decisions_differing_from_first_run"].toInt(), 72);
  const auto table = test::runCli({"run", "--scenario", "resources/scenarios/seed_vs_token_bucket.json", "--redis", url()});
  QVERIFY2(table.out.contains("decisions that differ between redis-script and redis-lua: 72 of 200 (at 1100 ms, 1150 ms"),
           table.out.constData());
}

void CliForeignTest::wrongScriptFailsTheRun() {
  QFile f(tmp_.filePath("strings.lua"));
  QVERIFY(f.open(QIODevice::WriteOnly));
  f.write("return {'allowed', 'yes'}");
  f.close();
  const auto c = test::runCli({"run", "--backend", "redis-script", "--script", f.fileName(), "--redis", url(),
                               "--requests", "5", "--on-redis-error", "open", "--json"});
  QCOMPARE(c.exitCode, 1);
  const QJsonObject r = c.json()["runs"].toArray()[0].toObject();
  QCOMPARE(r["errors"].toInt(), 5);
  QCOMPARE(r["admitted"].toInt(), 0);  // fail-open covers an unreachable Redis, not a wrong script
  QVERIFY2(r["first_error"].toString().startsWith("script strings.lua returned a non-integer first element; it replied [\"allowed\", \"yes\"]"),
           qPrintable(r["first_error"].toString()));
  QVERIFY(c.err.contains("first error: script strings.lua"));
}

void CliForeignTest::badTemplateExitsTwo() {
  const auto c = test::runCli({"run", "--backend", "redis-script", "--script", "resources/examples/seed_token_bucket.lua",
                               "--script-argv", "{limit} {rate}", "--redis", url(), "--requests", "5"});
  QCOMPARE(c.exitCode, 2);
  QVERIFY2(c.err.startsWith("ratelab-cli run: --script-argv: unknown placeholder {rate}: allowed {client}"), c.err.constData());
  const auto none = test::runCli({"run", "--backend", "redis-script", "--requests", "5"});
  QCOMPARE(none.exitCode, 2);
  QCOMPARE(none.err, QByteArray("ratelab-cli run: --script is required by --backend redis-script: allowed a readable Lua file\n"));
}

void CliForeignTest::keysJsonNamesTheLibrary() {
  auto conn = redis_->connect();
  QVERIFY(conn);
  QVERIFY(conn->command({"SET", "rlflx:user1", "4", "PX", "30000"}));
  QVERIFY(conn->command({"SET", "other:blob", "hello"}));
  const auto c = test::runCli({"keys", "--redis", url(), "--prefix", "rlflx:", "--assume", "limit=10", "--json"});
  QVERIFY2(c.exitCode == 0, c.err.constData());
  const QJsonObject k = c.json()["keys"].toArray()[0].toObject();
  QCOMPARE(k["library"].toString(), QString("rate-limiter-flexible"));
  QCOMPARE(k["algorithm"].toString(), QString("fixed-window"));
  QCOMPARE(k["limit"].toInt(), 10);
  QCOMPARE(k["used"].toInt(), 4);
  QVERIFY(k["reset_ms"].toInt() > 25'000 && k["reset_ms"].toInt() <= 30'000);
  const auto raw = test::runCli({"keys", "--redis", url(), "--prefix", "other:", "--json"});
  const QJsonObject o = raw.json()["keys"].toArray()[0].toObject();
  QCOMPARE(o["value"].toString(), QString("hello"));
  QVERIFY(!o.contains("library"));  // unknown keys: type, PTTL and value only
  const auto bad = test::runCli({"keys", "--redis", url(), "--assume", "burst=0"});
  QCOMPARE(bad.exitCode, 2);
}

void CliForeignTest::keysJsonWarnsAboutAKeyWithoutTtl() {
  // Python limits' layout without a TTL: never resets, so the JSON says so and gives no reset_ms.
  auto conn = redis_->connect();
  QVERIFY(conn);
  QVERIFY(conn->command({"SET", "LIMITER/bob/10/1/minute", "3"}));
  const auto c = test::runCli({"keys", "--redis", url(), "--prefix", "LIMITER/bob/", "--json"});
  QVERIFY2(c.exitCode == 0, c.err.constData());
  const QJsonArray keys = c.json()["keys"].toArray();
  QCOMPARE(keys.size(), 1);
  const QJsonObject k = keys[0].toObject();
  QCOMPARE(k["name"].toString(), QString("LIMITER/bob/10/1/minute"));
  QCOMPARE(k["pttl_ms"].toInt(), -1);
  QCOMPARE(k["no_ttl"].toBool(), true);
  QVERIFY(!k.contains("reset_ms"));
  QCOMPARE(k["used"].toInt(), 3);
  QCOMPARE(k["limit"].toInt(), 10);
  QVERIFY2(k["explained"].toString().endsWith("3 used, 7 left; the window never resets: the key has no TTL."),
           qPrintable(k["explained"].toString()));
  const QJsonArray warnings = k["warnings"].toArray();
  QCOMPARE(warnings.size(), 1);
  QVERIFY(warnings[0].toString().startsWith("No TTL: this key never expires, so its count never resets"));
  // The table says it too, and a key with a TTL carries no warning and its reset.
  const auto table = test::runCli({"keys", "--redis", url(), "--prefix", "LIMITER/bob/"});
  QVERIFY2(table.out.contains("    warning: No TTL: this key never expires"), table.out.constData());
  QVERIFY(conn->command({"SET", "rlflx:erin", "2", "PX", "30000"}));
  const auto timed = test::runCli({"keys", "--redis", url(), "--prefix", "rlflx:erin", "--json"});
  const QJsonObject t = timed.json()["keys"].toArray()[0].toObject();
  QVERIFY(!t.contains("no_ttl"));
  QCOMPARE(t["warnings"].toArray().size(), 0);
  QVERIFY(t["reset_ms"].toInt() > 29'000);
  QVERIFY2(t["explained"].toString().endsWith("does not hold its limit. --assume 'limit=N' supplies what it lacks."),
           qPrintable(t["explained"].toString()));
  const auto bad = test::runCli({"keys", "--redis", url(), "--assume", "burst=0"});
  QVERIFY2(bad.err.startsWith("ratelab-cli keys: --assume: 'burst=0' is not valid: allowed rate="), bad.err.constData());
}

void CliForeignTest::raceRunsTheScript() {
  // The seed script is one atomic EVAL: it holds the limit under 20 concurrent requests.
  const auto c = test::runCli({"race", "--redis", url(), "--rounds", "20", "--backend", "redis-lua,redis-script",
                               "--script", "resources/examples/seed_token_bucket.lua", "--script-reply", "allowed,tokens",
                               "--json"});
  QVERIFY2(c.exitCode == 0, c.err.constData());
  const QJsonArray variants = c.json()["variants"].toArray();
  QCOMPARE(variants.size(), 2);
  QCOMPARE(variants[1].toObject()["name"].toString(), QString("script"));
  QCOMPARE(variants[1].toObject()["admitted_min"].toInt(), 10);
  QCOMPARE(variants[1].toObject()["admitted_max"].toInt(), 10);
  const auto none = test::runCli({"race", "--redis", url(), "--backend", "redis-script"});
  QCOMPARE(none.exitCode, 2);
  QVERIFY2(none.err.contains("--script is required by the redis-script variant"), none.err.constData());
}

QTEST_GUILESS_MAIN(CliForeignTest)
#include "test_cli_foreign.moc"
