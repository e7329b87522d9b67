// Both fronts, builtin and Debian's nginx, in front of redis-lua replicas:
// the curl check (ten 200, ten 429: token_bucket capacity 10, refill 1/s),
// the identity the replicas see through each, and nginx's lifetime: its
// config (the front's secret) unreadable by a process running as nobody, and
// its dir gone when its owner is SIGTERMed (as the window is).

#include <QtTest>

#include <pwd.h>
#include <signal.h>
#include <sys/stat.h>

#include <filesystem>
#include <iostream>

#include "http/nginx_front.hpp"
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

NginxFrontOptions lonelyFront() {
  NginxFrontOptions o;
  o.replicaPorts = {9};  // never asked: these checks send no request
  o.secret = "front-secret-under-test";
  return o;
}

// RL_NGINX_OWNER=1: this binary is an owner as the window is (signal cleanup
// installed, an nginx front started); prints "<dir> <nginx pid>", then waits for a signal.
int runAsNginxOwner() {
  installServerSignalCleanup();
  auto front = NginxFront::start(lonelyFront());
  if (!front) {
    std::cout << "error " << front.error().message << std::endl;
    return 1;
  }
  std::cout << (*front)->dir() << ' ' << (*front)->pid() << std::endl;
  for (;;) ::pause();
}

}  // namespace

class ServeFrontsTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase();
  void curlCheck_data();
  void curlCheck();
  void nginxIdentityAndLifetime();
  void nginxConfigIsNotReadableByNobody();
  void sigtermedOwnerLeavesNoNginxDir();

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

void ServeFrontsTest::nginxConfigIsNotReadableByNobody() {
  if (::geteuid() != 0) QSKIP("nginx drops to its own user id only when started by root (CI runs as root)");
  auto front = NginxFront::start(lonelyFront());
  QVERIFY2(front, front ? "" : front.error().message.c_str());
  const std::string conf = (*front)->dir() + "/nginx.conf";
  struct stat confStat {}, dirStat {};
  QCOMPARE(::stat(conf.c_str(), &confStat), 0);
  QCOMPARE(::stat((*front)->dir().c_str(), &dirStat), 0);
  QCOMPARE(confStat.st_mode & 0777, 0600u);
  QCOMPARE(dirStat.st_mode & 0777, 0700u);
  const passwd* nobody = ::getpwnam("nobody");
  QVERIFY(nobody);
  QVERIFY(confStat.st_uid != 0 && confStat.st_uid != nobody->pw_uid);
  QVERIFY2(confStat.st_uid >= 61184 && confStat.st_uid <= 65519, qPrintable(QString::number(confStat.st_uid)));
  QVERIFY(::getpwuid(confStat.st_uid) == nullptr);
  // nginx itself runs as that id.
  QFile status(QString("/proc/%1/status").arg((*front)->pid()));
  QVERIFY(status.open(QIODevice::ReadOnly));
  QVERIFY2(status.readAll().contains(QByteArray("\nUid:\t") + QByteArray::number(confStat.st_uid) + '\t'),
           "nginx runs as the id that owns its config");
  // A process running as nobody cannot read the secret.
  QProcess cat;
  cat.start("/usr/bin/setpriv", {"--reuid=nobody", "--regid=nogroup", "--clear-groups", "/bin/cat",
                                 QString::fromStdString(conf)});
  QVERIFY(cat.waitForFinished(10'000));
  QVERIFY(cat.exitCode() != 0);
  QVERIFY2(!cat.readAllStandardOutput().contains("front-secret-under-test"), "nobody read the secret");
  QVERIFY2(cat.readAllStandardError().contains("Permission denied"), "cat failed for another reason");
  // The front answers (nginx could read its own config): a request gets a 502 from nginx, not silence.
  QVERIFY(curlInclude((*front)->url() + "/ping", "x").startsWith("HTTP/1.1 502"));
}

void ServeFrontsTest::sigtermedOwnerLeavesNoNginxDir() {
  QProcess owner;
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  env.insert("RL_NGINX_OWNER", "1");
  owner.setProcessEnvironment(env);
  owner.start(QCoreApplication::applicationFilePath(), {});
  QVERIFY(owner.waitForStarted(10'000));
  QTRY_VERIFY_WITH_TIMEOUT(owner.canReadLine() || owner.state() == QProcess::NotRunning, 20'000);
  const QStringList started = QString::fromUtf8(owner.readLine()).trimmed().split(' ');
  QCOMPARE(started.size(), 2);
  QVERIFY2(started[0] != "error", qPrintable(started.join(' ')));
  const std::string dir = started[0].toStdString();
  const int nginxPid = started[1].toInt();
  QVERIFY(std::filesystem::exists(dir + "/nginx.conf"));
  QVERIFY(processAlive(nginxPid));
  ::kill(static_cast<pid_t>(owner.processId()), SIGTERM);
  QVERIFY(owner.waitForFinished(10'000));
  QCOMPARE(owner.exitCode(), 128 + SIGTERM);
  QVERIFY2(!std::filesystem::exists(dir), dir.c_str());  // was left behind before
  QTRY_VERIFY_WITH_TIMEOUT(!processAlive(nginxPid), 5'000);
}

int main(int argc, char** argv) {
  if (qEnvironmentVariableIsSet("RL_NGINX_OWNER")) return runAsNginxOwner();
  QCoreApplication app(argc, argv);
  ServeFrontsTest test;
  return QTest::qExec(&test, argc, argv);
}
#include "test_serve_fronts.moc"
