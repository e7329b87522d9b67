// MemoryStore: the decision contract through a store, TTL expiry, sweeping of
// expired keys, isolation between replicas, and thread safety.

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
  void replicasLeak();
  void threadsShareOneLimit();
  void clocks();
  void flatTableCollisionsAndRetain();
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

QTEST_APPLESS_MAIN(MemoryStoreTest)
#include "test_memory_store.moc"
