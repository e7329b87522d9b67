// MemoryStore: the decision contract through a store, TTL expiry, sweeping of
// expired keys, the bound on keys held, isolation between replicas, and thread safety.

#include <QtTest>

#include <thread>
#include <vector>

#include "clock/clock.hpp"
#include "store/flat_table.hpp"
#include "store/memory_store.hpp"

using namespace rl;

class MemoryStoreTest : public QObject {
  Q_OBJECT
 private slots:
  void keyScheme();
  void decidesAndExpires();
  void rejectsBadCost();
  void sweepsExpiredKeys();
  void boundedKeys();
  void replicasLeak();
  void threadsShareOneLimit();
  void clocks();
  void flatTableCollisionsAndRetain();
  void flatTableRemoveLowest();
};

void MemoryStoreTest::keyScheme() {
  QCOMPARE(limiterKey(kDefaultPrefix, Algorithm::TokenBucket, "alice"),
           std::string("ratelab:{token_bucket:alice}"));
}

void MemoryStoreTest::decidesAndExpires() {
  MemoryStore store;
  ManualClock clock(Micros{5'000'000});
  const Quota q = Quota::perSecond(1).withBurst(2);
  DecisionRequest r{Algorithm::TokenBucket, "c1", q, 1, clock.now()};
  QVERIFY(store.decide(r)->allowed);
  QVERIFY(store.decide(r)->allowed);
  QVERIFY(!store.decide(r)->allowed);
  // TTL = time to refill 2 tokens = 2 s.
  QCOMPARE(store.ttl(Algorithm::TokenBucket, "c1", clock.now()), std::optional<Micros>(Micros{2'000'000}));
  clock.advance(Micros{2'000'000});
  QCOMPARE(store.ttl(Algorithm::TokenBucket, "c1", clock.now()), std::nullopt);
  r.now = clock.now();
  const auto d = store.decide(r);
  QVERIFY(d->allowed);
  QCOMPARE(d->remaining, 1);
}

void MemoryStoreTest::rejectsBadCost() {
  MemoryStore store;
  DecisionRequest r{Algorithm::Gcra, "c", Quota::perSecond(5), 6, Micros{0}};
  const auto d = store.decide(r);
  QVERIFY(!d.ok());
  QCOMPARE(d.error().code, ErrorCode::InvalidArgument);
  QCOMPARE(store.size(), std::size_t{0});
}

void MemoryStoreTest::sweepsExpiredKeys() {
  MemoryStore store;
  const Quota q = Quota::perWindow(10, Micros{1'000'000});
  std::int64_t now = 0;
  // 200,000 distinct one-shot clients over 200 s: only about a second's worth may stay.
  for (int i = 0; i < 200'000; ++i) {
    now += 1'000;
    const std::string client = "k" + std::to_string(i);
    QVERIFY(store.decide({Algorithm::FixedWindow, client, q, 1, Micros{now}})->allowed);
  }
  QVERIFY2(store.size() < 70'000, qPrintable(QString::number(store.size())));
  QVERIFY(store.purgeExpired(Micros{now}) > 0);
  QVERIFY(store.size() <= 1'000);
  QCOMPARE(store.purgeExpired(Micros{now + 1'000'000}), store.size() == 0 ? std::size_t{0} : store.size());
  QCOMPARE(store.size(), std::size_t{0});
}

void MemoryStoreTest::boundedKeys() {
  // Issue 25: clients that name their own keys (serve's x-api-key) grew the store
  // by one key each until it expired: 300,000 minted keys, 473 MB.
  constexpr std::size_t kMax = 6400;  // 100 per shard
  MemoryStore store(kMax);
  const Quota q = Quota::perMinute(1).withBurst(2);  // spending 1 token: 60 s to fresh; 2 tokens: 120 s
  const Micros start{1'000'000'000'000};
  DecisionRequest drained{Algorithm::TokenBucket, "drained", q, 2, start};
  QVERIFY(store.decide(drained)->allowed);
  constexpr int kMinted = 20'000;
  for (int i = 0; i < kMinted; ++i) {
    const std::string key = "minted-" + std::to_string(i);
    QVERIFY(store.decide({Algorithm::TokenBucket, key, q, 1, start + Micros{i}})->allowed);
  }
  QVERIFY2(store.size() <= kMax, qPrintable(QString::number(store.size())));
  QVERIFY2(store.size() > kMax * 7 / 8, qPrintable(QString::number(store.size())));
  // Nothing expired: every key beyond the ones held was dropped and counted.
  QCOMPARE(store.evictedKeys(), std::int64_t{kMinted + 1} - static_cast<std::int64_t>(store.size()));
  // A drained client's state expires last in its shard: minting keys does not refill it.
  drained.cost = 1;
  drained.now = start + Micros{kMinted};
  QVERIFY(!store.decide(drained)->allowed);
  // Each shard drops the keys that expire soonest: the newest minted key is held, the first is not.
  QVERIFY(store.ttl(Algorithm::TokenBucket, "minted-19999", drained.now).has_value());
  QVERIFY(!store.ttl(Algorithm::TokenBucket, "minted-0", drained.now).has_value());

  // An hour on, every key has expired: those go to make room, no live key is dropped.
  const auto dropped = store.evictedKeys();
  for (int i = 0; i < 3'000; ++i) {
    const std::string key = "later-" + std::to_string(i);
    QVERIFY(store.decide({Algorithm::TokenBucket, key, q, 1, start + Micros{3600LL * 1'000'000 + i}})->allowed);
  }
  QCOMPARE(store.evictedKeys(), dropped);
  QVERIFY(store.size() <= kMax);

  // Unbounded (the default): every key is held until it expires.
  MemoryStore unbounded;
  for (int i = 0; i < kMinted; ++i) {
    const std::string key = "minted-" + std::to_string(i);
    QVERIFY(unbounded.decide({Algorithm::TokenBucket, key, q, 1, start})->allowed);
  }
  QCOMPARE(unbounded.size(), std::size_t{kMinted});
  QCOMPARE(unbounded.evictedKeys(), std::int64_t{0});
}

void MemoryStoreTest::replicasLeak() {
  // Four replicas, each with its own store: 4 x the limit passes.
  std::vector<MemoryStore> replicas(4);
  const Quota q = Quota::perWindow(100, Micros{60'000'000});
  int admitted = 0;
  for (int i = 0; i < 400; ++i)
    admitted += replicas[static_cast<std::size_t>(i % 4)].decide({Algorithm::FixedWindow, "c", q, 1, Micros{0}})->allowed;
  QCOMPARE(admitted, 400);
}

void MemoryStoreTest::threadsShareOneLimit() {
  MemoryStore store;
  const Quota q = Quota::perWindow(1000, Micros{60'000'000});
  std::atomic<int> admitted{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 1000; ++i)
        for (Algorithm a : kAllAlgorithms)
          if (store.decide({a, "shared", q, 1, Micros{1'000}})->allowed) ++admitted;
    });
  for (auto& th : threads) th.join();
  // Every algorithm admits exactly its limit of the 8000 simultaneous requests,
  // the leaky bucket included (one in service and limit - 1 waiting).
  QCOMPARE(admitted.load(), 6 * 1000);
}

void MemoryStoreTest::clocks() {
  ManualClock base(Micros{1'000});
  SkewedClock behind(base, Micros{-10'000'000});
  QCOMPARE(behind.now(), Micros{1'000 - 10'000'000});
  base.advance(Micros{5});
  QCOMPARE(behind.now(), Micros{1'005 - 10'000'000});
  VirtualClock v;
  QCOMPARE(v.advanceTo(Micros{50}), Micros{50});
  QCOMPARE(v.advanceTo(Micros{20}), Micros{50});
  QCOMPARE(v.now(), Micros{50});
  SystemClock sys;
  QVERIFY(sys.now() > Micros{1'600'000'000'000'000});
}

void MemoryStoreTest::flatTableCollisionsAndRetain() {
  // Every key on the same hash: lookups must still compare keys and find each one.
  detail::FlatTable<int> t;
  for (int i = 0; i < 1000; ++i) t.insert(42, "key-" + std::to_string(i), i);
  QCOMPARE(t.size(), std::size_t{1000});
  for (int i = 0; i < 1000; ++i) {
    const int* v = t.find(42, "key-" + std::to_string(i));
    QVERIFY(v != nullptr);
    QCOMPARE(*v, i);
  }
  QVERIFY(t.find(42, "key-1000") == nullptr);
  QCOMPARE(t.retain([](int) { return true; }), std::size_t{0});
  QCOMPARE(t.size(), std::size_t{1000});
  QCOMPARE(t.retain([](int v) { return v % 3 == 0; }), std::size_t{666});
  QCOMPARE(t.size(), std::size_t{334});
  QVERIFY(t.find(42, "key-1") == nullptr);
  QCOMPARE(*t.find(42, "key-999"), 999);
  // Keys longer than the 15 inline bytes live on the heap and survive rebuilds.
  const std::string longKey(100, 'x');
  t.insert(7, longKey, -1);
  QCOMPARE(t.retain([](int v) { return v != 0; }), std::size_t{1});  // drops key-0
  QCOMPARE(*t.find(7, longKey), -1);
  QVERIFY(t.find(7, std::string(99, 'x')) == nullptr);
}

void MemoryStoreTest::flatTableRemoveLowest() {
  detail::FlatTable<int> t;
  for (int i = 0; i < 100; ++i) t.insert(static_cast<std::uint64_t>(i) * 0x9E3779B97F4A7C15ULL, "k" + std::to_string(i), i);
  for (int i = 0; i < 10; ++i) t.insert(static_cast<std::uint64_t>(i + 1000) * 0x9E3779B97F4A7C15ULL, "five-" + std::to_string(i), 5);
  const auto identity = [](int v) { return v; };
  // 0..4 go, then 3 of the 11 values ranked 5: exactly 8 removed, ties cut exactly.
  QCOMPARE(t.removeLowest(8, identity), std::size_t{8});
  QCOMPARE(t.size(), std::size_t{102});
  for (int i = 0; i < 5; ++i) QVERIFY(t.find(static_cast<std::uint64_t>(i) * 0x9E3779B97F4A7C15ULL, "k" + std::to_string(i)) == nullptr);
  int fives = t.find(5 * 0x9E3779B97F4A7C15ULL, "k5") != nullptr;
  for (int i = 0; i < 10; ++i)
    fives += t.find(static_cast<std::uint64_t>(i + 1000) * 0x9E3779B97F4A7C15ULL, "five-" + std::to_string(i)) != nullptr;
  QCOMPARE(fives, 8);
  QCOMPARE(*t.find(99 * 0x9E3779B97F4A7C15ULL, "k99"), 99);
  QCOMPARE(t.removeLowest(0, identity), std::size_t{0});
  QCOMPARE(t.removeLowest(1000, identity), std::size_t{102});
  QCOMPARE(t.size(), std::size_t{0});
  t.insert(1, "again", 1);  // still usable after being emptied
  QCOMPARE(*t.find(1, "again"), 1);
}

QTEST_APPLESS_MAIN(MemoryStoreTest)
#include "test_memory_store.moc"
