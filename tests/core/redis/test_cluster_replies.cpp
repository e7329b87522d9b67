// What a hostile cluster node can say, read by the real hiredis over a real
// socket: a "node" on a free loopback port answers PING with PONG and CLUSTER
// SLOTS with a crafted reply. More than 16384 ranges, tens of thousands of
// replicas (which once cost 29.7 s of duplicate checks) and a port outside
// 1-65535 (2^33 + 19520 was truncated and used) are each refused with one
// error naming the bound; a sound reply is read whole. MOVED/ASK to a port
// outside 1-65535 is not a redirect.

#include <QtTest>

#include <sys/socket.h>

#include <atomic>
#include <string>
#include <string_view>

#include "support/loopback_server.hpp"
#include "redis/cluster/cluster_router.hpp"
#include "redis/cluster/slot_map.hpp"

using namespace rl;

namespace {

// A loopback "cluster node": PING gets +PONG, any other command gets `reply`.
class ScriptedNode {
 public:
  explicit ScriptedNode(std::string reply)
      : reply_(std::move(reply)), server_([this](int c, const std::atomic<bool>& stopping) {
          char buf[4096];
          for (ssize_t n; !stopping && (n = ::recv(c, buf, sizeof buf, 0)) > 0;) {
            const bool ping = std::string_view(buf, static_cast<std::size_t>(n)).find("PING") != std::string_view::npos;
            const std::string& answer = ping ? pong_ : reply_;
            if (::send(c, answer.data(), answer.size(), MSG_NOSIGNAL) < 0) return;
          }
        }) {}
  int port() const { return server_.port(); }

 private:
  std::string reply_;                  ///< the answer to anything but PING
  const std::string pong_ = "+PONG\r\n";
  test::LoopbackServer server_;        ///< serves connections, one at a time
};

std::string bulk(const std::string& s) { return "$" + std::to_string(s.size()) + "\r\n" + s + "\r\n"; }
std::string integer(long long v) { return ":" + std::to_string(v) + "\r\n"; }
std::string node(const std::string& host, long long port) { return "*2\r\n" + bulk(host) + integer(port); }
// One CLUSTER SLOTS range: first..last, a master, then `replicas` (each host:port).
std::string range(int first, int last, const std::string& master, const std::vector<std::string>& replicas) {
  std::string out = "*" + std::to_string(3 + replicas.size()) + "\r\n" + integer(first) + integer(last) + master;
  for (const auto& r : replicas) out += r;
  return out;
}
std::vector<std::string> distinctReplicas(int n, int firstPort) {
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) out.push_back(node("127.0.0.1", firstPort + i));
  return out;
}

Result<SlotMap> slotsFrom(const std::string& reply) {
  ScriptedNode node(reply);
  RedisEndpoint seed;
  seed.host = "127.0.0.1";
  seed.port = node.port();
  seed.commandTimeout = Micros{5'000'000};
  return fetchSlotMap({seed}, ClusterTrust::of(seed));
}

}  // namespace

class ClusterRepliesTest : public QObject {
  Q_OBJECT
 private slots:
  void refusesRepliesOutOfBounds_data();
  void refusesRepliesOutOfBounds();
  void readsASoundReply();
  void redirectsOnlyToRealPorts();
};

void ClusterRepliesTest::refusesRepliesOutOfBounds_data() {
  QTest::addColumn<QByteArray>("reply");
  QTest::addColumn<QString>("error");
  {
    std::string r = "*16385\r\n";
    for (int i = 0; i < 16385; ++i) r += range(i % 16384, i % 16384, node("127.0.0.1", 7000), {});
    QTest::newRow("16385 ranges") << QByteArray::fromStdString(r)
                                  << "CLUSTER SLOTS names 16385 slot ranges: allowed at most 16384 (one per slot)";
  }
  QTest::newRow("20000 replicas in a range")
      << QByteArray::fromStdString("*1\r\n" + range(0, 16383, node("127.0.0.1", 7000), distinctReplicas(20000, 10000)))
      << "CLUSTER SLOTS entry 0 names 20000 replicas: allowed at most 64 per slot range";
  {
    std::string r = "*200\r\n";  // 64 new replicas in each of 200 ranges of one master: 12800 in all
    for (int i = 0; i < 200; ++i) r += range(i, i, node("127.0.0.1", 7000), distinctReplicas(64, 10000 + 64 * i));
    QTest::newRow("12800 replicas of one master") << QByteArray::fromStdString(r)
                                                  << "CLUSTER SLOTS names 128 replicas of 127.0.0.1:7000: allowed at most "
                                                     "64 per master";
  }
  QTest::newRow("port 2^33 + 19520")
      << QByteArray::fromStdString("*1\r\n" + range(0, 16383, node("127.0.0.1", (1LL << 33) + 19520), {}))
      << "CLUSTER SLOTS names port 8589954112 for node 127.0.0.1: allowed 1 to 65535";
  QTest::newRow("replica port 0") << QByteArray::fromStdString("*1\r\n" + range(0, 16383, node("127.0.0.1", 7000),
                                                                                  {node("127.0.0.1", 0)}))
                                  << "CLUSTER SLOTS names port 0 for node 127.0.0.1: allowed 1 to 65535";
}

void ClusterRepliesTest::refusesRepliesOutOfBounds() {
  QFETCH(QByteArray, reply);
  QFETCH(QString, error);
  const auto map = slotsFrom(reply.toStdString());
  QVERIFY(!map);
  QCOMPARE(map.error().code, ErrorCode::Protocol);
  QCOMPARE(QString::fromStdString(map.error().message), error);
}

void ClusterRepliesTest::readsASoundReply() {
  const std::string reply = "*3\r\n" + range(0, 5460, node("127.0.0.1", 7000), {node("127.0.0.1", 7003)}) +
                            range(5461, 10922, node("127.0.0.1", 7001), {node("127.0.0.1", 7004)}) +
                            range(10923, 16383, node("127.0.0.1", 7002), distinctReplicas(64, 8000));
  const auto map = slotsFrom(reply);
  QVERIFY2(map, map ? "" : map.error().message.c_str());
  QCOMPARE(map->masters().size(), std::size_t{3});
  QCOMPARE(map->coveredSlots(), 16384);
  QCOMPARE(map->masterOf(5461), 1);
  QCOMPARE(map->masters()[2].address(), std::string("127.0.0.1:7002"));
  QCOMPARE(map->replicasOf(0).size(), std::size_t{1});
  QCOMPARE(map->replicasOf(0)[0].address(), std::string("127.0.0.1:7003"));
  QCOMPARE(map->replicasOf(2).size(), std::size_t{64});
}

void ClusterRepliesTest::redirectsOnlyToRealPorts() {
  QCOMPARE(parseClusterRedirect("MOVED 3999 127.0.0.1:6381").kind, ClusterRedirect::Moved);
  QCOMPARE(parseClusterRedirect("MOVED 3999 127.0.0.1:6381").port, 6381);
  QCOMPARE(parseClusterRedirect("MOVED 3999 127.0.0.1:65535").kind, ClusterRedirect::Moved);
  QCOMPARE(parseClusterRedirect("MOVED 3999 127.0.0.1:65536").kind, ClusterRedirect::None);
  QCOMPARE(parseClusterRedirect("ASK 3999 127.0.0.1:8589954112").kind, ClusterRedirect::None);
  QCOMPARE(parseClusterRedirect("ASK 3999 127.0.0.1:0").kind, ClusterRedirect::None);
}

QTEST_MAIN(ClusterRepliesTest)
#include "test_cluster_replies.moc"
