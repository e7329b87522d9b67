// Redis stores against a live redis-server: TTLs on every write (and no key
// left after the bound), NOSCRIPT recovery, bad input, the key inspector, and
// MEMORY USAGE per algorithm.

#include <QtTest>

#include <thread>

#include "redis/key_inspector.hpp"
#include "redis/lua_scripts.hpp"
#include "redis/redis_store.hpp"
#include "support/redis_test_server.hpp"

using namespace rl;

namespace {
const Backend kBackends[] = {Backend::RedisLua, Backend::RedisNaive, Backend::RedisWatch};

// The longest TTL a write can set for `q`, in us (see each algorithm's Step::ttl).
std::int64_t ttlBound(Algorithm a, const Quota& q) {
  const std::int64_t w = q.window.count(), iv = q.interval().count();
  switch (a) {
    case Algorithm::FixedWindow:
    case Algorithm::SlidingLog: return w;
    case Algorithm::SlidingCounter: return 2 * w;
    case Algorithm::TokenBucket:
    case Algorithm::Gcra: return q.limit * iv;
    case Algorithm::LeakyBucket: return (q.limit + 1) * iv;
  }
  return 0;
}

// Capacity 1, refill 3/s; the window algorithms get 1 per 333 ms.
Quota tightQuota(Algorithm a) {
  // leaky_bucket's limit counts the request in service too: 2 keeps one waiting, as the others' 1 does.
  if (a == Algorithm::LeakyBucket) return Quota::perSecond(3).withBurst(2);
  return isRateBased(a) ? Quota::perSecond(3).withBurst(1) : Quota::perWindow(1, 333 * kMillisecond);
}

std::unique_ptr<Store> makeStore(const test::RedisTestServer& redis, Backend b, const std::string& prefix) {
  auto s = makeRedisStore(b, redis.storeOptions(prefix));
  return s ? std::move(s).value() : nullptr;
}
}  // namespace

class RedisStoresTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase();
  void everyWriteSetsBoundedTtl();
  void survivesScriptFlush();
  void rejectsBadInput();
  void rejectsNonRedisBackend();
  void inspectsKeys();
  void deleteRefusesOutsidePrefix();
  void memoryUsagePerAlgorithm();

 private:
  std::unique_ptr<test::RedisTestServer> redis_;
};

void RedisStoresTest::initTestCase() {
  redis_ = std::make_unique<test::RedisTestServer>();
  RL_REQUIRE_REDIS(*redis_);
}

// Server time in ms (TIME), for expiry checks that do not race the clock.
std::int64_t serverMillis(RedisConnection& c) {
  auto t = c.command({"TIME"});
  return t ? (*t)[0].toInt().value_or(0) * 1000 + (*t)[1].toInt().value_or(0) / 1000 : 0;
}

void RedisStoresTest::everyWriteSetsBoundedTtl() {
  // PTTL is "time left", which a busy machine erodes between write and check;
  // PEXPIRETIME (absolute, ms) against server TIME read just before and after
  // the decision checks the same bound without racing the clock:
  //   before <= expiry (the key lives past the write) and expiry <= after + bound.
  auto conn = redis_->connect();
  QVERIFY(conn.ok());
  std::vector<std::unique_ptr<Store>> stores;
  for (Backend b : kBackends) {
    stores.push_back(makeStore(*redis_, b, "ttl:" + std::to_string(static_cast<int>(b)) + ":"));
    QVERIFY(stores.back());
  }
  int writes = 0, checked = 0;
  for (int step = 0; step < 8; ++step) {
    for (auto& store : stores) {
      for (Algorithm a : kAllAlgorithms) {
        const Quota q = tightQuota(a);
        const std::int64_t before = serverMillis(*conn);
        auto d = store->decide({a, "c", q, 1, Micros{0}});
        const std::int64_t after = serverMillis(*conn) + 1;
        QVERIFY2(d.ok(), d.ok() ? "" : d.error().message.c_str());
        if (d->allowed) ++writes;
        const auto prefix = static_cast<const RedisStoreBase&>(*store).options().prefix;
        auto keys = scanAllLimiterKeys(*conn, prefix, "{" + std::string(algorithmName(a)) + ":c}*");
        QVERIFY(keys.ok());
        QVERIFY2(!keys->empty() || !d->allowed, "an admitted request left no key");
        const std::int64_t boundMs = ceilMillis(Micros{ttlBound(a, q)});
        for (const auto& k : *keys) {
          const auto expiry = conn->command({"PEXPIRETIME", k.name})->integer();
          if (expiry == -2) continue;  // expired since the scan
          ++checked;
          QVERIFY2(expiry >= before && expiry <= after + boundMs,
                   qPrintable(QString("%1 expires at %2 ms; written between %3 and %4 ms, bound %5 ms")
                                  .arg(k.name.c_str()).arg(expiry).arg(before).arg(after).arg(boundMs)));
        }
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(60));  // some requests denied, some refilled
  }
  QVERIFY(writes >= 3 * 6 * 2);
  QVERIFY(checked >= writes);
  // Longest bound: sliding_counter, 2 x 333 ms; leaky bucket 2 x 333.3 ms. Wait it out, with margin.
  std::this_thread::sleep_for(std::chrono::milliseconds(900));
  auto left = scanAllLimiterKeys(*conn, "ttl:");
  QVERIFY(left.ok());
  QVERIFY2(left->empty(), left->empty() ? "" : left->front().name.c_str());
}

void RedisStoresTest::survivesScriptFlush() {
  RedisStoreOptions o;
  o.endpoint = redis_->endpoint();
  o.prefix = "noscript:";
  auto store = RedisLuaStore::make(o);
  QVERIFY(store.ok());
  auto admin = redis_->connect();
  QVERIFY(admin.ok());
  const Quota q = Quota::perMinute(1000);
  int flushes = 0, admitted = 0;
  for (int i = 0; i < 300; ++i) {
    if (i % 50 == 25) {
      QVERIFY(admin->command({"SCRIPT", "FLUSH"}).ok());
      ++flushes;
    }
    const Algorithm a = kAllAlgorithms[static_cast<std::size_t>(i) % kAllAlgorithms.size()];
    auto d = (*store)->decide({a, "c", q, 1, Micros{0}});
    QVERIFY2(d.ok(), d.ok() ? "" : d.error().message.c_str());
    admitted += d->allowed;
  }
  QCOMPARE(flushes, 6);
  QCOMPARE((*store)->scriptReloads(), 6);  // one EVAL fallback per flush, then SCRIPT LOAD again
  QCOMPARE(admitted, 300);
}

void RedisStoresTest::rejectsBadInput() {
  for (Backend b : kBackends) {
    auto store = makeStore(*redis_, b, "bad:");
    QVERIFY(store);
    auto cost = store->decide({Algorithm::Gcra, "c", Quota::perSecond(5), 6, Micros{0}});
    QVERIFY(!cost.ok());
    QCOMPARE(cost.error().code, ErrorCode::InvalidArgument);
    QCOMPARE(QString::fromStdString(cost.error().message), QString("cost 6 is out of range: allowed 1 to 5 (the limit)"));
    auto limit = store->decide({Algorithm::FixedWindow, "c", Quota::perSecond(0), 1, Micros{0}});
    QVERIFY(!limit.ok());
    QVERIFY(limit.error().message.starts_with("limit 0 is out of range"));
    auto huge = store->decide({Algorithm::SlidingCounter, "c", Quota::perWindow(1'000'000'000, 3600 * kSecond), 1, Micros{0}});
    QVERIFY(!huge.ok());
    QVERIFY2(huge.error().message.find("2^53") != std::string::npos, huge.error().message.c_str());
  }
  auto conn = redis_->connect();
  QVERIFY(scanAllLimiterKeys(*conn, "bad:")->empty());  // nothing was written
}

void RedisStoresTest::rejectsNonRedisBackend() {
  RedisStoreOptions o;
  o.endpoint = redis_->endpoint();
  auto s = makeRedisStore(Backend::Memory, o);
  QVERIFY(!s.ok());
  QCOMPARE(s.error().code, ErrorCode::InvalidArgument);
  QVERIFY(s.error().message.find("redis-lua, redis-naive, redis-watch") != std::string::npos);
  o.watchRetries = 0;
  auto retries = makeRedisStore(Backend::RedisWatch, o);
  QVERIFY(!retries.ok());
  QCOMPARE(QString::fromStdString(retries.error().message),
           QString("watch retries 0 is out of range: allowed 1 or more"));
  o.watchRetries = 100;
  o.thinkTime = Micros{-1};
  auto think = makeRedisStore(Backend::RedisNaive, o);
  QVERIFY(!think.ok());
  QCOMPARE(QString::fromStdString(think.error().message),
           QString("think time -1 us is out of range: allowed 0 to 10000000 us (10 s)"));
}

void RedisStoresTest::inspectsKeys() {
  const std::string prefix = "insp[1]*:";  // glob characters are matched literally
  auto store = makeStore(*redis_, Backend::RedisLua, prefix);
  QVERIFY(store);
  auto conn = redis_->connect();
  QVERIFY(conn->command({"SET", "insp[1]-other", "x"}).ok());  // near miss: not under the prefix
  const Quota q = Quota::perMinute(100);
  for (Algorithm a : kAllAlgorithms)
    for (int i = 0; i < 3; ++i) QVERIFY(store->decide({a, "alice", q, 2, Micros{0}})->allowed);
  auto keys = scanAllLimiterKeys(*conn, prefix);
  QVERIFY(keys.ok());
  QCOMPARE(keys->size(), std::size_t{6});  // one key each (sliding_counter: only the current window)
  for (const auto& k : *keys) {
    QVERIFY(k.name.starts_with(prefix + "{"));
    QVERIFY(k.pttlMs > 0 && k.pttlMs <= 120'000);
    QCOMPARE(QString::fromStdString(k.type), QString("string"));  // every RateLab state is one string
    if (k.name.find("{sliding_log:alice}") != std::string::npos) {
      QCOMPARE(k.value.size(), std::size_t{6 * 17});  // one 17-byte entry per unit of cost
      QCOMPARE(k.fields.size(), std::size_t{3});
      QCOMPARE(QString::fromStdString(k.fields[0].first + "=" + k.fields[0].second), QString("entries=6"));
      QCOMPARE(k.fields[1].second, k.value.substr(0, 16));  // oldest, as written
    } else if (k.name.find("{token_bucket:alice}") != std::string::npos) {
      QCOMPARE(k.fields.size(), std::size_t{2});
      QCOMPARE(QString::fromStdString(k.fields[0].first + "=" + k.fields[0].second), QString("tokens=94"));
      QCOMPARE(QString::fromStdString(k.fields[1].first), QString("ts"));
      QCOMPARE(QString::fromStdString(k.value), QString::fromStdString("94 " + k.fields[1].second));
    } else {
      QVERIFY(k.fields.empty());
      if (k.name.find("{fixed_window:alice}:") != std::string::npos) QCOMPARE(QString::fromStdString(k.value), QString("6"));
      if (k.name.find("{leaky_bucket:alice}") != std::string::npos) QVERIFY(std::stoll(k.value) > 0);  // the drain time
    }
  }
  auto page = scanLimiterKeys(*conn, prefix, "{gcra:*", 0, 0);
  QVERIFY(!page.ok());
  QCOMPARE(QString::fromStdString(page.error().message), QString("count 0 is out of range: allowed 1 to 100000"));
  auto gcra = scanAllLimiterKeys(*conn, prefix, "{gcra:*");
  QCOMPARE(gcra->size(), std::size_t{1});
  auto ttls = pttlOf(*conn, {gcra->front().name, "no-such-key"});
  QVERIFY(ttls.ok());
  QVERIFY(ttls->at(0) > 0);
  QCOMPARE(ttls->at(1), std::int64_t{-2});
}

void RedisStoresTest::deleteRefusesOutsidePrefix() {
  auto conn = redis_->connect();
  QVERIFY(conn->command({"SET", "del:keep", "1"}).ok());
  QVERIFY(conn->command({"SET", "other:keep", "1"}).ok());
  auto refused = deleteKeys(*conn, "del:", {"del:keep", "other:keep"});
  QVERIFY(!refused.ok());
  QCOMPARE(QString::fromStdString(refused.error().message),
           QString("refusing to delete 'other:keep': outside the prefix 'del:'"));
  QCOMPARE(conn->command({"EXISTS", "del:keep", "other:keep"})->integer(), 2);  // nothing deleted
  QVERIFY(!deleteKeys(*conn, "", {"del:keep"}).ok());
  auto done = deleteKeys(*conn, "del:", {"del:keep", "del:missing"});
  QCOMPARE(done.value(), std::int64_t{1});
}

void RedisStoresTest::memoryUsagePerAlgorithm() {
  // One client, 100 requests at limit 100 (per 60 s), server clock, redis-lua.
  auto store = makeStore(*redis_, Backend::RedisLua, "mem:");
  QVERIFY(store);
  auto conn = redis_->connect();
  const Quota q = Quota::perMinute(100);
  QString table = "\n| algorithm | keys | MEMORY USAGE (bytes) |\n|---|---|---|\n";
  for (Algorithm a : kAllAlgorithms) {
    int admitted = 0;
    for (int i = 0; i < 100; ++i) admitted += store->decide({a, "client-1", q, 1, Micros{0}})->allowed;
    QVERIFY(admitted >= 99);  // a fixed or sliding window may turn over once during the run
    auto keys = scanAllLimiterKeys(*conn, "mem:", "{" + std::string(algorithmName(a)) + ":*");
    QVERIFY(keys.ok() && !keys->empty());
    std::int64_t bytes = 0;
    for (const auto& k : *keys) {
      auto m = conn->command({"MEMORY", "USAGE", k.name, "SAMPLES", "0"});
      QVERIFY(m.ok() && m->integer() > 0);
      bytes += m->integer();
    }
    table += QString("| %1 | %2 | %3 |\n").arg(algorithmName(a).data()).arg(keys->size()).arg(bytes);
    if (a == Algorithm::SlidingLog) QVERIFY(bytes > 100 * 17);  // 100 log entries of 17 bytes
    else QVERIFY(bytes < 500);
  }
  qInfo("%s", qPrintable(table));
}

QTEST_GUILESS_MAIN(RedisStoresTest)
#include "test_redis_stores.moc"
