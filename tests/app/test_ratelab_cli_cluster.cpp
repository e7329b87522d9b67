// ratelab-cli on a Redis Cluster, end to end: `cluster up` prints a seed URL
// and keeps a private 3+3 cluster until SIGTERM (then its dirs are gone); run
// (every algorithm), race, keys (node and slot of each key) and bench (per
// master) on it give the same numbers as on one node; serve on the cluster
// admits exactly its limit to curl, then 429; bad cluster input exits 2.

#include <QtTest>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>

#include <csignal>
#include <set>

#include "redis/cluster/key_slot.hpp"
#include "redis/redis_connection.hpp"
#include "support/cli_process.hpp"
#include "support/redis_test_server.hpp"

using namespace rl;

namespace {
using Cli = test::CliRun;
QString binary() { return qEnvironmentVariable("RATELAB_BIN_DIR") + "/cli/ratelab-cli"; }
}  // namespace

class RatelabCliClusterTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase();
  void runGivesOneNodeCounts();
  void raceHoldsTheLimit();
  void keysNameNodeAndSlot();
  void benchCountsPerMaster();
  void serveAdmitsThenLimits();
  void badClusterInputExitsTwo_data();
  void badClusterInputExitsTwo();
  void cleanupTestCase();

 private:
  Cli cli(const QStringList& args);
  std::unique_ptr<test::RedisTestServer> single_;
  QProcess up_;           ///< `ratelab-cli cluster up`
  QString url_;           ///< its seed URL
  std::vector<std::string> dirs_;  ///< the nodes' temp dirs
};

void RatelabCliClusterTest::initTestCase() {
  QVERIFY(QFileInfo::exists(binary()));
  single_ = std::make_unique<test::RedisTestServer>();
  RL_REQUIRE_REDIS(*single_);
  up_.start(binary(), {"cluster", "up"});
  QVERIFY(up_.waitForReadyRead(60'000));
  url_ = QString::fromUtf8(up_.readLine()).trimmed();
  QVERIFY2(url_.startsWith("redis+cluster://127.0.0.1:"), qPrintable(url_));
  const QStringList seeds = url_.mid(QString("redis+cluster://").size()).split(',');
  QCOMPARE(seeds.size(), 6);
  for (const QString& s : seeds) {
    RedisEndpoint ep;
    ep.port = s.section(':', 1).toInt();
    auto c = RedisConnection::connect(ep);
    QVERIFY(c);
    auto dir = c->command({"CONFIG", "GET", "dir"});
    QVERIFY(dir);
    dirs_.emplace_back((*dir)[1].str());
  }
}

Cli RatelabCliClusterTest::cli(const QStringList& args) { return test::runCli(args); }

void RatelabCliClusterTest::runGivesOneNodeCounts() {
  const QStringList storm = {"run", "--backend", "redis-lua", "--algorithm", "all", "--clock", "virtual",
                             "--pattern", "poisson", "--rate", "100", "--duration-ms", "3000", "--clients", "5",
                             "--replicas", "2", "--concurrency", "2", "--limit", "7", "--window-ms", "1000", "--json"};
  const Cli one = cli(storm + QStringList{"--redis", QString("redis://127.0.0.1:%1").arg(single_->endpoint().port)});
  const Cli many = cli(storm + QStringList{"--redis", url_});
  QVERIFY2(one.exitCode == 0, one.err.constData());
  QVERIFY2(many.exitCode == 0, many.err.constData());
  const QJsonArray a = one.json()["runs"].toArray(), b = many.json()["runs"].toArray();
  QCOMPARE(a.size(), 6);
  QCOMPARE(b.size(), 6);
  for (int i = 0; i < 6; ++i) {
    const QJsonObject x = a[i].toObject(), y = b[i].toObject();
    QCOMPARE(y["algorithm"], x["algorithm"]);
    QVERIFY(x["denied"].toInt() > 0);
    QCOMPARE(y["admitted"].toInt(), x["admitted"].toInt());
    QCOMPARE(y["denied"].toInt(), x["denied"].toInt());
    QCOMPARE(y["max_admitted_in_window"].toInt(), x["max_admitted_in_window"].toInt());
    QCOMPARE(y["errors"].toInt(), 0);
  }
}

void RatelabCliClusterTest::raceHoldsTheLimit() {
  const Cli c = cli({"race", "--rounds", "50", "--limit", "10", "--concurrency", "20", "--redis", url_, "--json"});
  QVERIFY2(c.exitCode == 0, c.err.constData());
  for (const auto& v : c.json()["variants"].toArray()) {
    const QJsonObject o = v.toObject();
    if (o["name"] == "naive") continue;
    QCOMPARE(o["admitted_min"].toInt(), 10);
    QCOMPARE(o["admitted_max"].toInt(), 10);
  }
}

void RatelabCliClusterTest::keysNameNodeAndSlot() {
  const Cli run = cli({"run", "--backend", "redis-lua", "--redis", url_, "--prefix", "ck:", "--algorithm", "gcra",
                       "--clients", "12", "--limit", "5", "--window-ms", "10000", "--requests", "24"});
  QVERIFY2(run.exitCode == 0, run.err.constData());
  const Cli c = cli({"keys", "--redis", url_, "--prefix", "ck:", "--json"});
  QVERIFY2(c.exitCode == 0, c.err.constData());
  const QJsonArray keys = c.json()["keys"].toArray();
  QCOMPARE(keys.size(), 12);
  std::set<QString> nodes;
  for (const auto& k : keys) {
    const QJsonObject o = k.toObject();
    QCOMPARE(o["slot"].toInt(), keySlot(o["name"].toString().toStdString()));
    QVERIFY(url_.contains(o["node"].toString()));
    nodes.insert(o["node"].toString());
  }
  QCOMPARE(nodes.size(), std::size_t{3});  // 12 clients land on every master
  const Cli text = cli({"keys", "--redis", url_, "--prefix", "ck:"});
  QVERIFY(text.out.contains("12 key(s) under 'ck:'; 127.0.0.1:"));
}

void RatelabCliClusterTest::benchCountsPerMaster() {
  const Cli c = cli({"bench", "--backend", "redis-lua", "--redis", url_, "--duration-ms", "300", "--concurrency", "2",
                     "--clients", "300", "--json"});
  QVERIFY2(c.exitCode == 0, c.err.constData());
  const QJsonObject r = c.json()["results"].toArray()[0].toObject();
  QCOMPARE(r["path"].toString(), QString("store"));
  QCOMPARE(r["errors"].toInt(), 0);
  const QJsonArray masters = r["masters"].toArray();
  QCOMPARE(masters.size(), 3);
  qint64 sum = 0;
  for (const auto& m : masters) {
    QVERIFY(m.toObject()["decisions"].toInteger() > 0);
    sum += m.toObject()["decisions"].toInteger();
  }
  QCOMPARE(sum, r["decisions"].toInteger());
}

void RatelabCliClusterTest::serveAdmitsThenLimits() {
  // The curl check through a cluster-backed serve: two replicas, each with a
  // redis-lua store routed by slot, share one fixed window of 5 per minute, so
  // 8 requests with one key get exactly 5 x 200, then 429.
  QProcess serve;
  serve.start(binary(), {"serve", "--backend", "redis-lua", "--redis", url_, "--algorithm", "fixed_window", "--limit",
                         "5", "--window-ms", "60000", "--replicas", "2", "--front", "builtin", "--port", "0",
                         "--prefix", "cserve:"});
  QVERIFY(serve.waitForStarted(10'000));
  QByteArray seen;
  const QByteArray front = test::waitForServeFront(serve, seen);
  QVERIFY2(front.startsWith("http://127.0.0.1:"), (seen + serve.readAllStandardError()).constData());
  const std::vector<int> codes = test::curlCodes(QString::fromUtf8(front) + "/ping", "curl-client", 8);
  QCOMPARE(codes, (std::vector<int>{200, 200, 200, 200, 200, 429, 429, 429}));
  ::kill(static_cast<pid_t>(serve.processId()), SIGTERM);
  QVERIFY(serve.waitForFinished(10'000));
  QCOMPARE(serve.exitCode(), 0);
  // The one window key sits on the master that owns its slot.
  const Cli keys = cli({"keys", "--redis", url_, "--prefix", "cserve:", "--json"});
  QVERIFY2(keys.exitCode == 0, keys.err.constData());
  const QJsonArray list = keys.json()["keys"].toArray();
  QCOMPARE(list.size(), 1);
  const QJsonObject k = list[0].toObject();
  QCOMPARE(k["value"].toString(), QString("5"));
  QCOMPARE(k["slot"].toInt(), keySlot(k["name"].toString().toStdString()));
  QVERIFY(!k["node"].toString().isEmpty());
}

void RatelabCliClusterTest::badClusterInputExitsTwo_data() {
  QTest::addColumn<QStringList>("args");
  QTest::addColumn<QString>("message");
  QTest::newRow("cluster url with db") << QStringList{"keys", "--redis", "redis+cluster://127.0.0.1:7000/2"}
                                       << "Redis Cluster has database 0 only";
  QTest::newRow("failover without a private cluster")
      << QStringList{"run", "--backend", "redis-lua", "--failover", "break@100,kill@200,promote@300", "--redis", "URL"}
      << "--failover needs --redis cluster";
  QTest::newRow("failover times") << QStringList{"run", "--backend", "redis-lua", "--failover", "break@300,kill@200,promote@400"}
                                  << "times must increase";
  QTest::newRow("wait without lua") << QStringList{"run", "--backend", "redis-watch", "--wait-replicas", "1"}
                                    << "--wait-replicas needs --backend redis-lua";
  QTest::newRow("single node as cluster") << QStringList{"keys", "--redis", "SINGLE"} << "is not in cluster mode";
  QTest::newRow("cluster action") << QStringList{"cluster", "down"} << "expected the action 'up'";
}

void RatelabCliClusterTest::badClusterInputExitsTwo() {
  QFETCH(QStringList, args);
  QFETCH(QString, message);
  for (QString& a : args) {
    if (a == "URL") a = url_;
    if (a == "SINGLE") a = QString("redis+cluster://127.0.0.1:%1").arg(single_->endpoint().port);
  }
  const Cli c = cli(args);
  QCOMPARE(c.exitCode, 2);
  QVERIFY2(c.err.contains(message.toUtf8()), c.err.constData());
  QCOMPARE(c.err.count('\n'), 1);
}

void RatelabCliClusterTest::cleanupTestCase() {
  up_.terminate();  // SIGTERM: the nodes stop and their dirs go
  QVERIFY(up_.waitForFinished(10'000));
  QCOMPARE(up_.exitCode(), 128 + SIGTERM);
  for (const auto& d : dirs_) QVERIFY2(!QFileInfo::exists(QString::fromStdString(d)), d.c_str());
}

QTEST_GUILESS_MAIN(RatelabCliClusterTest)
#include "test_ratelab_cli_cluster.moc"
