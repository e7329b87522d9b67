// Issue 25, item 8: one client must not use up a served cluster's connections.
// Real sockets from chosen loopback addresses (127.0.0.2 is another client to
// the server), a real served cluster (builtin front and Debian's nginx), and
// ratelab-cli serve under a real open-file limit (prlimit).

#include <QtTest>

#include <arpa/inet.h>
#include <csignal>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "http/serve_cluster.hpp"
#include "http/serve_descriptors.hpp"
#include "http_test_support.hpp"

using namespace rl;
using namespace rl::test;

namespace {

int portOf(const std::string& url) { return QUrl(QString::fromStdString(url)).port(); }

/// Connections the test holds open: raw sockets from one loopback source address.
class HeldSockets {
 public:
  HeldSockets() = default;
  HeldSockets(const HeldSockets&) = delete;
  HeldSockets& operator=(const HeldSockets&) = delete;
  ~HeldSockets() { closeAll(); }

  /// Opens `n` connections to 127.0.0.1:`port` from `source`, each sending `bytes`.
  bool open(int port, const char* source, int n, const QByteArray& bytes = {}) {
    for (int i = 0; i < n; ++i) {
      const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
      if (fd < 0) return false;
      sockaddr_in from{};
      from.sin_family = AF_INET;
      ::inet_pton(AF_INET, source, &from.sin_addr);
      sockaddr_in to{};
      to.sin_family = AF_INET;
      to.sin_port = htons(static_cast<std::uint16_t>(port));
      ::inet_pton(AF_INET, "127.0.0.1", &to.sin_addr);
      if (::bind(fd, reinterpret_cast<sockaddr*>(&from), sizeof from) != 0 ||
          ::connect(fd, reinterpret_cast<sockaddr*>(&to), sizeof to) != 0) {
        ::close(fd);
        return false;
      }
      if (!bytes.isEmpty() && ::send(fd, bytes.constData(), static_cast<std::size_t>(bytes.size()), MSG_NOSIGNAL) < 0) {
        ::close(fd);
        return false;
      }
      fds_.push_back(fd);
    }
    return true;
  }
  void closeAll() {
    for (const int fd : fds_) ::close(fd);
    fds_.clear();
  }

 private:
  std::vector<int> fds_;
};

/// A request started and never finished: the slowloris client.
const QByteArray kSlowloris = "GET /ping HTTP/1.1\r\nHost: a\r\nX-Slow: ";

/// The status line of one curl from 127.0.0.1 ("200"), or "000" when it got no answer.
QByteArray curlStatus(const std::string& url, const char* key = "legit") {
  QProcess p;
  p.start("/usr/bin/curl", {"-s", "-m", "5", "-o", "/dev/null", "-w", "%{http_code}", "-H",
                            QString("x-api-key: ") + key, QString::fromStdString(url + "/ping")});
  p.waitForFinished(15'000);
  return p.readAllStandardOutput();
}

/// Seconds of CPU the process `pid` has used (user + system).
double cpuSeconds(qint64 pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::istringstream fields(text.substr(text.rfind(')') + 2));  // after "pid (comm) "
  std::string f;
  long ticks = 0;
  for (int i = 3; i <= 15 && fields >> f; ++i)
    if (i == 14 || i == 15) ticks += std::stol(f);
  return static_cast<double>(ticks) / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

ServeOptions memoryOptions(FrontKind front) {
  ServeOptions o;
  o.algorithm = Algorithm::TokenBucket;
  o.quota = Quota::perSecond(100).withBurst(1000);
  o.front = front;
  return o;
}

}  // namespace

class ServeConnectionsTest : public QObject {
  Q_OBJECT
 private slots:
  void slowlorisFromOneAddress_data();
  void slowlorisFromOneAddress();
  void idleConnectionsMakeRoom();
  void requestLineTimeoutIsShort();
  void replicaKeepsTheFrontsShare();
  void frontIsNotCappedPerAddress();
  void outOfDescriptorsBacksOff();
  void defaultCapsFitTheOpenFileLimit();
};

void ServeConnectionsTest::slowlorisFromOneAddress_data() {
  QTest::addColumn<int>("front");
  QTest::newRow("builtin front") << int(FrontKind::Builtin);
  if (findNginx()) QTest::newRow("nginx front") << int(FrontKind::Nginx);
}

void ServeConnectionsTest::slowlorisFromOneAddress() {
  QFETCH(int, front);
  // The review: 600 slowloris connections made every other client wait about 10 s (503;
  // the nginx front: EOF).
  auto cluster = ServeCluster::start(memoryOptions(static_cast<FrontKind>(front)), memoryFactory());
  QVERIFY2(cluster.ok(), cluster.ok() ? "" : cluster.error().message.c_str());
  const auto url = (*cluster)->frontUrl();
  HeldSockets slow;
  QVERIFY(slow.open(portOf(url), "127.0.0.2", 600, kSlowloris));
  if (front == int(FrontKind::Builtin)) {
    // 64 are held (the default per-address cap); every other one was answered 503 at once.
    QTRY_COMPARE_WITH_TIMEOUT((*cluster)->tally().refusedPerAddress, 600 - 64, 10'000);
    QCOMPARE((*cluster)->tally().openConnections, 64);
  }
  // Another client is served while they are all still there.
  QCOMPARE(curlStatus(url), QByteArray("200"));
  QCOMPARE(curlStatus(url, "other"), QByteArray("200"));
}

void ServeConnectionsTest::idleConnectionsMakeRoom() {
  // 300 sockets that send nothing, spread so no address is over its cap, at a front of 100.
  auto o = memoryOptions(FrontKind::Builtin);
  o.limits.maxConnections = 100;
  o.fitConnections = false;
  o.limits.requestLineTimeout = Micros{60'000'000};  // only room-making closes them here
  auto cluster = ServeCluster::start(o, memoryFactory());
  QVERIFY(cluster.ok());
  const auto url = (*cluster)->frontUrl();
  HeldSockets idle;
  for (const char* source : {"127.0.0.3", "127.0.0.4", "127.0.0.5", "127.0.0.6", "127.0.0.7"})
    QVERIFY(idle.open(portOf(url), source, 60));
  // Each one over 100 closed the one idle longest: exactly 200, none refused.
  QTRY_COMPARE_WITH_TIMEOUT((*cluster)->tally().reclaimedConnections, 200, 10'000);
  QTRY_COMPARE_WITH_TIMEOUT((*cluster)->tally().openConnections, 100, 10'000);
  QCOMPARE((*cluster)->tally().refusedConnections, 0);
  QCOMPARE(curlStatus(url), QByteArray("200"));
  QCOMPARE((*cluster)->tally().reclaimedConnections, 201);
  QCOMPARE((*cluster)->tally().admitted, 1);
}

void ServeConnectionsTest::requestLineTimeoutIsShort() {
  auto o = memoryOptions(FrontKind::Builtin);
  o.limits.requestLineTimeout = Micros{400'000};
  o.limits.headerTimeout = Micros{60'000'000};
  o.limits.idleTimeout = Micros{60'000'000};
  auto cluster = ServeCluster::start(o, memoryFactory());
  QVERIFY(cluster.ok());
  const int port = portOf((*cluster)->frontUrl());
  HeldSockets silent;
  QVERIFY(silent.open(port, "127.0.0.8", 20));
  QTRY_COMPARE_WITH_TIMEOUT((*cluster)->tally().openConnections, 20, 5'000);
  // Not the 60 s timeouts: the request line's 400 ms.
  QTRY_COMPARE_WITH_TIMEOUT((*cluster)->tally().openConnections, 0, 5'000);
  // Half a request line: 408 naming the request-line timeout.
  const auto half = rawExchange(port, "GET /pi", 5'000);
  QVERIFY2(half.received.startsWith("HTTP/1.1 408"), half.received.constData());
  QVERIFY2(half.received.contains("request line not received within 400 ms"), half.received.constData());
  // A whole request line, then headers still coming: the 60 s header timeout applies instead.
  QTcpSocket started;
  started.connectToHost("127.0.0.1", static_cast<quint16>(port));
  QVERIFY(started.waitForConnected(5'000));
  started.write("GET /ping HTTP/1.1\r\nHost: a\r\n");
  QVERIFY(started.waitForBytesWritten(5'000));
  QTest::qWait(1'000);  // past the request-line timeout: nothing may have arrived
  QCOMPARE(started.state(), QAbstractSocket::ConnectedState);
  started.write("x-api-key: late\r\n\r\n");
  QVERIFY(started.waitForReadyRead(5'000));
  QVERIFY(started.readAll().startsWith("HTTP/1.1 200"));
}

void ServeConnectionsTest::replicaKeepsTheFrontsShare() {
  // The review: connections straight to a replica used up the front's upstream share.
  auto o = memoryOptions(FrontKind::Builtin);
  o.limits.maxConnections = 20;
  o.fitConnections = false;
  o.limits.maxPerAddress = 5;
  auto cluster = ServeCluster::start(o, memoryFactory());
  QVERIFY(cluster.ok());
  const auto url = (*cluster)->frontUrl();
  const int replicaPort = portOf((*cluster)->replicaUrls().front());
  // 300 idle direct connections: a replica's cap is 20 + 32; the rest made room.
  HeldSockets direct;
  QVERIFY(direct.open(replicaPort, "127.0.0.9", 300));
  QTRY_COMPARE_WITH_TIMEOUT((*cluster)->tally().reclaimedConnections, 300 - (20 + kDirectPerReplica), 10'000);
  // The front still reaches its replica (its connection closes a direct one, never its own).
  for (int i = 0; i < 10; ++i) QCOMPARE(curlStatus(url, "through-front"), QByteArray("200"));
  QCOMPARE((*cluster)->tally().upstreamErrors, 0);
  // Direct requests are capped per address (the front's, from 127.0.0.1 too, are not).
  direct.closeAll();
  int ok = 0, refused = 0;
  std::vector<std::unique_ptr<QTcpSocket>> requests;
  for (int i = 0; i < 6; ++i) {
    requests.push_back(std::make_unique<QTcpSocket>());
    requests.back()->bind(QHostAddress("127.0.0.10"));
    requests.back()->connectToHost("127.0.0.1", static_cast<quint16>(replicaPort));
    QVERIFY(requests.back()->waitForConnected(5'000));
    requests.back()->write("GET /ping HTTP/1.1\r\nHost: a\r\n\r\n");
    QVERIFY(requests.back()->waitForReadyRead(5'000));
    const auto answer = requests.back()->readAll();
    if (answer.startsWith("HTTP/1.1 200")) ++ok;
    if (answer.startsWith("HTTP/1.1 503") && answer.contains("from your address (most 5)")) ++refused;
  }
  QCOMPARE(ok, 5);
  QCOMPARE(refused, 1);
  for (int i = 0; i < 10; ++i) QCOMPARE(curlStatus(url, "through-front"), QByteArray("200"));
}

void ServeConnectionsTest::frontIsNotCappedPerAddress() {
  // Every front connection comes from 127.0.0.1 too: the replica must not count them. A
  // leaky bucket holds each answer (50 ms apart), so 12 requests hold 12 upstream
  // connections at once, over the replica's per-address cap of 5.
  auto o = memoryOptions(FrontKind::Builtin);
  o.algorithm = Algorithm::LeakyBucket;
  o.quota = Quota::perSecond(20).withBurst(100);
  o.limits.maxPerAddress = 5;
  auto cluster = ServeCluster::start(o, memoryFactory());
  QVERIFY(cluster.ok());
  const int port = portOf((*cluster)->frontUrl());
  std::vector<std::unique_ptr<QTcpSocket>> clients;
  for (int i = 0; i < 12; ++i) {  // one per address: the front's own cap is not what is tested
    clients.push_back(std::make_unique<QTcpSocket>());
    QVERIFY(clients.back()->bind(QHostAddress(QString("127.0.2.%1").arg(i + 1))));
    clients.back()->connectToHost("127.0.0.1", static_cast<quint16>(port));
    QVERIFY(clients.back()->waitForConnected(5'000));
    clients.back()->write("GET /ping HTTP/1.1\r\nHost: a\r\nx-api-key: shaped\r\n\r\n");
    QVERIFY(clients.back()->waitForBytesWritten(5'000));
  }
  int ok = 0;
  for (auto& c : clients) {
    QByteArray answer;
    for (int waited = 0; !answer.contains("\r\n\r\n") && waited < 100; ++waited)
      if (c->waitForReadyRead(100)) answer += c->readAll();
    if (answer.startsWith("HTTP/1.1 200")) ++ok;
    else qWarning("answer: %s", answer.left(200).constData());
  }
  QCOMPARE(ok, 12);
  QCOMPARE((*cluster)->tally().refusedConnections, 0);
}

void ServeConnectionsTest::outOfDescriptorsBacksOff() {
  // The review: at an fd limit of 600, 88,802 accept4 calls failing EMFILE in a busy loop.
  QProcess p;
  p.start("/usr/bin/prlimit", {"--nofile=4096:4096", cliPath(), "serve", "--front", "none"});
  QVERIFY(p.waitForStarted(10'000));
  QByteArray seen;
  const auto replica = waitForLine(p, "replica 0 ", seen);
  QVERIFY2(!replica.isEmpty(), seen.constData());
  const auto url = replica.trimmed().toStdString();
  // Fewer descriptors than the connections that come (as if something else used them up).
  QProcess limit;
  limit.start("/usr/bin/prlimit", {"--pid", QString::number(p.processId()), "--nofile=200:200"});
  QVERIFY(limit.waitForFinished(10'000) && limit.exitCode() == 0);
  // 350 slow requests from 7 addresses (each under its cap of 64): none is idle, so none
  // can be closed to make room, and the connections over the limit wait in the backlog.
  HeldSockets held;
  for (const char* source : {"127.0.1.1", "127.0.1.2", "127.0.1.3", "127.0.1.4", "127.0.1.5", "127.0.1.6", "127.0.1.7"})
    QVERIFY(held.open(portOf(url), source, 50, kSlowloris));
  const double before = cpuSeconds(p.processId());
  QTest::qWait(2'000);
  const double spent = cpuSeconds(p.processId()) - before;
  QVERIFY2(spent < 0.5, qPrintable(QString("serve used %1 s of CPU in 2 s while out of descriptors").arg(spent)));
  held.closeAll();  // they leave: the server accepts again by itself
  QCOMPARE(curlStatus(url), QByteArray("200"));
  ::kill(static_cast<pid_t>(p.processId()), SIGINT);
  QVERIFY(p.waitForFinished(10'000));
  seen += p.readAllStandardOutput();
  const auto stopped = seen.mid(seen.indexOf("stopped: "));
  const int at = stopped.indexOf("emfile: ");
  QVERIFY2(at > 0, stopped.constData());
  const int emfile = stopped.mid(at + 8).split(' ').front().toInt();
  QVERIFY2(emfile > 0 && emfile <= 50, stopped.constData());  // back-off: 10 ms doubling to 1 s
}

void ServeConnectionsTest::defaultCapsFitTheOpenFileLimit() {
  // With 1024 descriptors the defaults must fit (serve_descriptors.hpp): the builtin front
  // and one replica, 2F + (F + 32) + 72 <= 1024 gives F = 306; four, 2F + 4(F + 32) + 96
  // gives 133; nginx, its own 2F + 64 + 32 <= 1024 gives 464; no front, 4F + 96 gives 232.
  QCOMPARE(mostConnectionsFitting(FrontKind::Builtin, 1, 64, 1024), 306);
  QCOMPARE(mostConnectionsFitting(FrontKind::Builtin, 4, 256, 1024), 133);
  QCOMPARE(mostConnectionsFitting(FrontKind::Nginx, 1, 64, 1024), 464);
  QCOMPARE(mostConnectionsFitting(FrontKind::None, 4, 64, 1024), 232);
  QProcess p;
  p.start("/usr/bin/prlimit", {"--nofile=1024:1024", cliPath(), "serve", "--front", "builtin", "--replicas", "1"});
  QVERIFY(p.waitForStarted(10'000));
  QByteArray seen;
  const auto line = waitForLine(p, "open files: ", seen);
  QVERIFY2(line.contains("at most 1022 of 1024 (ulimit -n) with 306 connections at the front (lowered from 512 to fit)"),
           seen.constData());
  ::kill(static_cast<pid_t>(p.processId()), SIGINT);
  QVERIFY(p.waitForFinished(10'000));
  // A cap given explicitly that does not fit is refused, naming the most that does.
  QProcess big;
  big.start("/usr/bin/prlimit", {"--nofile=1024:1024", cliPath(), "serve", "--front", "builtin", "--max-connections", "512"});
  QVERIFY(big.waitForFinished(20'000));
  QCOMPARE(big.exitCode(), 2);
  const auto err = big.readAllStandardError();
  QVERIFY2(err.contains("--max-connections 512 needs about 1640 open files") && err.contains("allowed up to 306"),
           err.constData());
}

QTEST_MAIN(ServeConnectionsTest)
#include "test_serve_connections.moc"
