// Sentinel as a Redis target: redis+sentinel:// URLs (good ones and the exact
// error of bad ones), the strict reader of a Sentinel's reply (a table), real
// hostile "Sentinels" (a socket that never answers, one that sends a huge
// reply) that cost at most the short wait, and a private Sentinel set (1
// master, 2 replicas, 3 real `redis-server --sentinel`): a connection finds its
// master, follows SENTINEL FAILOVER to the promoted replica, and the set's
// processes and dirs are gone once it is destroyed.

#include <QtTest>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <thread>

#include "support/loopback_server.hpp"
#include "process/loopback_port.hpp"
#include "redis/managed_redis_server.hpp"
#include "redis/redis_connection.hpp"
#include "redis/redis_store.hpp"
#include "redis/redis_url.hpp"
#include "redis/sentinel/managed_redis_sentinel.hpp"
#include "redis/sentinel/sentinel_discovery.hpp"

using namespace rl;

namespace {
const char* const kExpected =
    " (expected redis://[user:password@]host:port[/db], redis+cluster://[user:password@]host:port[,host:port...] or "
    "redis+sentinel://[user:password@]host:port[,host:port...]/service_name[/db])";

// A loopback listener that plays a hostile Sentinel: `reply` (empty: it never
// answers), then as many bytes as the client takes, until it goes away.
class HostileSentinel {
 public:
  explicit HostileSentinel(std::string reply)
      : reply_(std::move(reply)), server_([this](int c, const std::atomic<bool>& stopping) {
          char buf[256];
          (void)::recv(c, buf, sizeof buf, 0);
          if (!reply_.empty()) (void)::send(c, reply_.data(), reply_.size(), MSG_NOSIGNAL);
          std::string flood(64 * 1024, 'x');
          while (!stopping && !reply_.empty() && ::send(c, flood.data(), flood.size(), MSG_NOSIGNAL) > 0) {}
          while (!stopping && reply_.empty() && ::recv(c, buf, sizeof buf, 0) > 0) {}
        }) {}
  int port() const { return server_.port(); }

 private:
  std::string reply_;            ///< what it sends first; empty = never answers
  test::LoopbackServer server_;  ///< serves connections, one at a time
};

bool processGone(int pid) { return ::kill(pid, 0) != 0 && errno == ESRCH; }
}  // namespace

class RedisSentinelTest : public QObject {
  Q_OBJECT
 private slots:
  void parsesSentinelUrls();
  void rejectsBadSentinelUrls_data();
  void rejectsBadSentinelUrls();
  void readsOnlyTheReplyShape_data();
  void readsOnlyTheReplyShape();
  void hostileSentinelsCostTheWaitOnly_data();
  void hostileSentinelsCostTheWaitOnly();
  void privateSetFollowsSentinelFailover();
  void replicaReadsSeeAStaleCount();
};

void RedisSentinelTest::parsesSentinelUrls() {
  auto ep = parseRedisUrl("redis+sentinel://alice:p%40ss@10.0.0.1:26379,[::1]:26380,h:3/my-master.1/4");
  QVERIFY2(ep, ep ? "" : ep.error().message.c_str());
  QVERIFY(ep->viaSentinel());
  QCOMPARE(ep->sentinelService, std::string("my-master.1"));
  QCOMPARE(ep->db, 4);
  QCOMPARE(ep->user, std::string("alice"));
  QCOMPARE(ep->password, std::string("p@ss"));
  QCOMPARE(ep->sentinels.size(), std::size_t{3});
  QCOMPARE(ep->sentinels[1].first, std::string("::1"));
  QCOMPARE(ep->sentinels[2].second, 3);
  QVERIFY(!ep->cluster);
  QCOMPARE(ep->toString(), std::string("redis+sentinel://alice@10.0.0.1:26379,[::1]:26380,h:3/my-master.1/4"));
  auto plain = parseRedisUrl("redis+sentinel://127.0.0.1:26379/mymaster");
  QVERIFY(plain);
  QCOMPARE(plain->db, 0);
  QCOMPARE(plain->sentinels.size(), std::size_t{1});
}

void RedisSentinelTest::rejectsBadSentinelUrls_data() {
  QTest::addColumn<QString>("url");
  QTest::addColumn<QString>("message");
  QTest::newRow("no service") << "redis+sentinel://127.0.0.1:26379"
                              << "bad Redis URL 'redis+sentinel://127.0.0.1:26379': the service name is missing: a "
                                 "Sentinel URL ends in /service_name[/db]";
  QTest::newRow("empty service") << "redis+sentinel://h:1//2"
                                 << "bad Redis URL 'redis+sentinel://h:1//2': service name '' must be 1 to 128 of A-Z "
                                    "a-z 0-9 . _ -";
  QTest::newRow("service chars") << "redis+sentinel://h:1/my master"
                                 << "bad Redis URL 'redis+sentinel://h:1/my master': service name 'my master' must be "
                                    "1 to 128 of A-Z a-z 0-9 . _ -";
  QTest::newRow("db") << "redis+sentinel://h:1/m/x" << "bad Redis URL 'redis+sentinel://h:1/m/x': db 'x' must be a number >= 0";
  QTest::newRow("port") << "redis+sentinel://h:1,h:0/m"
                        << "bad Redis URL 'redis+sentinel://h:1,h:0/m': port '0' must be 1 to 65535";
  QTest::newRow("password hidden") << "redis+sentinel://u:secret@h/m"
                                   << "bad Redis URL 'redis+sentinel://u:***@h/m': the port is missing";
  QTest::newRow("scheme") << "redis+sentinal://h:1/m"
                          << "bad Redis URL 'redis+sentinal://h:1/m': the scheme must be redis://, redis+cluster:// or "
                             "redis+sentinel://";
}

void RedisSentinelTest::rejectsBadSentinelUrls() {
  QFETCH(QString, url);
  QFETCH(QString, message);
  auto ep = parseRedisUrl(url.toStdString());
  QVERIFY(!ep);
  QCOMPARE(ep.error().code, ErrorCode::InvalidArgument);
  QCOMPARE(QString::fromStdString(ep.error().message), message + kExpected);
}

void RedisSentinelTest::readsOnlyTheReplyShape_data() {
  QTest::addColumn<QByteArray>("bytes");
  QTest::addColumn<QString>("outcome");  // "incomplete", "nil", "host:port" or the error
  QTest::newRow("address") << QByteArray("*2\r\n$9\r\n127.0.0.1\r\n$4\r\n6380\r\n") << "127.0.0.1:6380";
  QTest::newRow("nil array") << QByteArray("*-1\r\n") << "nil";
  QTest::newRow("nil bulk") << QByteArray("$-1\r\n") << "nil";
  QTest::newRow("half") << QByteArray("*2\r\n$9\r\n127.0") << "incomplete";
  QTest::newRow("error") << QByteArray("-IDONTKNOW no such master\r\n")
                         << "the Sentinel's reply is an error: IDONTKNOW no such master";
  QTest::newRow("huge bulk") << QByteArray("*2\r\n$100000000\r\n")
                             << "the Sentinel's reply has a string of length '100000000': allowed 1 to 255";
  QTest::newRow("huge array") << QByteArray("*2147483647\r\n")
                              << "the Sentinel's reply is not an array of two strings (host, port)";
  QTest::newRow("endless line") << QByteArray(100, '*') << "the Sentinel's reply has a line over 64 bytes";
  QTest::newRow("nested") << QByteArray("*2\r\n*2\r\n") << "the Sentinel's reply is not an array of two strings";
  QTest::newRow("bad port") << QByteArray("*2\r\n$1\r\nh\r\n$5\r\n99999\r\n")
                            << "the Sentinel's reply names port '99999': allowed 1 to 65535";
  QTest::newRow("trailing") << QByteArray("*2\r\n$1\r\nh\r\n$1\r\n1\r\n+OK\r\n") << "the Sentinel's reply has bytes after its end";
}

void RedisSentinelTest::readsOnlyTheReplyShape() {
  QFETCH(QByteArray, bytes);
  QFETCH(QString, outcome);
  const auto r = parseSentinelReply(std::string_view(bytes.constData(), static_cast<std::size_t>(bytes.size())));
  QString got = "incomplete";
  if (r && !*r) got = QString::fromStdString(r->error().message);
  else if (r && !(*r)->known) got = "nil";
  else if (r) got = QString::fromStdString((*r)->host + ":" + std::to_string((*r)->port));
  QCOMPARE(got, outcome);
}

void RedisSentinelTest::hostileSentinelsCostTheWaitOnly_data() {
  QTest::addColumn<QByteArray>("reply");
  QTest::addColumn<QString>("error");
  QTest::newRow("never answers") << QByteArray() << "no reply within 100 ms";
  QTest::newRow("huge reply") << QByteArray("$999999999\r\n") << "is not an array of two strings";
  QTest::newRow("endless bytes") << QByteArray("*2\r\n$9\r\n") << "has a string not ended by CRLF";
}

void RedisSentinelTest::hostileSentinelsCostTheWaitOnly() {
  QFETCH(QByteArray, reply);
  QFETCH(QString, error);
  HostileSentinel bad(reply.toStdString());
  RedisEndpoint ep;
  ep.sentinelService = "mymaster";
  ep.sentinels = {{"127.0.0.1", bad.port()}, {"127.0.0.1", bad.port()}};
  const auto t0 = std::chrono::steady_clock::now();
  auto conn = RedisConnection::connect(ep);
  const auto took = std::chrono::steady_clock::now() - t0;
  QVERIFY(!conn);
  QCOMPARE(conn.error().code, ErrorCode::Unavailable);
  const QString msg = QString::fromStdString(conn.error().message);
  QVERIFY2(msg.startsWith("no Sentinel named a master for 'mymaster' (Sentinel 127.0.0.1:"), qPrintable(msg));
  QVERIFY2(msg.contains(error), qPrintable(msg));
  // Two Sentinels asked, each waited for at most 100 ms (the endpoint's timeouts are below kSentinelWait).
  QVERIFY2(took < std::chrono::milliseconds(2 * 2 * 100 + 300), qPrintable(QString::number(took.count() / 1000000)));
}

void RedisSentinelTest::privateSetFollowsSentinelFailover() {
  std::vector<int> pids;
  std::vector<std::string> dirs;
  {
    auto set = ManagedRedisSentinel::start();
    QVERIFY2(set, set ? "" : set.error().message.c_str());
    pids = set->pids();
    dirs = set->dirs();
    QCOMPARE(pids.size(), std::size_t{6});
    const int firstMaster = set->nodes()[0].port();
    RedisEndpoint ep = set->endpoint();
    ep.commandTimeout = Micros{1'000'000};
    QCOMPARE(ep.toString().substr(0, 27), std::string("redis+sentinel://127.0.0.1:"));
    auto conn = RedisConnection::connect(ep);
    QVERIFY2(conn, conn ? "" : conn.error().message.c_str());
    QCOMPARE(conn->endpoint().port, firstMaster);
    QVERIFY(conn->command({"SET", "sentinel:k", "1"}));
    auto sentinel = RedisConnection::connect(set->sentinels()[0].endpoint());
    QVERIFY(sentinel);
    QVERIFY(sentinel->command({"SENTINEL", "FAILOVER", "ratelab"}));
    // The connection follows on its own: READONLY or a killed socket, then the Sentinels again.
    Result<RedisReply> incr = unavailable("not tried");
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (std::chrono::steady_clock::now() < deadline) {
      incr = conn->command({"INCR", "sentinel:k"});
      if (incr && conn->endpoint().port != firstMaster) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    QVERIFY2(incr, incr ? "" : incr.error().message.c_str());
    QVERIFY(conn->endpoint().port != firstMaster);
    QVERIFY(set->nodeOnPort(conn->endpoint().port) != nullptr);  // one of the set's replicas
    auto get = conn->command({"GET", "sentinel:k"});
    QVERIFY(get);
    QVERIFY(get->toInt() >= 2);  // the promoted replica had the first write
  }
  for (int pid : pids) QVERIFY2(processGone(pid), qPrintable(QString::number(pid)));
  for (const auto& d : dirs) QVERIFY2(!std::filesystem::exists(d), d.c_str());
}

// Python limits with use_replicas=True reads the count from a replica and writes to the master.
// With the replica's link broken (it keeps serving its stale data), the replica reader sees an
// empty window every time and admits all 12; the master reader admits its limit, 5.
void RedisSentinelTest::replicaReadsSeeAStaleCount() {
  auto master = ManagedRedisServer::start();
  QVERIFY2(master, master ? "" : master.error().message.c_str());
  ManagedServerOptions o;
  o.extraArgs = {"--replicaof", "127.0.0.1", std::to_string(master->port())};
  auto replica = ManagedRedisServer::start(o);
  QVERIFY2(replica, replica ? "" : replica.error().message.c_str());
  auto dead = freePort();
  QVERIFY(dead);
  auto r = RedisConnection::connect(replica->endpoint());
  QVERIFY(r);
  QVERIFY(r->command({"REPLICAOF", "127.0.0.1", std::to_string(*dead)}));  // stale from here on
  RedisStoreOptions opts;
  opts.endpoint = master->endpoint();
  opts.endpoint.commandTimeout = Micros{2'000'000};
  opts.prefix = "rr:";
  opts.serverClock = false;
  auto fromMaster = makeRedisStore(Backend::RedisNaive, opts);
  opts.readReplica = replica->endpoint();
  auto fromReplica = makeRedisStore(Backend::RedisNaive, opts);
  QVERIFY(fromMaster && fromReplica);
  const Quota q = Quota::perWindow(5, 60 * kSecond);
  int admittedMaster = 0, admittedReplica = 0;
  for (int i = 0; i < 12; ++i) {
    const Micros now{1'000'000'000 + i * 1000};
    auto a = (*fromMaster)->decide({Algorithm::FixedWindow, "m", q, 1, now});
    auto b = (*fromReplica)->decide({Algorithm::FixedWindow, "r", q, 1, now});
    QVERIFY(a && b);
    admittedMaster += a->allowed;
    admittedReplica += b->allowed;
  }
  QCOMPARE(admittedMaster, 5);
  QCOMPARE(admittedReplica, 12);
  // What the master holds for the replica reader: every write put back 0 + 1.
  auto m = RedisConnection::connect(master->endpoint());
  QVERIFY(m);
  auto keys = m->command({"KEYS", "rr:{fixed_window:r}:*"});
  QVERIFY(keys);
  QCOMPARE(keys->size(), std::size_t{1});
  auto count = m->command({"GET", std::string((*keys)[0].str())});
  QVERIFY(count);
  QCOMPARE(count->toInt().value_or(-1), std::int64_t{1});
}

QTEST_GUILESS_MAIN(RedisSentinelTest)
#include "test_redis_sentinel.moc"
