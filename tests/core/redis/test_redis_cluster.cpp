// Redis Cluster as a target, on a private 3-master cluster: slots and hash
// tags, cluster URLs, the router (keys spread over every master, MOVED after a
// slot moves, ASK during a live migration with no decision lost or doubled),
// the key inspector on every master (node and slot per key, one DEL per slot),
// scripts reloaded where a node lost them, and the same admitted counts as one
// node for every algorithm and backend on a virtual-clock storm.

#include <QtTest>

#include <QScopeGuard>

#include <set>
#include <thread>

#include "redis/cluster/cluster_router.hpp"
#include "redis/cluster/key_slot.hpp"
#include "redis/key_inspector.hpp"
#include "redis/redis_link.hpp"
#include "redis/lua_scripts.hpp"
#include "store/memory_store.hpp"
#include "storm/store_factory.hpp"
#include "support/redis_test_cluster.hpp"
#include "support/redis_test_server.hpp"

using namespace rl;

class RedisClusterTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase();
  void slotsFollowHashTags();
  void clusterUrls();
  void keyBuilderRefusesSplitSlots();
  void routerSpreadsKeysOverMasters();
  void inspectorScansAndDeletesOnEveryMaster();
  void sameCountsAsOneNode_data();
  void sameCountsAsOneNode();
  void scriptsReloadWhereLost();
  void movedAfterSlotMoves();
  void askDuringMigrationLosesNothing();
  void notAClusterIsClear();
  void windowKeysAreNamedInKeys();
  void serverClockCountsAsOneNode();

 private:
  std::unique_ptr<test::RedisTestCluster> cluster_;
  std::unique_ptr<test::RedisTestServer> single_;
};

void RedisClusterTest::initTestCase() {
  cluster_ = std::make_unique<test::RedisTestCluster>(0);
  RL_REQUIRE_CLUSTER(*cluster_);
  single_ = std::make_unique<test::RedisTestServer>();
  RL_REQUIRE_REDIS(*single_);
}

void RedisClusterTest::slotsFollowHashTags() {
  QCOMPARE(crc16("123456789"), std::uint16_t{0x31C3});  // CRC16-XMODEM check value
  QCOMPARE(keySlot("123456789"), 0x31C3 % 16384);
  QCOMPARE(keySlot("foo"), 12182);                       // CLUSTER KEYSLOT foo
  QCOMPARE(keySlot("{user1000}.following"), keySlot("{user1000}.followers"));
  QCOMPARE(hashTag("foo{}{bar}"), std::string_view("foo{}{bar}"));  // empty first tag: whole key
  QCOMPARE(hashTag("foo{{bar}}zap"), std::string_view("{bar"));
  QCOMPARE(hashTag("foo{bar"), std::string_view("foo{bar"));
  // The same numbers the server computes.
  auto router = ClusterRouter::connect(cluster_->endpoint());
  QVERIFY(router);
  auto c = (*router)->master(0);
  QVERIFY(c);
  for (const char* k : {"a", "ratelab:{token_bucket:client-7}", "x{}{y}", "{gcra:z}:123"}) {
    auto r = (*c)->command({"CLUSTER", "KEYSLOT", k});
    QVERIFY(r);
    QCOMPARE(keySlot(k), static_cast<int>(r->integer()));
  }
}

void RedisClusterTest::clusterUrls() {
  auto ep = parseRedisUrl("redis+cluster://bob:pw@127.0.0.1:7000,127.0.0.1:7001,[::1]:7002");
  QVERIFY(ep);
  QVERIFY(ep->cluster);
  QCOMPARE(ep->port, 7000);
  QCOMPARE(ep->user, std::string("bob"));
  QCOMPARE(ep->moreSeeds.size(), std::size_t{2});
  QCOMPARE(ep->moreSeeds[1].first, std::string("::1"));
  QCOMPARE(ep->toString(), std::string("redis+cluster://bob@127.0.0.1:7000,127.0.0.1:7001,[::1]:7002"));
  auto db = parseRedisUrl("redis+cluster://127.0.0.1:7000/1");
  QVERIFY(!db);
  QVERIFY(db.error().message.find("database 0 only") != std::string::npos);
  auto many = parseRedisUrl("redis://127.0.0.1:7000,127.0.0.1:7001");
  QVERIFY(!many);
  QVERIFY(many.error().message.find("redis+cluster://") != std::string::npos);
  QVERIFY(!parseRedisUrl("redis+cluster://127.0.0.1:7000,"));
  QVERIFY(!parseRedisUrl("redis+cluster://127.0.0.1:7000,host:99999"));
}

void RedisClusterTest::keyBuilderRefusesSplitSlots() {
  auto ok = clusterLimiterKey("ratelab:", Algorithm::FixedWindow, "c1");
  QVERIFY(ok);
  QCOMPARE(keySlot(*ok), keySlot(*ok + ":1700000000000000"));
  auto bad = clusterLimiterKey("x{}", Algorithm::FixedWindow, "c1");
  QVERIFY(!bad);
  QCOMPARE(bad.error().code, ErrorCode::InvalidArgument);
  QVERIFY(bad.error().message.find("'x{}'") != std::string::npos);
  // The store refuses it before sending anything (no CROSSSLOT at run time).
  auto store = makeRedisStore(Backend::RedisLua, cluster_->storeOptions("x{}"));
  QVERIFY(store);
  auto d = (*store)->decide(DecisionRequest{Algorithm::FixedWindow, "c1", Quota::perSecond(5), 1, Micros{0}});
  QVERIFY(!d);
  QCOMPARE(d.error().code, ErrorCode::InvalidArgument);
}

void RedisClusterTest::routerSpreadsKeysOverMasters() {
  auto router = ClusterRouter::connect(cluster_->endpoint());
  QVERIFY(router);
  QCOMPARE((*router)->map().masters().size(), std::size_t{3});
  QCOMPARE((*router)->map().coveredSlots(), kClusterSlots);
  std::vector<int> perMaster(3, 0);
  for (int i = 0; i < 60; ++i) {
    const std::string key = "spread:" + std::to_string(i);
    const std::string_view set[] = {"SET", key, std::to_string(i)};
    QVERIFY((*router)->command(key, set));
    ++perMaster[static_cast<std::size_t>((*router)->map().masterOf(keySlot(key)))];
  }
  for (int i = 0; i < 3; ++i) {
    auto c = (*router)->master(i);
    QVERIFY(c);
    auto n = (*c)->command({"DBSIZE"});
    QVERIFY(n);
    QVERIFY(perMaster[static_cast<std::size_t>(i)] > 0);
    QCOMPARE(static_cast<int>(n->integer()), perMaster[static_cast<std::size_t>(i)]);
  }
  QCOMPARE((*router)->moved(), std::int64_t{0});
}

void RedisClusterTest::inspectorScansAndDeletesOnEveryMaster() {
  // 30 keys in 15 slots (two per hash tag): the link scans every master and
  // names each key's node and slot; a DEL per slot deletes them all.
  auto link = RedisLink::connect(cluster_->endpoint());
  QVERIFY(link);
  ClusterRouter* router = link->router();
  QVERIFY(router != nullptr);
  std::vector<std::string> names;
  for (int i = 0; i < 15; ++i)
    for (const char* suffix : {"", ":1"}) {
      names.push_back("insp:{c" + std::to_string(i) + "}" + suffix);
      const std::string_view set[] = {"SET", names.back(), "1", "PX", "60000"};
      QVERIFY(router->command(names.back(), set));
    }
  auto keys = scanAllLimiterKeys(*link, "insp:");
  QVERIFY(keys);
  QCOMPARE(keys->size(), names.size());
  std::set<std::string> nodes;
  for (const KeyInfo& k : *keys) {
    QCOMPARE(k.slot, keySlot(k.name));
    QCOMPARE(k.node, router->map().masters()[static_cast<std::size_t>(router->map().masterOf(k.slot))].address());
    QVERIFY(k.pttlMs > 0);
    nodes.insert(k.node);
  }
  QCOMPARE(nodes.size(), std::size_t{3});
  // One key outside the prefix: nothing is deleted.
  std::vector<std::string> withOutsider = names;
  withOutsider.push_back("spread:0");
  auto refused = deleteKeys(*link, "insp:", withOutsider);
  QVERIFY(!refused);
  QCOMPARE(refused.error().code, ErrorCode::InvalidArgument);
  QCOMPARE(scanAllLimiterKeys(*link, "insp:")->size(), names.size());
  auto deleted = deleteKeys(*link, "insp:", names);
  QVERIFY2(deleted, deleted ? "" : deleted.error().message.c_str());
  QCOMPARE(*deleted, static_cast<std::int64_t>(names.size()));
  QVERIFY(scanAllLimiterKeys(*link, "insp:")->empty());
}

void RedisClusterTest::sameCountsAsOneNode_data() {
  QTest::addColumn<int>("algorithm");
  QTest::addColumn<int>("backend");
  for (Algorithm a : kAllAlgorithms)
    QTest::newRow((std::string(algorithmName(a)) + " lua").c_str()) << int(a) << int(Backend::RedisLua);
  QTest::newRow("token_bucket naive") << int(Algorithm::TokenBucket) << int(Backend::RedisNaive);
  QTest::newRow("sliding_counter watch") << int(Algorithm::SlidingCounter) << int(Backend::RedisWatch);
}

void RedisClusterTest::sameCountsAsOneNode() {
  // The same virtual-clock storm (6 clients over every master, 2 replicas,
  // poisson arrivals) on one node and on the cluster: the same decisions.
  QFETCH(int, algorithm);
  QFETCH(int, backend);
  StormSpec s;
  s.backend = static_cast<Backend>(backend);
  s.clock = ClockMode::Virtual;
  s.algorithms = {static_cast<Algorithm>(algorithm)};
  s.quota = Quota::perWindow(8, kSecond);
  s.pattern = Pattern::Poisson;
  s.rate = 120;
  s.duration = Micros{4'000'000};
  s.replicas = 2;
  s.clients = 6;
  s.concurrency = 3;
  s.runTag = "parity-" + std::to_string(algorithm) + "-" + std::to_string(backend) + "-";
  auto one = runStorm(s, redisStoreFactory(s, single_->storeOptions("").endpoint), {}, storeRetries);
  auto many = runStorm(s, redisStoreFactory(s, cluster_->endpoint()), {}, storeRetries);
  QVERIFY(one && !one->failure);
  QVERIFY2(many && !many->failure, many ? many->failure->message.c_str() : many.error().message.c_str());
  QCOMPARE(many->records.size(), one->records.size());
  QVERIFY(one->counters[0].admitted > 0 && one->counters[0].denied > 0);  // the limit binds
  QCOMPARE(many->counters[0].admitted, one->counters[0].admitted);
  QCOMPARE(many->counters[0].denied, one->counters[0].denied);
  QCOMPARE(many->counters[0].errors, std::int64_t{0});
  for (std::size_t i = 0; i < one->records.size(); ++i) {
    QCOMPARE(many->records[i].allowed(), one->records[i].allowed());
    QCOMPARE(many->records[i].remaining(), one->records[i].remaining());
  }
}

void RedisClusterTest::scriptsReloadWhereLost() {
  auto made = RedisLuaStore::make(cluster_->storeOptions("reload:"));
  QVERIFY(made);
  RedisLuaStore& store = **made;
  ClusterRouter* router = store.link().router();
  QVERIFY(router);
  // Flush the scripts on every master; each client's next decision reloads on its node.
  for (int i = 0; i < 3; ++i) QVERIFY((*router->master(i))->command({"SCRIPT", "FLUSH"}));
  std::vector<bool> reloadedOn(3, false);
  for (int c = 0; c < 30; ++c) {
    const std::string client = "c" + std::to_string(c);
    auto d = store.decide(DecisionRequest{Algorithm::Gcra, client, Quota::perSecond(5), 1, Micros{0}});
    QVERIFY2(d, d ? "" : d.error().message.c_str());
    QVERIFY(d->allowed);
    reloadedOn[static_cast<std::size_t>(router->map().masterOf(keySlot(*clusterLimiterKey("reload:", Algorithm::Gcra, client))))] = true;
  }
  QVERIFY(reloadedOn[0] && reloadedOn[1] && reloadedOn[2]);
  QCOMPARE(store.scriptReloads(), std::int64_t{3});  // once per master, then EVALSHA works again
}

namespace {
// Moves `slot` from `from` to `to` (migration commands as redis-cli --cluster reshard sends them).
struct SlotMove {
  RedisConnection& from;
  RedisConnection& to;
  std::vector<RedisConnection*> all;
  int slot;
  std::string fromId, toId;
  bool begin() {
    return to.command({"CLUSTER", "SETSLOT", std::to_string(slot), "IMPORTING", fromId}).ok() &&
           from.command({"CLUSTER", "SETSLOT", std::to_string(slot), "MIGRATING", toId}).ok();
  }
  bool migrateKeys() {
    auto keys = from.command({"CLUSTER", "GETKEYSINSLOT", std::to_string(slot), "1000"});
    if (!keys) return false;
    for (std::size_t i = 0; i < keys->size(); ++i) {
      auto m = from.command({"MIGRATE", "127.0.0.1", std::to_string(to.endpoint().port), std::string((*keys)[i].str()),
                             "0", "2000"});
      if (!m) return false;
    }
    return true;
  }
  bool finish() {
    // The destination first, then the source (as redis-cli does): otherwise the source
    // answers MOVED to a node that still answers MOVED back while it is only importing.
    std::vector<RedisConnection*> order{&to, &from};
    for (RedisConnection* c : all)
      if (c != &to && c != &from) order.push_back(c);
    for (RedisConnection* c : order)
      if (!c->command({"CLUSTER", "SETSLOT", std::to_string(slot), "NODE", toId})) return false;
    return true;
  }
};

std::string idOf(RedisConnection& c) {
  auto r = c.command({"CLUSTER", "MYID"});
  return r ? std::string(r->str()) : std::string();
}
}  // namespace

void RedisClusterTest::movedAfterSlotMoves() {
  auto made = RedisLuaStore::make(cluster_->storeOptions("moved:"));
  QVERIFY(made);
  RedisLuaStore& store = **made;
  ClusterRouter& router = *store.link().router();
  const DecisionRequest req{Algorithm::TokenBucket, "m1", Quota::perSecond(5), 1, Micros{0}};
  QVERIFY(store.decide(req));
  const int slot = keySlot(*clusterLimiterKey("moved:", req.algorithm, req.client));
  const int src = router.map().masterOf(slot), dst = (src + 1) % 3;
  auto admin = ClusterRouter::connect(cluster_->endpoint());
  QVERIFY(admin);
  RedisConnection& from = **(*admin)->master(src);
  RedisConnection& to = **(*admin)->master(dst);
  SlotMove move{from, to, {*(*admin)->master(0), *(*admin)->master(1), *(*admin)->master(2)}, slot, idOf(from), idOf(to)};
  QVERIFY(move.begin() && move.migrateKeys() && move.finish());
  // The store still believes the old owner: it gets MOVED, follows it, and the state came along.
  auto d = store.decide(req);
  QVERIFY2(d, d ? "" : d.error().message.c_str());
  QCOMPARE(d->remaining, std::int64_t{3});  // 5 tokens, 2 taken
  QVERIFY(router.moved() >= 1);
  QCOMPARE(router.map().masters()[static_cast<std::size_t>(router.map().masterOf(slot))].port, to.endpoint().port);
}

void RedisClusterTest::askDuringMigrationLosesNothing() {
  // One client decides continuously (client clock, so a memory store can replay
  // it exactly) while its slot migrates: every decision equals the memory
  // store's, so none was lost (decided on a stale copy) or doubled.
  // fixed_window and sliding_counter name their window keys in KEYS: had they
  // touched an undeclared window key, the importing node would have counted a
  // fresh window (decisions doubled) and MIGRATE would have hit BUSYKEY.
  for (Algorithm a : kAllAlgorithms) {
    const std::string prefix = std::string("ask-") + std::string(algorithmName(a)) + ":";
    auto made = RedisLuaStore::make(cluster_->storeOptions(prefix, false));
    QVERIFY(made);
    RedisLuaStore& store = **made;
    const Quota q = Quota::perWindow(20, Micros{200'000});
    const int slot = keySlot(*clusterLimiterKey(prefix, a, "mig"));
    auto admin = ClusterRouter::connect(cluster_->endpoint());
    QVERIFY(admin);
    const int src = (*admin)->map().masterOf(slot), dst = (src + 2) % 3;
    RedisConnection& from = **(*admin)->master(src);
    RedisConnection& to = **(*admin)->master(dst);
    SlotMove move{from, to, {*(*admin)->master(0), *(*admin)->master(1), *(*admin)->master(2)}, slot, idOf(from), idOf(to)};
    std::atomic<int> phase{0};
    std::atomic<bool> moved{true};
    std::thread mover([&] {
      while (phase.load() < 1) std::this_thread::yield();
      moved = move.begin();
      std::this_thread::sleep_for(std::chrono::milliseconds(60));
      moved = moved && move.migrateKeys();
      std::this_thread::sleep_for(std::chrono::milliseconds(60));
      moved = moved && move.finish();
      phase = 2;
    });
    auto joinMover = qScopeGuard([&] {  // a failed check returns early: let the mover finish first
      phase.store(std::max(phase.load(), 1));
      if (mover.joinable()) mover.join();
    });
    MemoryStore truth;
    std::int64_t t = 1'000'000, decisions = 0, admitted = 0, afterMove = 0;
    while (phase.load() < 2 || afterMove++ < 50) {
      if (decisions == 50) phase.store(std::max(phase.load(), 1));
      const DecisionRequest req{a, "mig", q, 1, Micros{t}};
      auto d = store.decide(req);
      auto want = truth.decide(req);
      QVERIFY2(d, (std::string(algorithmName(a)) + ": " + (d ? "" : d.error().message)).c_str());
      QCOMPARE(d->allowed, want->allowed);
      QCOMPARE(d->remaining, want->remaining);
      admitted += d->allowed;
      ++decisions;
      t += 3'000;  // 3 ms apart in client time: about one in two is admitted
    }
    mover.join();
    QVERIFY(moved);
    QVERIFY2(store.link().router()->asked() > 0, "the migration produced no ASK: the test did not test it");
    QVERIFY(store.link().router()->moved() > 0);
    QVERIFY(admitted > 0 && admitted < decisions);
  }
}

void RedisClusterTest::notAClusterIsClear() {
  RedisEndpoint ep = single_->endpoint();
  ep.cluster = true;
  auto r = ClusterRouter::connect(ep);
  QVERIFY(!r);
  QCOMPARE(r.error().code, ErrorCode::InvalidArgument);
  QVERIFY(r.error().message.find("not in cluster mode") != std::string::npos);
}

void RedisClusterTest::windowKeysAreNamedInKeys() {
  // The window scripts touch only the keys they are given, and say which window
  // they are in when the caller named another (the server-clock guess was off).
  const Quota q = Quota::perWindow(10, kSecond);
  const DecisionRequest req{Algorithm::SlidingCounter, "w", q, 1, Micros{2'500'000}};
  const ScriptCall right = scriptCall(req, "win:{sliding_counter:w}", false);
  QCOMPARE(right.keys, (std::vector<std::string>{"win:{sliding_counter:w}:2000000", "win:{sliding_counter:w}:1000000"}));
  const ScriptCall wrong = scriptCall(req, "win:{sliding_counter:w}", false, std::int64_t{3'000'000});
  auto conn = RedisConnection::connect(single_->endpoint());
  QVERIFY(conn);
  for (Algorithm a : {Algorithm::FixedWindow, Algorithm::SlidingCounter}) {
    const DecisionRequest r{a, "w", q, 1, Micros{2'500'000}};
    const std::string base = limiterKey("win:", a, "w");
    const ScriptCall bad = scriptCall(r, base, false, std::int64_t{3'000'000});
    std::vector<std::string> cmd{"EVAL", luaScript(a), std::to_string(bad.keys.size())};
    cmd.insert(cmd.end(), bad.keys.begin(), bad.keys.end());
    cmd.insert(cmd.end(), bad.argv.begin(), bad.argv.end());
    auto refused = conn->command(cmd);
    QVERIFY(!refused);
    QCOMPARE(scriptWindowOf(refused.error().message), std::optional<std::int64_t>(2'000'000));
    auto none = conn->command({"KEYS", "win:*"});
    QVERIFY(none);
    QCOMPARE(none->size(), std::size_t{0});  // refused before touching anything
  }
  QCOMPARE(wrong.keys.front(), std::string("win:{sliding_counter:w}:3000000"));
}

void RedisClusterTest::serverClockCountsAsOneNode() {
  // The server clock (the scripts read TIME; the store names the window keys
  // from this machine's clock): a burst of 12 per client against a limit of 7
  // per hour admits exactly 7 for each of 6 clients, on one node and on the
  // cluster, for every algorithm.
  for (Algorithm a : kAllAlgorithms) {
    StormSpec s;
    s.backend = Backend::RedisLua;
    s.clock = ClockMode::Server;
    s.algorithms = {a};
    s.quota = Quota::perWindow(7, 3600 * kSecond);
    s.pattern = Pattern::Burst;
    s.requests = 72;
    s.clients = 6;
    s.replicas = 2;
    s.concurrency = 3;
    s.runTag = "server-" + std::string(algorithmName(a)) + "-";
    auto one = runStorm(s, redisStoreFactory(s, single_->storeOptions("").endpoint), {}, storeRetries);
    auto many = runStorm(s, redisStoreFactory(s, cluster_->endpoint()), {}, storeRetries);
    QVERIFY(one && !one->failure);
    QVERIFY2(many && !many->failure, many ? many->failure->message.c_str() : many.error().message.c_str());
    QCOMPARE(one->counters[0].admitted, std::int64_t{42});
    QCOMPARE(many->counters[0].admitted, one->counters[0].admitted);
    QCOMPARE(many->counters[0].denied, one->counters[0].denied);
    QCOMPARE(many->counters[0].errors, std::int64_t{0});
  }
}

QTEST_GUILESS_MAIN(RedisClusterTest)
#include "test_redis_cluster.moc"
