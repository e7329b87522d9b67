// What HttpClient accepts from ANY server (http/client_response.hpp): a table
// of response bytes -> state, status, body, keep-alive; then HttpClient against
// a hostile loopback server of this test (a thread writing canned bytes):
// dripped bytes, an endless head, a huge chunk, a redirect it must not follow.

#include <QtTest>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "http/client_response.hpp"
#include "http/http_client.hpp"

using namespace rl;

namespace {

// One connection's worth of canned bytes, written in `pieces` with `gapMs` between them.
class CannedServer {
 public:
  CannedServer(std::vector<std::string> pieces, int gapMs) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a);
    ::listen(fd_, 4);
    socklen_t len = sizeof a;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
    thread_ = std::thread([this, pieces = std::move(pieces), gapMs] {
      const int c = ::accept(fd_, nullptr, nullptr);
      if (c < 0) return;
      char buf[4096];
      (void)::recv(c, buf, sizeof buf, 0);  // the request
      for (const auto& p : pieces) {
        if (stop_.load()) break;
        if (::send(c, p.data(), p.size(), MSG_NOSIGNAL) < 0) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(gapMs));
      }
      ::close(c);
    });
  }
  ~CannedServer() {
    stop_.store(true);
    ::shutdown(fd_, SHUT_RDWR);
    ::close(fd_);
    thread_.join();
  }
  HttpTarget target() const { return HttpTarget{"127.0.0.1", port_, "/", false}; }

 private:
  int fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

HttpRequest get() { return HttpRequest{"GET", "/", 1, {}, {}}; }

}  // namespace

class ClientResponseTest : public QObject {
  Q_OBJECT
 private slots:
  void parses_data();
  void parses();
  void drippedAnswerTimesOut();
  void endlessHeadIsRefused();
  void hugeChunkIsRefused();
  void redirectIsReturnedNotFollowed();
  void closeDelimitedBodyAfterContinue();
};

void ClientResponseTest::parses_data() {
  QTest::addColumn<QByteArray>("bytes");
  QTest::addColumn<bool>("head");
  QTest::addColumn<bool>("eof");
  QTest::addColumn<int>("state");
  QTest::addColumn<int>("status");
  QTest::addColumn<QByteArray>("body");
  QTest::addColumn<bool>("keepAlive");
  const int done = int(ParseState::Complete), more = int(ParseState::NeedMore), failed = int(ParseState::Failed);
  QTest::newRow("length") << QByteArray("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok") << false << false << done << 200
                          << QByteArray("ok") << true;
  QTest::newRow("chunked, extension, trailer")
      << QByteArray("HTTP/1.1 429 Too Many Requests\r\nTransfer-Encoding: chunked\r\n\r\n"
                    "3;x=y\r\nabc\r\n2\r\nde\r\n0\r\nX-Trailer: 1\r\n\r\n")
      << false << false << done << 429 << QByteArray("abcde") << true;
  QTest::newRow("chunked, no trailer") << QByteArray("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\na\r\n0\r\n\r\n")
                                       << false << false << done << 200 << QByteArray("a") << true;
  QTest::newRow("chunked, not all there") << QByteArray("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab")
                                          << false << false << more << 0 << QByteArray() << true;
  QTest::newRow("chunked, cut by close") << QByteArray("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab")
                                         << false << true << failed << 502 << QByteArray() << true;
  QTest::newRow("chunk size not hex") << QByteArray("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n")
                                      << false << false << failed << 502 << QByteArray() << true;
  QTest::newRow("chunk over the body limit") << QByteArray("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nfffffff\r\n")
                                             << false << false << failed << 502 << QByteArray() << true;
  QTest::newRow("gzip coding refused") << QByteArray("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n") << false << false
                                       << failed << 502 << QByteArray() << true;
  QTest::newRow("HTTP/1.0 close-delimited") << QByteArray("HTTP/1.0 200 OK\r\n\r\nall of it") << false << true << done << 200
                                            << QByteArray("all of it") << false;
  QTest::newRow("close-delimited, still open") << QByteArray("HTTP/1.1 200 OK\r\n\r\npart") << false << false << more << 0
                                               << QByteArray() << true;
  QTest::newRow("HTTP/1.0 keep-alive") << QByteArray("HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n")
                                       << false << false << done << 200 << QByteArray() << true;
  QTest::newRow("connection close") << QByteArray("HTTP/1.1 429 x\r\nConnection: close\r\nContent-Length: 1\r\n\r\n!")
                                    << false << false << done << 429 << QByteArray("!") << false;
  QTest::newRow("100 then 429") << QByteArray("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n"
                                              "HTTP/1.1 429 Too Many Requests\r\nContent-Length: 0\r\n\r\n")
                                << false << false << done << 429 << QByteArray() << true;
  QTest::newRow("101 refused") << QByteArray("HTTP/1.1 101 Switching Protocols\r\n\r\n") << false << false << failed << 502
                               << QByteArray() << true;
  QTest::newRow("no reason phrase") << QByteArray("HTTP/1.1 204\r\n\r\n") << false << false << done << 204 << QByteArray()
                                    << true;
  QTest::newRow("HEAD: no body") << QByteArray("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n") << true << false
                                 << done << 200 << QByteArray() << true;
  QTest::newRow("head over the limit") << "HTTP/1.1 200 OK\r\nX: " + QByteArray(70'000, 'a') << false << false << failed
                                       << 502 << QByteArray() << true;
  QTest::newRow("closed mid-head") << QByteArray("HTTP/1.1 200 OK\r\nX-") << false << true << failed << 502 << QByteArray()
                                   << true;
}

void ClientResponseTest::parses() {
  QFETCH(QByteArray, bytes);
  QFETCH(bool, head);
  QFETCH(bool, eof);
  QFETCH(int, state);
  QFETCH(int, status);
  QFETCH(QByteArray, body);
  QFETCH(bool, keepAlive);
  HttpLimits limits;
  limits.maxHeaderBytes = 64 * 1024;
  limits.maxBodyBytes = 1 << 20;
  HttpResponse r;
  const auto o = parseClientResponse(std::string_view(bytes.constData(), std::size_t(bytes.size())), limits, head, eof, r);
  QCOMPARE(int(o.state), state);
  if (o.state == ParseState::Failed) {
    QCOMPARE(o.status, status);
    QVERIFY2(o.error.rfind("upstream ", 0) == 0, o.error.c_str());
    return;
  }
  if (o.state != ParseState::Complete) return;
  QCOMPARE(o.consumed, std::size_t(bytes.size()));
  QCOMPARE(r.status, status);
  QCOMPARE(QByteArray::fromStdString(r.body), body);
  QCOMPARE(r.keepAlive, keepAlive);
  QVERIFY(findHeader(r.headers, "transfer-encoding") == nullptr);
}

void ClientResponseTest::drippedAnswerTimesOut() {
  // One byte every 100 ms: the 500 ms bound is for the whole answer, not per byte.
  const std::string answer = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
  std::vector<std::string> pieces;
  for (char c : answer) pieces.emplace_back(1, c);
  CannedServer server(pieces, 100);
  HttpClient client(server.target(), Micros{500'000});
  const auto t0 = std::chrono::steady_clock::now();
  const auto r = client.send(get());
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
  QVERIFY(!r);
  QVERIFY2(r.error().message.find("no complete answer within 500 ms") != std::string::npos, r.error().message.c_str());
  QVERIFY2(ms < 1'500, qPrintable(QString::number(ms)));
}

void ClientResponseTest::endlessHeadIsRefused() {
  std::vector<std::string> pieces{"HTTP/1.1 200 OK\r\n"};
  for (int i = 0; i < 200; ++i) pieces.push_back("X-Pad-" + std::to_string(i) + ": " + std::string(500, 'p') + "\r\n");
  CannedServer server(pieces, 0);
  HttpClient client(server.target(), Micros{3'000'000});
  const auto r = client.send(get());
  QVERIFY(!r);
  QCOMPARE(r.error().code, ErrorCode::Protocol);
  QVERIFY2(r.error().message.find("header section too large") != std::string::npos ||
               r.error().message.find("too many header fields") != std::string::npos,
           r.error().message.c_str());
}

void ClientResponseTest::hugeChunkIsRefused() {
  CannedServer server({"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n200000\r\n", std::string(4096, 'x')}, 0);
  HttpClient client(server.target(), Micros{3'000'000});
  const auto r = client.send(get());
  QVERIFY(!r);
  QVERIFY2(r.error().message.find("body too large: at most 1048576 bytes") != std::string::npos, r.error().message.c_str());
}

void ClientResponseTest::redirectIsReturnedNotFollowed() {
  CannedServer server({"HTTP/1.1 302 Found\r\nLocation: http://example.invalid/\r\nContent-Length: 0\r\n\r\n"}, 0);
  HttpClient client(server.target(), Micros{3'000'000});
  const auto r = client.send(get());
  QVERIFY2(r, r ? "" : r.error().message.c_str());
  QCOMPARE(r->status, 302);
  QCOMPARE(*findHeader(r->headers, "location"), std::string("http://example.invalid/"));
}

void ClientResponseTest::closeDelimitedBodyAfterContinue() {
  CannedServer server({"HTTP/1.1 100 Continue\r\n\r\n", "HTTP/1.0 429 Too Many Requests\r\nRetry-After: 1\r\n\r\n", "slow down"}, 20);
  HttpClient client(server.target(), Micros{3'000'000});
  const auto r = client.send(get());
  QVERIFY2(r, r ? "" : r.error().message.c_str());
  QCOMPARE(r->status, 429);
  QCOMPARE(r->body, std::string("slow down"));
  QVERIFY(!r->keepAlive);
}

QTEST_GUILESS_MAIN(ClientResponseTest)
#include "test_client_response.moc"
