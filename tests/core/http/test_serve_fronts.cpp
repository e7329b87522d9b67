// Both fronts, builtin and Debian's nginx, in front of redis-lua replicas:
// the curl check (ten 200, ten 429: token_bucket capacity 10, refill 1/s),
// the identity the replicas see through each, and nginx's lifetime.

#include <QtTest>

#include <signal.h>

#include "http/serve_cluster.hpp"
#include "http_test_support.hpp"
#include "redis_test_server.hpp"

using namespace rl;
using namespace rl::test;

namespace {

ServeOptions curlCheckOptions(FrontKind front) {
  ServeOptions o;
  o.algorithm = Algorithm::TokenBucket;
  o.quota = Quota::perSecond(1).withBurst(10);
  o.replicas = 4;
  o.front = front;
  return o;
}

bool processAlive(int pid) { return pid > 0 && ::kill(pid, 0) == 0; }

}  // namespace

class ServeFrontsTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase();
  void curlCheck_data();
  void curlCheck();
  void nginxIdentityAndLifetime();

 private:
  std::unique_ptr<RedisTestServer> redis_;
};

void ServeFrontsTest::initTestCase() {
  QVERIFY2(QFile::exists("/usr/bin/curl"), "these tests run the real /usr/bin/curl");
  QVERIFY2(findNginx().has_value(), "these tests run Debian's nginx (scripts/install-deps.sh installs nginx-light)");
  redis_ = std::make_unique<RedisTestServer>();
  RL_REQUIRE_REDIS(*redis_);
}

void ServeFrontsTest::curlCheck_data() {
  QTest::addColumn<int>("front");
  QTest::newRow("builtin") << int(FrontKind::Builtin);
  QTest::newRow("nginx") << int(FrontKind::Nginx);
}

void ServeFrontsTest::curlCheck() {
  QFETCH(int, front);
  DecisionTimes times;
  auto o = curlCheckOptions(static_cast<FrontKind>(front));
  o.observer = times.observer();
  auto cluster = ServeCluster::start(o, redisLuaFactory(redis_->endpoint(), "fronts" + std::to_string(front) + ":"));
  QVERIFY2(cluster.ok(), cluster.ok() ? "" : cluster.error().message.c_str());
  const auto counts = parallelCurl((*cluster)->frontUrl() + "/ping", "curl-check", 20);
  const int ok = counts.count(200) ? counts.at(200) : 0;
  const int limited = counts.count(429) ? counts.at(429) : 0;
  QCOMPARE(ok + limited, 20);
  const auto spread = times.spreadUs();
  if (spread < 900'000) {  // one second of refill could add one token
    QCOMPARE(ok, 10);
    QCOMPARE(limited, 10);
  } else {
    QVERIFY(ok >= 10 && ok <= 11 + spread / 1'000'000);
  }
  QCOMPARE(static_cast<int>(times.at.size()), 20);
  const auto tally = (*cluster)->tally();
  QCOMPARE(tally.perReplica, (std::vector<std::int64_t>{5, 5, 5, 5}));  // both fronts: round-robin
}

void ServeFrontsTest::nginxIdentityAndLifetime() {
  auto o = curlCheckOptions(FrontKind::Nginx);
  o.replicas = 2;
  auto cluster = ServeCluster::start(o, redisLuaFactory(redis_->endpoint(), "nginx-id:"));
  QVERIFY(cluster.ok());
  // nginx's X-Forwarded-For is believed (it carries the run's secret); a client's own values are replaced.
  QProcess p;
  p.start("/usr/bin/curl", {"-s", "-H", "X-Forwarded-For: 203.0.113.9", "-H", "X-RateLab-Front: guess",
                            QString::fromStdString((*cluster)->frontUrl() + "/ping")});
  QVERIFY(p.waitForFinished(30'000));
  const auto body = p.readAllStandardOutput();
  QVERIFY2(body.contains("\"client\":\"ip:127.0.0.1\""), body.constData());
  // Unprivileged: not root, even when the owner is.
  const int pid = (*cluster)->frontPid();
  QVERIFY(processAlive(pid));
  QFile status(QString("/proc/%1/status").arg(pid));
  QVERIFY(status.open(QIODevice::ReadOnly));
  QByteArray uidLine;
  for (const auto& line : status.readAll().split('\n'))
    if (line.startsWith("Uid:")) uidLine = line;
  QVERIFY2(!uidLine.simplified().startsWith("Uid: 0 "), uidLine.constData());
  const std::string url = (*cluster)->frontUrl();
  cluster->reset();
  QVERIFY(!processAlive(pid));
  QVERIFY(!curlInclude(url + "/ping", "gone").startsWith("HTTP/1.1"));  // stopped with the cluster
}

QTEST_GUILESS_MAIN(ServeFrontsTest)
#include "test_serve_fronts.moc"
