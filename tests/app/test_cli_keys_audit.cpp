// `ratelab-cli keys --audit` and `keys --watch` against keys written by the real
// libraries into a private redis-server: express-rate-limit + rate-limit-redis
// (a real express server, real HTTP requests), @fastify/rate-limit (its
// RedisStore through fastify.inject), Python limits (Debian python3-limits).
// Envoy, Traefik, Kong and redis-cell cannot run here: this test writes their
// keys in their documented layout (core/keys/*_keys.cpp says which).

#include <QtTest>

#include <QJsonArray>
#include <QTemporaryDir>

#include <csignal>

#include "redis/key_inspector.hpp"
#include "redis/redis_link.hpp"
#include "support/cli_process.hpp"
#include "support/peer_libraries.hpp"
#include "support/redis_test_cluster.hpp"
#include "support/redis_test_server.hpp"
#include "support/report_page.hpp"
#include "support/checked.hpp"

using namespace rl;

namespace {
QString libraryOf(const QJsonObject& group) { return group["library"].isNull() ? QString() : group["library"].toString(); }
}  // namespace

class CliKeysAuditTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase();
  void init();
  void auditNamesBadKeysAndEveryLibrary();
  void auditReadsDocumentedLayouts();
  void auditRequireAndBadInput();
  void auditCoversEveryClusterMaster();
  void bigValuesAreReadAsHeads();
  void watchSeesExpressCountRise();
  void watchUsesNotificationsOnlyWhenAllowed();
  void watchReadsEachNotifiedChange();

 private:
  QString url() const { return QString("redis://127.0.0.1:%1").arg(redis_->endpoint().port); }
  void redisDo(const std::vector<std::string>& argv);
  /// A real express + express-rate-limit + rate-limit-redis server (limit 100 per minute): its port, 0 on failure.
  int startExpress(QProcess& express);
  std::unique_ptr<test::RedisTestServer> redis_;
  std::optional<RedisConnection> conn_;
  QString nodeDir_;
  QTemporaryDir tmp_;
};

void CliKeysAuditTest::initTestCase() {
  redis_ = std::make_unique<test::RedisTestServer>();
  RL_REQUIRE_REDIS(*redis_);
  auto ep = redis_->endpoint();
  ep.commandTimeout = Micros{10'000'000};  // a 100 MB SETRANGE on a busy machine
  auto c = RedisConnection::connect(ep);
  QVERIFY(c);
  conn_.emplace(std::move(c).value());
  QString error;
  nodeDir_ = test::nodePeersDir(error);
  QVERIFY2(!nodeDir_.isEmpty(), qPrintable(error));
}

void CliKeysAuditTest::init() { redisDo({"FLUSHALL"}); }

void CliKeysAuditTest::redisDo(const std::vector<std::string>& argv) {
  auto r = conn_->command(argv);
  QVERIFY2(r && !r->isError(), (argv.front() + ": " + (r ? std::string(r->str()) : r.error().message)).c_str());
}

int CliKeysAuditTest::startExpress(QProcess& express) {
  express.setWorkingDirectory(nodeDir_);
  express.start("node", {nodeDir_ + "/http_limiters.js", "express", QString::number(redis_->endpoint().port), "100", "60000"});
  if (!express.waitForReadyRead(30'000)) return 0;
  return QJsonDocument::fromJson(express.readLine()).object()["listening"].toInt();
}

void CliKeysAuditTest::auditNamesBadKeysAndEveryLibrary() {
  const QString port = QString::number(redis_->endpoint().port);
  const auto limits = test::runPeer("/usr/bin/python3", {RATELAB_SOURCE_DIR "/tests/peers/python/limits_keys.py", port});
  QVERIFY2(limits.error.isEmpty(), qPrintable(limits.error));
  const auto fastify = test::runPeer("node", {nodeDir_ + "/http_limiters.js", "fastify", port, "5", "60000", "3"}, nodeDir_);
  QVERIFY2(fastify.error.isEmpty(), qPrintable(fastify.error));
  QProcess express;
  const int httpPort = startExpress(express);
  QVERIFY(httpPort > 0);
  QCOMPARE(test::curlCodes(QString("http://127.0.0.1:%1/").arg(httpPort), "k", 2), (std::vector<int>{200, 200}));
  express.closeWriteChannel();
  QVERIFY(express.waitForFinished(10'000));
  // The two bad keys, written by this test: a limits key without a TTL (a lockout for good) and
  // a 1-minute limits key with a day-long TTL.
  redisDo({"SET", "LIMITER/stuck/10/1/minute", "10"});
  redisDo({"SET", "LIMITER/daylong/10/1/minute", "1", "EX", "86400"});

  const auto table = test::runCli({"keys", "--audit", "--redis", url()});
  QCOMPARE(table.exitCode, 1);
  QVERIFY2(table.out.contains("no TTL: LIMITER/stuck/10/1/minute (limits (Python)): never expires"), table.out.constData());
  QVERIFY2(table.out.contains("TTL far beyond its window: LIMITER/daylong/10/1/minute (limits (Python)): 1 d, expected at most 1 min"),
           table.out.constData());
  QVERIFY(table.out.contains("FAILED ttl: 1 limiter key(s) have no TTL"));
  const auto json = test::runCli({"keys", "--audit", "--redis", url(), "--json"});
  QCOMPARE(json.exitCode, 1);
  const QJsonObject audit = json.json()["audit"].toObject();
  // limits wrote 4 keys (one of them, "5 per 2 second", may have expired by now), fastify 1, express 1, this test 2.
  const int limitsKeys = audit["scanned"].toInt() - 2;
  QVERIFY2(limitsKeys == 5 || limitsKeys == 6, json.out.constData());
  QCOMPARE(audit["limiter_keys"].toInt(), audit["scanned"].toInt());  // every key's library is named
  QMap<QString, int> perLibrary;
  for (const QJsonValue& g : audit["groups"].toArray()) perLibrary[libraryOf(g.toObject())] += g.toObject()["count"].toInt();
  QCOMPARE(perLibrary, (QMap<QString, int>{{"limits (Python)", limitsKeys}, {"@fastify/rate-limit", 1}, {"rate-limit-redis", 1}}));
  const QJsonObject lim = audit["groups"].toArray()[0].toObject();
  QCOMPARE(lim["no_ttl_keys"].toArray()[0].toString(), QString("LIMITER/stuck/10/1/minute"));
  QCOMPARE(lim["long_ttl_keys"].toArray()[0].toObject()["name"].toString(), QString("LIMITER/daylong/10/1/minute"));
  QCOMPARE(lim["long_ttl_keys"].toArray()[0].toObject()["expected_max_ms"].toInt(), 60'000);
  QCOMPARE(json.json()["keys"].toArray().size(), 2);  // the keys the audit names
  QCOMPARE(audit["servers"].toArray()[0].toObject()["maxmemory_policy"].toString(), QString("noeviction"));

  // The same audit as a page: it embeds the document --json printed in the same run, and a real
  // headless Chromium shows both bad keys, every library and one bar per TTL bin of each library.
  const QString page = tmp_.filePath("audit.html");
  const auto reported = test::runCli({"keys", "--audit", "--redis", url(), "--json", "--report", page});
  QCOMPARE(reported.exitCode, 1);
  const QByteArray html = test::readReport(page);
  QCOMPARE(test::embeddedDocument(html), reported.json());
  QTemporaryDir profile;
  RL_CHECKED(dom, test::headlessChromium(profile, {"--dump-dom", QUrl::fromLocalFile(page).toString()}));
  QVERIFY2(dom.contains("<h2>Verdict: fail</h2>"), dom.left(2000).constData());
  QVERIFY(dom.contains("Fails ttl: 1 limiter key(s) have no TTL."));
  QVERIFY(dom.contains("<td>LIMITER/stuck/10/1/minute</td><td>limits (Python)</td><td>no TTL: it never expires</td>"));
  QVERIFY(dom.contains("<td>LIMITER/daylong/10/1/minute</td><td>limits (Python)</td><td>TTL 1 d, needs at most 1 min</td>"));
  for (const char* library : {"limits (Python)", "@fastify/rate-limit", "rate-limit-redis"})
    QVERIFY2(dom.contains(QByteArray("<td>") + library + "</td>"), library);
  QCOMPARE(dom.count("<svg class=\"chart bars\""), 3);  // one histogram per library
  QCOMPARE(dom.count("<rect class=\"bar\""), 3 * 7);
  QVERIFY(dom.contains("<title>no TTL: 1</title>"));  // the stuck key's bar, in the limits histogram
  QVERIFY(dom.contains("<title>&gt; 10 x bound: 1</title>"));  // the day-long key's
}

void CliKeysAuditTest::auditReadsDocumentedLayouts() {
  // Layouts from each project's documentation and source (not run here): see core/keys/*_keys.cpp.
  auto now = serverTimeUs(*conn_);
  QVERIFY(now);
  const std::int64_t s = *now / 1'000'000;
  const std::string minute = std::to_string(s / 60 * 60);
  redisDo({"SET", "api_remote_address_10.0.0.1_" + minute, "7", "EX", std::to_string(60 + 300)});  // Envoy, 300 s jitter
  redisDo(std::vector<std::string>{"HSET", "rate:ratelimit@file:10.0.0.9", "last", std::string(std::to_string(*now - 200'000)), "tokens", "4"});
  redisDo({"EXPIRE", "rate:ratelimit@file:10.0.0.9", "2"});
  redisDo({"SET", "ratelimit:00000000-0000-0000-0000-000000000000:svc1:1.2.3.4:" + std::to_string(s / 60 * 60'000) + ":minute",
           "3", "EX", "60"});
  redisDo(std::vector<std::string>{"SET", "user123", std::to_string((*now + 2'000'000) * 1000), "PX", "2000"});  // redis-cell: TAT in ns
  QFile yaml(tmp_.filePath("envoy.yaml"));
  QVERIFY(yaml.open(QIODevice::WriteOnly));
  yaml.write("domain: api\ndescriptors:\n  - key: remote_address\n    rate_limit: {unit: minute, requests_per_unit: 10}\n");
  yaml.close();
  const auto without = test::runCli({"keys", "--audit", "--redis", url(), "--json", "--require", "known"});
  QCOMPARE(without.exitCode, 0);
  QMap<QString, int> perLibrary;
  for (const QJsonValue& g : without.json()["audit"].toObject()["groups"].toArray()) perLibrary[libraryOf(g.toObject())] += 1;
  QCOMPARE(perLibrary, (QMap<QString, int>{{"Envoy ratelimit", 1}, {"Traefik", 1}, {"Kong", 1}, {"redis-cell", 1}}));
  const auto listed = test::runCli({"keys", "--prefix", "api_", "--redis", url(), "--json"});
  QVERIFY2(listed.json()["keys"].toArray()[0].toObject()["explained"].toString().contains("ambiguous"), listed.out.constData());
  // With the descriptors the Envoy key has its limit, its window, and its jitter named as a TTL far beyond it.
  const auto with = test::runCli({"keys", "--audit", "--redis", url(), "--json", "--envoy-config", yaml.fileName(),
                                  "--require", "ttl-bound"});
  QCOMPARE(with.exitCode, 1);
  const QJsonObject envoy = with.json()["audit"].toObject()["groups"].toArray()[0].toObject();
  QCOMPARE(envoy["library"].toString(), QString("Envoy ratelimit"));
  QCOMPARE(envoy["long_ttl_keys"].toArray()[0].toObject()["expected_max_ms"].toInt(), 60'000);
  QVERIFY(with.json()["audit"].toObject()["failed"].toArray()[0].toString().startsWith("ttl-bound: 1 limiter key(s)"));
}

void CliKeysAuditTest::auditRequireAndBadInput() {
  redisDo({"SET", "rl:a", "1", "PX", "60000"});
  redisDo({"SET", "session:x", "y"});
  QCOMPARE(test::runCli({"keys", "--audit", "--redis", url()}).exitCode, 0);  // the session key is not a limiter key
  const auto known = test::runCli({"keys", "--audit", "--redis", url(), "--require", "known"});
  QCOMPARE(known.exitCode, 1);
  QVERIFY(known.out.contains("FAILED known: 1 key(s) no reader knows"));
  const auto bad = test::runCli({"keys", "--audit", "--redis", url(), "--require", "fast"});
  QCOMPARE(bad.exitCode, 2);
  QCOMPARE(bad.err, QByteArray("ratelab-cli keys: --require: 'fast' is not a check: allowed ttl, ttl-bound, known, eviction "
                               "(comma-separated)\n"));
  const auto notAudit = test::runCli({"keys", "--redis", url(), "--report", tmp_.filePath("k.html")});
  QCOMPARE(notAudit.exitCode, 2);
  QCOMPARE(notAudit.err, QByteArray("ratelab-cli keys: --report is the audit's page: allowed with --audit only\n"));
  const auto badPage = test::runCli({"keys", "--audit", "--redis", url(), "--report", tmp_.filePath("k.txt")});
  QCOMPARE(badPage.exitCode, 2);
  QVERIFY2(badPage.err.contains("must end in .html or .htm"), badPage.err.constData());
  QVERIFY(badPage.out.isEmpty());  // refused before the scan
  const auto cap = test::runCli({"keys", "--audit", "--redis", url(), "--max-keys", "0"});
  QCOMPARE(cap.exitCode, 2);
  QVERIFY(cap.err.contains("--max-keys '0' is not valid: allowed a whole number from 1 to"));
  const auto one = test::runCli({"keys", "--audit", "--redis", url(), "--max-keys", "1", "--json"});
  QCOMPARE(one.json()["audit"].toObject()["scanned"].toInt(), 1);
  QVERIFY(one.json()["audit"].toObject()["truncated"].toBool());
  const auto watch = test::runCli({"keys", "--watch", "--redis", url()});
  QCOMPARE(watch.exitCode, 2);
  QVERIFY(watch.err.contains("--watch needs --prefix"));
  const auto watchAll = test::runCli({"keys", "--watch", "--prefix", "", "--redis", url()});
  QCOMPARE(watchAll.exitCode, 2);
  QVERIFY(watchAll.err.contains("--watch --prefix is empty"));
  // An empty prefix lists every key of the database, limiter key or not.
  const auto every = test::runCli({"keys", "--prefix", "", "--redis", url(), "--json"});
  QCOMPARE(every.exitCode, 0);
  QStringList names;
  for (const QJsonValue& k : every.json()["keys"].toArray()) names << k.toObject()["name"].toString();
  names.sort();
  QCOMPARE(names, (QStringList{"rl:a", "session:x"}));
  const auto yaml = test::runCli({"keys", "--envoy-config", "/nonexistent.yaml", "--redis", url()});
  QCOMPARE(yaml.exitCode, 2);
}

void CliKeysAuditTest::bigValuesAreReadAsHeads() {
  // A 100 MB string and a 200,000-field hash: the listing reads their heads
  // (GETRANGE, HSCAN), says how big they are, and prints a bounded line.
  redisDo({"SETRANGE", "big:string", std::to_string(100 * 1024 * 1024 - 1), "x"});
  redisDo({"EVAL", "for i = 1, tonumber(ARGV[1]) do redis.call('HSET', KEYS[1], 'f' .. i, i) end return 1", "1",
           "big:hash", "200000"});
  redisDo({"SET", "big:small", "12"});
  const auto listed = test::runCli({"keys", "--prefix", "big:", "--redis", url(), "--json"});
  QCOMPARE(listed.exitCode, 0);
  QVERIFY2(listed.out.size() < 3 * 1024 * 1024, qPrintable(QString::number(listed.out.size())));
  QMap<QString, QJsonObject> byName;
  for (const QJsonValue& k : listed.json()["keys"].toArray()) byName[k.toObject()["name"].toString()] = k.toObject();
  QCOMPARE(byName.size(), 3);
  const QJsonObject str = byName["big:string"];
  QCOMPARE(str["value_bytes"].toInteger(), 100LL * 1024 * 1024);
  QCOMPARE(str["value"].toString().size(), 64 * 1024);  // what --json shows of a value
  QVERIFY(str["value_truncated"].toBool());
  const QJsonObject hash = byName["big:hash"];
  QCOMPARE(hash["field_count"].toInteger(), 200000);
  QVERIFY(hash["fields_truncated"].toBool());
  const auto shown = hash["fields"].toObject().size();
  QVERIFY2(shown >= 100 && shown <= 1000, qPrintable(QString::number(shown)));  // HSCAN COUNT 1000, kHashHead
  const QJsonObject small = byName["big:small"];
  QCOMPARE(small["value"].toString(), QStringLiteral("12"));
  QCOMPARE(small["value_bytes"].toInteger(), 2);
  QVERIFY(!small.contains("value_truncated"));
  // The table: one bounded line per key, saying how much there is.
  const auto table = test::runCli({"keys", "--prefix", "big:", "--redis", url()});
  QCOMPARE(table.exitCode, 0);
  QVERIFY2(table.out.size() < 4096, qPrintable(QString::number(table.out.size())));
  QVERIFY2(table.out.contains("... (104857600 bytes)"), table.out.constData());
  QVERIFY2(table.out.contains("... (200000 fields)"), table.out.constData());
}

void CliKeysAuditTest::auditCoversEveryClusterMaster() {
  test::RedisTestCluster cluster;
  RL_REQUIRE_CLUSTER(cluster);
  auto link = RedisLink::connect(cluster.endpoint());
  QVERIFY(link);
  for (int i = 0; i < 30; ++i) {  // 30 clients: their keys spread over the three masters
    const std::string key = "rl:client" + std::to_string(i);
    auto ok = link->onKey(key, [&](RedisConnection& c) { return c.command({"SET", key, "1", "PX", "60000"}); });
    QVERIFY(ok && !ok->isError());
  }
  auto stuck = link->onKey("rl:stuck", [](RedisConnection& c) { return c.command({"SET", "rl:stuck", "5"}); });
  QVERIFY(stuck && !stuck->isError());
  const QString url = QString::fromStdString(cluster.endpoint().toString());
  const auto run = test::runCli({"keys", "--audit", "--redis", url, "--json"});
  QCOMPARE(run.exitCode, 1);
  const QJsonObject audit = run.json()["audit"].toObject();
  QCOMPARE(audit["scanned"].toInt(), 31);
  QCOMPARE(audit["servers"].toArray().size(), 3);
  int keysOnMasters = 0;
  for (const QJsonValue& s : audit["servers"].toArray()) keysOnMasters += s.toObject()["keys"].toInt();
  QCOMPARE(keysOnMasters, 31);
  QCOMPARE(audit["groups"].toArray()[0].toObject()["no_ttl_keys"].toArray()[0].toString(), QString("rl:stuck"));
}

void CliKeysAuditTest::watchSeesExpressCountRise() {
  QProcess express;
  const int httpPort = startExpress(express);
  QVERIFY(httpPort > 0);
  QProcess watch;
  watch.setWorkingDirectory(RATELAB_SOURCE_DIR);
  watch.start(qEnvironmentVariable("RATELAB_BIN_DIR") + "/cli/ratelab-cli",
              {"keys", "--watch", "--prefix", "rl:", "--interval-ms", "40", "--duration-ms", "60000", "--jsonl", "--redis", url()});
  QVERIFY(watch.waitForStarted());
  QList<int> seen;  // the client's count, sample by sample
  QByteArray pending;
  const auto readSamples = [&] {
    pending += watch.readAllStandardOutput();
    for (int nl = pending.indexOf('\n'); nl >= 0; nl = pending.indexOf('\n')) {
      const QJsonObject j = QJsonDocument::fromJson(pending.left(nl)).object();
      pending.remove(0, nl + 1);
      if (j["key"].toString().startsWith("rl:") && j.contains("used")) {
        QCOMPARE(j["library"].toString(), QString("rate-limit-redis"));
        seen << j["used"].toInt();
      }
    }
  };
  for (int i = 1; i <= 12; ++i) {
    QCOMPARE(test::curlCodes(QString("http://127.0.0.1:%1/").arg(httpPort), "k", 1), std::vector<int>{200});
    QTRY_VERIFY_WITH_TIMEOUT((readSamples(), !seen.isEmpty() && seen.back() == i), 10'000);  // the watch saw this request
  }
  ::kill(static_cast<pid_t>(watch.processId()), SIGINT);
  QVERIFY(watch.waitForFinished(10'000));
  readSamples();
  QCOMPARE(watch.exitCode(), 130);
  QVERIFY(std::is_sorted(seen.begin(), seen.end()));
  QList<int> distinct = seen;
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  QCOMPARE(distinct, (QList<int>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}));
  express.closeWriteChannel();
  QVERIFY(express.waitForFinished(10'000));
}

void CliKeysAuditTest::watchUsesNotificationsOnlyWhenAllowed() {
  redisDo({"SET", "rl:n", "1", "PX", "60000"});
  const auto sampled = test::runCli({"keys", "--watch", "--prefix", "rl:", "--interval-ms", "50", "--duration-ms", "120", "--redis", url()});
  QCOMPARE(sampled.exitCode, 0);
  QCOMPARE(sampled.json()["mode"].toString(), QString("sampling"));
  const QJsonArray samples = sampled.json()["series"].toArray()[0].toObject()["samples"].toArray();
  QVERIFY2(samples.size() >= 2, sampled.out.constData());
  QCOMPARE(samples[0].toObject()["used"].toInt(), 1);
  const auto notified = test::runCli({"keys", "--watch", "--prefix", "rl:", "--duration-ms", "200", "--enable-notifications",
                                      "--jsonl", "--redis", url()});
  QCOMPARE(notified.exitCode, 0);
  QVERIFY2(notified.out.trimmed().split('\n').last().contains("\"mode\":\"notifications\""), notified.out.constData());
  auto flags = conn_->command({"CONFIG", "GET", "notify-keyspace-events"});
  QVERIFY(flags);
  QCOMPARE(QByteArray((*flags)[1].str().data()), QByteArray(""));  // put back as it was
}

void CliKeysAuditTest::watchReadsEachNotifiedChange() {
  redisDo({"CONFIG", "SET", "notify-keyspace-events", "K$"});  // the server already publishes them
  redisDo({"SET", "rl:n", "0", "PX", "60000"});
  QProcess watch;  // samples only every hour: what it prints after the first sample came from notifications
  watch.setWorkingDirectory(RATELAB_SOURCE_DIR);
  watch.start(qEnvironmentVariable("RATELAB_BIN_DIR") + "/cli/ratelab-cli",
              {"keys", "--watch", "--prefix", "rl:", "--interval-ms", "3600000", "--duration-ms", "20000", "--jsonl", "--redis", url()});
  QVERIFY(watch.waitForReadyRead(10'000));  // the first sample: subscribed by now
  QByteArray out;
  for (int n = 1; n <= 3; ++n) {
    redisDo({"INCR", "rl:n"});
    const QByteArray want = QByteArray("\"used\":") + QByteArray::number(n);
    QTRY_VERIFY_WITH_TIMEOUT((out += watch.readAllStandardOutput(), out.contains(want)), 10'000);
  }
  ::kill(static_cast<pid_t>(watch.processId()), SIGINT);
  QVERIFY(watch.waitForFinished(10'000));
  out += watch.readAllStandardOutput();
  QVERIFY2(out.contains("\"mode\":\"notifications\""), out.constData());
  QVERIFY(watch.readAllStandardError().contains("keyspace notifications: the server already publishes them"));
  redisDo({"CONFIG", "SET", "notify-keyspace-events", ""});
}

QTEST_GUILESS_MAIN(CliKeysAuditTest)
#include "test_cli_keys_audit.moc"
