// Which announced Cluster nodes RateLab follows (cluster_trust.hpp): the
// address kinds and the seeds' rule as a table, then a private 3-master
// Cluster whose first node announces a foreign address (CONFIG SET
// cluster-announce-ip 10.1.2.3, then a host name): its CLUSTER SLOTS and a
// real MOVED naming it are refused by default, with one error naming the
// address and --cluster-any-node, and followed with the flag.

#include <QtTest>

#include <chrono>
#include <thread>

#include "redis/cluster/cluster_router.hpp"
#include "redis/cluster/cluster_trust.hpp"
#include "redis/cluster/key_slot.hpp"
#include "support/redis_test_cluster.hpp"

using namespace rl;

Q_DECLARE_METATYPE(rl::AddressKind)

namespace {
RedisEndpoint seedsAt(const std::vector<std::string>& hosts, bool any = false) {
  RedisEndpoint ep;
  ep.cluster = true;
  ep.clusterAnyNode = any;
  ep.host = hosts.front();
  ep.port = 7000;
  for (std::size_t i = 1; i < hosts.size(); ++i) ep.moreSeeds.emplace_back(hosts[i], 7000);
  return ep;
}

// One command on one node; QVERIFY the result in the caller.
Result<RedisReply> on(ManagedRedisServer& node, std::vector<std::string_view> argv) {
  auto c = RedisConnection::connect(node.endpoint());
  if (!c) return c.error();
  return c->command(argv);
}

// Polls `node`'s CLUSTER SLOTS until it names `host` (gossip and clusterCron take a second or two); false after 15 s.
bool waitUntilSlotsName(ManagedRedisServer& node, const std::string& host) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(15);
  while (std::chrono::steady_clock::now() < deadline) {
    auto c = RedisConnection::connect(node.endpoint());
    if (c) {
      auto r = c->command({"CLUSTER", "SLOTS"});
      if (r) {
        auto map = SlotMap::fromClusterSlots(*r);
        if (map)
          for (const auto& m : map->masters())
            if (m.host == host) return true;
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

RedisEndpoint seedOf(ManagedRedisServer& node, bool any) {
  RedisEndpoint ep = node.endpoint();
  ep.cluster = true;
  ep.clusterAnyNode = any;
  ep.commandTimeout = Micros{2'000'000};
  return ep;
}
}  // namespace

class ClusterTrustTest : public QObject {
  Q_OBJECT
 private slots:
  void addressKinds_data();
  void addressKinds();
  void seedsRule_data();
  void seedsRule();
  void urlsTakeTheProcessFlag();
  void foreignAnnouncedNode();

 private:
  void refusedNames(const Error& e, const std::string& address, const std::string& namedBy);
};

void ClusterTrustTest::addressKinds_data() {
  QTest::addColumn<QString>("host");
  QTest::addColumn<AddressKind>("kind");
  const std::pair<const char*, AddressKind> rows[] = {
      {"127.0.0.1", AddressKind::Loopback},   {"127.9.9.9", AddressKind::Loopback},
      {"::1", AddressKind::Loopback},         {"::ffff:127.0.0.1", AddressKind::Loopback},
      {"10.1.2.3", AddressKind::Private},     {"172.16.0.1", AddressKind::Private},
      {"172.31.255.255", AddressKind::Private}, {"172.32.0.1", AddressKind::Public},
      {"192.168.1.1", AddressKind::Private},  {"100.64.0.1", AddressKind::Private},
      {"100.128.0.1", AddressKind::Public},   {"169.254.1.1", AddressKind::Private},
      {"fd00::1", AddressKind::Private},      {"fe80::1", AddressKind::Private},
      {"::ffff:10.1.2.3", AddressKind::Private}, {"8.8.8.8", AddressKind::Public},
      {"2001:db8::1", AddressKind::Public},   {"0.0.0.0", AddressKind::Never},
      {"::", AddressKind::Never},             {"224.0.0.1", AddressKind::Never},
      {"255.255.255.255", AddressKind::Never}, {"ff02::1", AddressKind::Never},
      {"redis.example", AddressKind::HostName}, {"localhost", AddressKind::HostName},
      {"127.1", AddressKind::HostName},       {"fe80::1%eth0", AddressKind::HostName},
  };
  for (const auto& [host, kind] : rows) QTest::newRow(host) << QString(host) << kind;
}

void ClusterTrustTest::addressKinds() {
  QFETCH(QString, host);
  QFETCH(AddressKind, kind);
  QCOMPARE(addressKind(host.toStdString()), kind);
}

void ClusterTrustTest::seedsRule_data() {
  QTest::addColumn<QStringList>("seeds");
  QTest::addColumn<bool>("any");
  QTest::addColumn<QString>("node");
  QTest::addColumn<bool>("admitted");
  const QStringList loop{"127.0.0.1"}, priv{"10.0.0.5"}, pub{"203.0.113.7"};
  QTest::newRow("loopback seed, loopback node") << loop << false << "127.0.0.1" << true;
  QTest::newRow("loopback seed, other loopback") << loop << false << "::1" << true;
  QTest::newRow("loopback seed, private node") << loop << false << "10.1.2.3" << false;
  QTest::newRow("loopback seed, public node") << loop << false << "8.8.8.8" << false;
  QTest::newRow("loopback seed, host name") << loop << false << "node-1.example" << false;
  QTest::newRow("loopback seed, 'localhost'") << loop << false << "localhost" << false;
  QTest::newRow("loopback seed, 0.0.0.0") << loop << false << "0.0.0.0" << false;
  QTest::newRow("localhost seed, loopback node") << QStringList{"localhost"} << false << "127.0.0.1" << true;
  QTest::newRow("private seed, private node") << priv << false << "192.168.7.7" << true;
  QTest::newRow("private seed, loopback node") << priv << false << "127.0.0.1" << false;
  QTest::newRow("private seed, public node") << priv << false << "8.8.8.8" << false;
  QTest::newRow("public seed, public node") << pub << false << "198.51.100.1" << true;
  QTest::newRow("public seed, private node") << pub << false << "10.1.2.3" << false;
  QTest::newRow("public seed, loopback node") << pub << false << "127.0.0.1" << false;
  QTest::newRow("loopback + private seeds, private node") << QStringList{"127.0.0.1", "10.0.0.5"} << false << "10.9.9.9" << true;
  QTest::newRow("flag: host name") << loop << true << "node-1.example" << true;
  QTest::newRow("flag: public node") << loop << true << "8.8.8.8" << true;
}

void ClusterTrustTest::seedsRule() {
  QFETCH(QStringList, seeds);
  QFETCH(bool, any);
  QFETCH(QString, node);
  QFETCH(bool, admitted);
  std::vector<std::string> hosts;
  for (const auto& s : seeds) hosts.push_back(s.toStdString());
  const auto ok = ClusterTrust::of(seedsAt(hosts, any)).admit(node.toStdString(), 7001, "in CLUSTER SLOTS from x");
  QCOMPARE(bool(ok), admitted);
  if (!ok) {
    QCOMPARE(ok.error().code, ErrorCode::InvalidArgument);
    QVERIFY2(ok.error().message.find("--cluster-any-node") != std::string::npos, ok.error().message.c_str());
  }
}

void ClusterTrustTest::urlsTakeTheProcessFlag() {
  auto plain = resolveRedisUrl("redis+cluster://127.0.0.1:7000");
  QVERIFY(plain);
  QVERIFY(!plain->clusterAnyNode);
  setClusterAnyNode(true);
  auto any = resolveRedisUrl("redis+cluster://127.0.0.1:7000");
  setClusterAnyNode(false);
  QVERIFY(any);
  QVERIFY(any->clusterAnyNode);
}

void ClusterTrustTest::refusedNames(const Error& e, const std::string& address, const std::string& namedBy) {
  QCOMPARE(e.code, ErrorCode::InvalidArgument);
  for (const std::string& part : {address, namedBy, std::string("--cluster-any-node")})
    QVERIFY2(e.message.find(part) != std::string::npos, (part + " not in: " + e.message).c_str());
}

void ClusterTrustTest::foreignAnnouncedNode() {
  test::RedisTestCluster cluster(0);
  RL_REQUIRE_CLUSTER(cluster);
  ManagedRedisServer& n1 = cluster.cluster().nodes()[0];
  ManagedRedisServer& n2 = cluster.cluster().nodes()[1];
  // Routers seeded at node 2 before node 1 announces 10.1.2.3: their maps are all loopback.
  auto router = ClusterRouter::connect(seedOf(n2, false));
  auto routerAny = ClusterRouter::connect(seedOf(n2, true));
  QVERIFY2(router && routerAny, router ? "" : router.error().message.c_str());

  QVERIFY(on(n1, {"CONFIG", "SET", "cluster-announce-ip", "10.1.2.3"}));
  QVERIFY2(waitUntilSlotsName(n1, "10.1.2.3"), "node 1 never named itself 10.1.2.3");
  QVERIFY2(waitUntilSlotsName(n2, "10.1.2.3"), "node 2 never learnt 10.1.2.3 by gossip");
  const std::string foreign = "10.1.2.3:" + std::to_string(n1.port());

  // CLUSTER SLOTS naming it: refused by default (from either seed), read with the flag.
  for (ManagedRedisServer* seed : {&n1, &n2}) {
    auto refused = ClusterRouter::connect(seedOf(*seed, false));
    QVERIFY(!refused);
    refusedNames(refused.error(), foreign, "in CLUSTER SLOTS from " + seed->endpoint().address());
  }
  auto accepted = ClusterRouter::connect(seedOf(n1, true));
  QVERIFY2(accepted, accepted ? "" : accepted.error().message.c_str());
  bool named = false;
  for (const auto& m : (*accepted)->map().masters()) named = named || m.address() == foreign;
  QVERIFY(named);

  // A real MOVED naming it: a slot of node 2 (no keys) handed to node 1 on every node.
  std::string key;
  for (int i = 0; key.empty(); ++i) {
    const std::string k = "trust-" + std::to_string(i);
    const int m = (*router)->map().masterOf(keySlot(k));
    if ((*router)->map().masters()[static_cast<std::size_t>(m)].port == n2.port()) key = k;
  }
  const std::string slot = std::to_string(keySlot(key));
  auto id1 = on(n1, {"CLUSTER", "MYID"});
  QVERIFY(id1);
  const std::string id(id1->str());
  for (auto& n : cluster.cluster().nodes()) QVERIFY(on(n, {"CLUSTER", "SETSLOT", slot, "NODE", id}));
  const std::string_view get[] = {"GET", key};
  auto moved = (*router)->command(key, get);
  QVERIFY(!moved);
  refusedNames(moved.error(), foreign, "in a MOVED reply from " + n2.endpoint().address());
  QCOMPARE((*router)->moved(), std::int64_t{0});  // refused before it was followed
  auto followed = (*routerAny)->command(key, get);
  QCOMPARE((*routerAny)->moved(), std::int64_t{1});  // followed: 10.1.2.3 does not answer here, so an outage
  QVERIFY(!followed);
  QVERIFY2(followed.error().code != ErrorCode::InvalidArgument, followed.error().message.c_str());

  // A host name (Redis 7: cluster-announce-hostname + preferred endpoint type hostname): refused, read with the flag.
  QVERIFY(on(n1, {"CONFIG", "SET", "cluster-announce-ip", ""}));
  QVERIFY(on(n1, {"CONFIG", "SET", "cluster-announce-hostname", "node-1.example"}));
  QVERIFY(on(n1, {"CONFIG", "SET", "cluster-preferred-endpoint-type", "hostname"}));
  QVERIFY2(waitUntilSlotsName(n1, "node-1.example"), "node 1 never named itself node-1.example");
  auto byName = ClusterRouter::connect(seedOf(n1, false));
  QVERIFY(!byName);
  refusedNames(byName.error(), "node-1.example:" + std::to_string(n1.port()), "a host name");
  QVERIFY(ClusterRouter::connect(seedOf(n1, true)));
}

QTEST_GUILESS_MAIN(ClusterTrustTest)
#include "test_cluster_trust.moc"
