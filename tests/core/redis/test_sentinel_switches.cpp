// The +switch-master feed (redis/sentinel/sentinel_switches.hpp): the strict
// reading of an announcement (a table); loopback "Sentinels" that announce a
// switch for this service, for another, and a malformed one, and one that
// floods after SUBSCRIBE (dropped and subscribed again, never read without
// bound); one feed per endpoint while a connection holds it; and a private set
// (3 real Sentinels) whose SENTINEL FAILOVER the feed announces, with the
// address a connection then lands on.

#include <QtTest>

#include <sys/socket.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "redis/redis_connection.hpp"
#include "redis/sentinel/managed_redis_sentinel.hpp"
#include "redis/sentinel/sentinel_switches.hpp"
#include "support/loopback_server.hpp"

using namespace rl;

namespace {
using Clock = std::chrono::steady_clock;

std::string bulk(std::string_view s) { return "$" + std::to_string(s.size()) + "\r\n" + std::string(s) + "\r\n"; }
std::string message(std::string_view payload) { return "*3\r\n" + bulk("message") + bulk("+switch-master") + bulk(payload); }

// A loopback "Sentinel": answers PING and SUBSCRIBE, then sends `after` (then, when `flood`,
// endless bytes) and holds the connection until the client goes. Counts the connections it served.
class FakeSentinel {
 public:
  FakeSentinel(std::string after, bool flood)
      : after_(std::move(after)), flood_(flood), server_([this](int c, const std::atomic<bool>& stopping) {
          ++served_;
          char buf[512];
          if (::recv(c, buf, sizeof buf, 0) <= 0) return;  // PING
          (void)::send(c, "+PONG\r\n", 7, MSG_NOSIGNAL);
          if (::recv(c, buf, sizeof buf, 0) <= 0) return;  // SUBSCRIBE +switch-master
          const std::string confirm = "*3\r\n" + bulk("subscribe") + bulk("+switch-master") + ":1\r\n" + after_;
          (void)::send(c, confirm.data(), confirm.size(), MSG_NOSIGNAL);
          const std::string junk(16 * 1024, 'x');
          while (!stopping && flood_ && ::send(c, junk.data(), junk.size(), MSG_NOSIGNAL) > 0) {}
          while (!stopping && ::recv(c, buf, sizeof buf, 0) > 0) {}
        }) {}
  int port() const { return server_.port(); }
  int served() const { return served_.load(); }
  RedisEndpoint endpoint(const std::string& service) const {
    RedisEndpoint ep;
    ep.sentinelService = service;
    ep.sentinels = {{"127.0.0.1", port()}};
    return ep;
  }

 private:
  std::string after_;
  bool flood_;
  std::atomic<int> served_{0};
  test::LoopbackServer server_;
};

template <typename F>
bool waitFor(F done, std::chrono::milliseconds limit) {
  const auto deadline = Clock::now() + limit;
  while (!done()) {
    if (Clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}
}  // namespace

class SentinelSwitchesTest : public QObject {
  Q_OBJECT
 private slots:
  void readsOnlyTheAnnouncementShape_data();
  void readsOnlyTheAnnouncementShape();
  void countsItsServiceOnly();
  void dropsAFloodingSentinel();
  void oneFeedPerEndpoint();
  void announcesARealFailover();
};

void SentinelSwitchesTest::readsOnlyTheAnnouncementShape_data() {
  QTest::addColumn<QString>("payload");
  QTest::addColumn<QString>("host");  // empty: refused
  QTest::addColumn<int>("port");
  QTest::newRow("switch") << "mymaster 127.0.0.1 6379 127.0.0.2 6380" << "127.0.0.2" << 6380;
  QTest::newRow("ipv6 hosts") << "m ::1 1 ::2 65535" << "::2" << 65535;
  QTest::newRow("four words") << "mymaster 127.0.0.1 6379 127.0.0.2" << "" << 0;
  QTest::newRow("six words") << "mymaster 127.0.0.1 6379 127.0.0.2 6380 x" << "" << 0;
  QTest::newRow("port 0") << "mymaster a 1 b 0" << "" << 0;
  QTest::newRow("port too big") << "mymaster a 1 b 65536" << "" << 0;
  QTest::newRow("port not a number") << "mymaster a 1 b 63x" << "" << 0;
  QTest::newRow("old port bad") << "mymaster a -1 b 2" << "" << 0;
  QTest::newRow("two spaces") << "mymaster  a 1 b 2" << "" << 0;
  QTest::newRow("trailing space") << "mymaster a 1 b 2 " << "" << 0;
  QTest::newRow("control byte in host") << QString("mymaster a 1 b\x01 2") << "" << 0;
  QTest::newRow("empty") << "" << "" << 0;
}

void SentinelSwitchesTest::readsOnlyTheAnnouncementShape() {
  QFETCH(QString, payload);
  QFETCH(QString, host);
  QFETCH(int, port);
  const auto a = parseSwitchAnnouncement(payload.toStdString());
  QCOMPARE(a.has_value(), !host.isEmpty());
  if (!a) return;
  QCOMPARE(QString::fromStdString(a->host), host);
  QCOMPARE(a->port, port);
}

void SentinelSwitchesTest::countsItsServiceOnly() {
  FakeSentinel s(message("other 127.0.0.1 1 127.0.0.1 2") + message("mymaster 127.0.0.1 1") +
                     "*3\r\n" + bulk("pong") + bulk("x") + bulk("y") + message("mymaster 127.0.0.1 1111 127.0.0.2 2222"),
                 false);
  SentinelSwitches feed(s.endpoint("mymaster"));
  QVERIFY(waitFor([&] { return feed.switches() == 1; }, std::chrono::seconds(5)));
  QCOMPARE(feed.announced(), std::make_optional(std::make_pair(std::string("127.0.0.2"), 2222)));
  QCOMPARE(feed.ignored(), std::uint64_t{3});  // another service, a short payload, another kind of push
  QCOMPARE(feed.subscribed(), 1);
}

void SentinelSwitchesTest::dropsAFloodingSentinel() {
  FakeSentinel s("$999999999\r\n", true);  // a bulk that never ends, then endless bytes
  SentinelSwitches feed(s.endpoint("mymaster"));
  // Dropped after kMaxSentinelBuffered bytes and subscribed again after kSentinelResubscribe.
  QVERIFY2(waitFor([&] { return s.served() >= 3; }, std::chrono::seconds(5)), qPrintable(QString::number(s.served())));
  QCOMPARE(feed.switches(), std::uint64_t{0});
}

void SentinelSwitchesTest::oneFeedPerEndpoint() {
  FakeSentinel s("", false);
  auto a = SentinelSwitches::of(s.endpoint("mymaster"));
  auto b = SentinelSwitches::of(s.endpoint("mymaster"));
  auto other = SentinelSwitches::of(s.endpoint("theirs"));
  QCOMPARE(a.get(), b.get());
  QVERIFY(a.get() != other.get());
  // The loopback Sentinel serves one connection at a time: the other service's feed goes, so
  // that whichever subscribed first, `a` is served (it tries again every 450 ms at most).
  other.reset();
  QVERIFY(waitFor([&] { return a->subscribed() == 1; }, std::chrono::seconds(5)));
  const auto t0 = Clock::now();
  a.reset();
  b.reset();  // the last holder: the thread stops now, woken from its poll
  QVERIFY(Clock::now() - t0 < std::chrono::milliseconds(50));
}

void SentinelSwitchesTest::announcesARealFailover() {
  auto set = ManagedRedisSentinel::start();
  QVERIFY2(set, set ? "" : set.error().message.c_str());
  RedisEndpoint ep = set->endpoint();
  ep.commandTimeout = Micros{1'000'000};
  auto conn = RedisConnection::connect(ep);
  QVERIFY2(conn, conn ? "" : conn.error().message.c_str());
  const int firstMaster = conn->endpoint().port;
  auto feed = SentinelSwitches::of(ep);  // the one the connection holds
  QVERIFY(waitFor([&] { return feed->subscribed() == 3; }, std::chrono::seconds(5)));
  QCOMPARE(feed->switches(), std::uint64_t{0});
  auto sentinel = RedisConnection::connect(set->sentinels()[0].endpoint());
  QVERIFY(sentinel);
  QVERIFY(sentinel->command({"SENTINEL", "FAILOVER", "ratelab"}));
  QVERIFY(waitFor([&] { return feed->switches() >= 1; }, std::chrono::seconds(20)));
  const auto to = feed->announced();
  QVERIFY(to);
  QVERIFY(to->second != firstMaster);
  QVERIFY(set->nodeOnPort(to->second) != nullptr);
  // The connection's next command goes where the Sentinels announced, and that node is the master.
  auto role = conn->command({"ROLE"});
  QVERIFY2(role, role ? "" : role.error().message.c_str());
  QCOMPARE(conn->endpoint().port, to->second);
  QCOMPARE((*role)[0].str(), std::string_view("master"));
}

QTEST_GUILESS_MAIN(SentinelSwitchesTest)
#include "test_sentinel_switches.moc"
