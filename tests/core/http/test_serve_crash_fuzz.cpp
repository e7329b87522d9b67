// Crash-fuzz of a live `ratelab-cli serve` (builtin front + 2 replicas): a
// few thousand random and hostile request lines and header sets (huge values,
// NULs, bad methods and framing, hostile x-ratelab-* and identity headers),
// clients that vanish mid-request and slowloris connections, sent to the
// front and straight to the replicas. After every batch the process must
// still run and answer a well-formed request; at the end it stops cleanly.
// (The libFuzzer target of the parser itself lives in tests/fuzz.)

#include <QtTest>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <random>
#include <thread>

#include "http_test_support.hpp"

using namespace rl::test;

namespace {


int connectTo(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<std::uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd >= 0 && ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0) return fd;
  if (fd >= 0) ::close(fd);
  return -1;
}

// Sends `bytes`, reads what comes back for at most `waitMs`, then closes (or resets, when `vanish`).
void hit(int port, const std::string& bytes, int waitMs, bool vanish) {
  const int fd = connectTo(port);
  if (fd < 0) return;
  std::size_t sent = 0;
  while (sent < bytes.size()) {
    const auto n = ::send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n <= 0) break;
    sent += static_cast<std::size_t>(n);
  }
  if (vanish) {
    linger l{1, 0};  // RST, not FIN
    ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof l);
  } else {
    char buf[4096];
    pollfd p{fd, POLLIN, 0};
    while (::poll(&p, 1, waitMs) > 0 && ::recv(fd, buf, sizeof buf, 0) > 0) {}
  }
  ::close(fd);
}

// One hostile request from the seeded generator.
std::string hostileRequest(std::mt19937& rng) {
  auto pick = [&](auto const& list) { return std::string(list[rng() % std::size(list)]); };
  auto blob = [&](std::size_t n, bool binary) {
    std::string s(n, 'a');
    for (auto& c : s) c = binary ? static_cast<char>(rng() & 0xff) : static_cast<char>(0x21 + rng() % 94);
    return s;
  };
  static const char* const kMethods[] = {"GET", "POST", "HEAD", "PUT", "DELETE", "OPTIONS", "TRACE", "CONNECT",
                                         "G\0T", "GET GET", "", "\xff\xfe", "get", "PRI"};
  static const char* const kTargets[] = {"/ping", "*", "http://x/ping", "/%00", "/../../etc/passwd", "",
                                         "/ping?x=\xff", "ping", "/\r", "//////"};
  static const char* const kVersions[] = {"HTTP/1.1", "HTTP/1.0", "HTTP/2.0", "HTTP/1.9", "HTTP/1", "http/1.1",
                                          "HTTP/1.1 extra", "", "HTTP/0.9"};
  static const char* const kNames[] = {"x-api-key", "x-ratelab-algorithm", "x-ratelab-cost", "x-ratelab-no-wait",
                                       "X-Forwarded-For", "X-RateLab-Front", "Content-Length", "Transfer-Encoding",
                                       "Expect", "Connection", "Host", "Bad Name", "\xff", ""};
  static const char* const kValues[] = {"gcra", "token_bucket", "1000000", "-1", "0", "1e300", "9223372036854775808",
                                        "100-continue", "close", "chunked", "1, 2", "127.0.0.1", "::1, evil",
                                        "\xc3", "a\tb", "\x7f", "10"};
  std::string r = pick(kMethods) + " " + (rng() % 10 == 0 ? "/" + blob(rng() % 20'000, false) : pick(kTargets)) +
                  " " + pick(kVersions) + (rng() % 20 == 0 ? "\n" : "\r\n");
  const int headers = rng() % 8 == 0 ? static_cast<int>(rng() % 300) : static_cast<int>(rng() % 8);
  for (int i = 0; i < headers; ++i) {
    std::string value = rng() % 6 == 0 ? blob(rng() % (rng() % 4 == 0 ? 20'000 : 300), rng() % 3 == 0) : pick(kValues);
    if (rng() % 15 == 0) value.insert(value.size() / 2, 1, '\0');
    r += pick(kNames) + (rng() % 10 == 0 ? ":" : ": ") + value + (rng() % 25 == 0 ? "\n" : "\r\n");
  }
  if (rng() % 4 != 0) r += "\r\n";
  if (rng() % 3 == 0) r += blob(rng() % 2000, true);  // a body, or the next (garbage) request
  if (rng() % 30 == 0) r = blob(rng() % 30'000, true);  // pure noise
  return r;
}

bool answersWellFormed(int port) {
  QTcpSocket s;
  s.connectToHost("127.0.0.1", static_cast<quint16>(port));
  if (!s.waitForConnected(5'000)) return false;
  s.write("GET /ping HTTP/1.1\r\nHost: a\r\nx-api-key: probe\r\nConnection: close\r\n\r\n");
  QByteArray got;
  while (s.waitForReadyRead(5'000)) got += s.readAll();
  return got.startsWith("HTTP/1.1 200") || got.startsWith("HTTP/1.1 429");
}

}  // namespace

class ServeCrashFuzzTest : public QObject {
  Q_OBJECT
 private slots:
  void survivesHostileTraffic();
};

void ServeCrashFuzzTest::survivesHostileTraffic() {
  QProcess serve;
  serve.start(cliPath(), {"serve", "--front", "builtin", "--replicas", "2", "--algorithm", "leaky_bucket", "--limit",
                          "50", "--refill-rate", "1000", "--allow-client-overrides", "--header-timeout-ms", "500",
                          "--max-connections", "300"});
  QVERIFY(serve.waitForStarted(10'000));
  QByteArray seen;
  const auto front = waitForLine(serve, "front ", seen);
  QVERIFY2(!front.isEmpty(), seen.constData());
  std::vector<int> ports{QUrl(QString::fromUtf8(front)).port()};
  for (int i = 0; i < 2; ++i)
    ports.push_back(QUrl(QString::fromUtf8(waitForLine(serve, "replica " + QByteArray::number(i) + " ", seen))).port());
  QVERIFY(ports[1] > 0 && ports[2] > 0);

  // Slowloris in the background: connections that trickle a byte at a time.
  std::atomic<bool> stop{false};
  std::thread slowloris([&] {
    std::vector<int> fds;
    for (int i = 0; i < 40; ++i) fds.push_back(connectTo(ports[static_cast<std::size_t>(i) % ports.size()]));
    const std::string trickle = "GET /ping HTTP/1.1\r\nHost: a\r\nX-Slow: ";
    for (std::size_t at = 0; !stop.load(); ++at) {
      for (int& fd : fds)
        if (fd >= 0 && ::send(fd, &trickle[at % trickle.size()], 1, MSG_NOSIGNAL | MSG_DONTWAIT) < 0) fd = -1;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    for (int fd : fds)
      if (fd >= 0) ::close(fd);
  });

  constexpr int kBatches = 12, kPerBatch = 250, kThreads = 4;
  int sent = 0;
  for (int batch = 0; batch < kBatches; ++batch) {
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        std::mt19937 rng(static_cast<unsigned>(batch * 1000 + t));
        for (int i = 0; i < kPerBatch / kThreads; ++i) {
          const int port = ports[rng() % ports.size()];
          hit(port, hostileRequest(rng), rng() % 5 == 0 ? 0 : 30, rng() % 5 == 0);
        }
      });
    }
    for (auto& t : threads) t.join();
    sent += kPerBatch;
    QVERIFY2(serve.state() == QProcess::Running, qPrintable(QString("serve died after %1 inputs: %2")
                                                              .arg(sent).arg(QString(serve.readAllStandardError()))));
    for (const int port : ports) QVERIFY2(answersWellFormed(port), qPrintable(QString("port %1 after %2 inputs").arg(port).arg(sent)));
  }
  stop = true;
  slowloris.join();
  qInfo("%d hostile inputs plus 40 slowloris connections: still serving", sent);
  ::kill(static_cast<pid_t>(serve.processId()), SIGTERM);
  QVERIFY(serve.waitForFinished(10'000));
  QCOMPARE(serve.exitStatus(), QProcess::NormalExit);
  QCOMPARE(serve.exitCode(), 0);
}

QTEST_GUILESS_MAIN(ServeCrashFuzzTest)
#include "test_serve_crash_fuzz.moc"
