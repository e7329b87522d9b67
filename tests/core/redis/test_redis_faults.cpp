// Redis faults through the one failure policy, against real redis-servers:
// error replies map to codes (OOM, READONLY, ...), OOM and READONLY go through
// the policy for every Redis store (open admits, closed denies, local decides
// from the replica's memory) and count as errors; a paused server (SIGSTOP)
// costs one call the command timeout, then the circuit fails fast until a
// probe gets PONG.

#include <QtTest>

#include <chrono>
#include <thread>

#include "redis/redis_store.hpp"
#include "store/failure_policy.hpp"
#include "store/memory_store.hpp"
#include "support/redis_test_server.hpp"

using namespace rl;

namespace {
using SteadyClock = std::chrono::steady_clock;
constexpr std::int64_t kLimit = 5;

std::int64_t msSince(SteadyClock::time_point t0) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(SteadyClock::now() - t0).count();
}
}  // namespace

class RedisFaultsTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase();
  void cleanupTestCase();
  void replyErrorCodes_data();
  void replyErrorCodes();
  void outageThroughPolicy_data();
  void outageThroughPolicy();
  void pauseFailsFast();

 private:
  Result<void> setFault(const std::string& fault, bool on);
  std::unique_ptr<test::RedisTestServer> redis_;    // the faulted server
  std::unique_ptr<test::RedisTestServer> master_;   // READONLY: the server redis_ replicates
  std::optional<RedisConnection> admin_;            // CONFIG SET / REPLICAOF on redis_
};

void RedisFaultsTest::initTestCase() {
  redis_ = std::make_unique<test::RedisTestServer>();
  master_ = std::make_unique<test::RedisTestServer>();
  RL_REQUIRE_REDIS(*redis_);
  RL_REQUIRE_REDIS(*master_);
  auto c = redis_->connect();
  QVERIFY(c.ok());
  admin_.emplace(std::move(c).value());
}

void RedisFaultsTest::cleanupTestCase() {
  admin_.reset();
  redis_.reset();
  master_.reset();
}

Result<void> RedisFaultsTest::setFault(const std::string& fault, bool on) {
  Result<RedisReply> r = Error{};
  if (fault == "oom")
    r = admin_->command({"CONFIG", "SET", "maxmemory", on ? "1" : "0"});
  else if (on)
    r = admin_->command({"REPLICAOF", "127.0.0.1", std::to_string(master_->endpoint().port)});
  else
    r = admin_->command({"REPLICAOF", "NO", "ONE"});
  if (!r) return r.error();
  return {};
}

void RedisFaultsTest::replyErrorCodes_data() {
  QTest::addColumn<QString>("reply");
  QTest::addColumn<int>("code");
  QTest::newRow("oom") << "OOM command not allowed when used memory > 'maxmemory'." << int(ErrorCode::OutOfMemory);
  QTest::newRow("oom in a script") << "OOM command not allowed when used memory > 'maxmemory'. script: 67ed, on "
                                      "@user_script:1." << int(ErrorCode::OutOfMemory);
  QTest::newRow("readonly") << "READONLY You can't write against a read only replica." << int(ErrorCode::ReadOnly);
  QTest::newRow("loading") << "LOADING Redis is loading the dataset in memory" << int(ErrorCode::Unavailable);
  QTest::newRow("busy script") << "BUSY Redis is busy running a script." << int(ErrorCode::Unavailable);
  QTest::newRow("masterdown") << "MASTERDOWN Link with MASTER is down" << int(ErrorCode::Unavailable);
  QTest::newRow("script error") << "ERR Error running script (call to f_1): @user_script:3: bad" << int(ErrorCode::Protocol);
  QTest::newRow("noscript") << "NOSCRIPT No matching script." << int(ErrorCode::Protocol);
  QTest::newRow("wrongtype") << "WRONGTYPE Operation against a key holding the wrong kind of value" << int(ErrorCode::Protocol);
  QTest::newRow("OOMish word") << "OOMPH not a code" << int(ErrorCode::Protocol);
  QTest::newRow("empty") << "" << int(ErrorCode::Protocol);
}

void RedisFaultsTest::replyErrorCodes() {
  QFETCH(QString, reply);
  QFETCH(int, code);
  const std::string text = reply.toStdString();
  const Error e = redisReplyError(text, "EVALSHA");
  QCOMPARE(int(e.code), code);
  QCOMPARE(e.message, "EVALSHA: " + text);
}

void RedisFaultsTest::outageThroughPolicy_data() {
  QTest::addColumn<int>("backend");
  QTest::addColumn<QString>("fault");
  QTest::addColumn<int>("code");
  for (auto [b, name] : {std::pair{Backend::RedisLua, "lua"}, {Backend::RedisNaive, "naive"}, {Backend::RedisWatch, "watch"}}) {
    QTest::addRow("%s oom", name) << int(b) << "oom" << int(ErrorCode::OutOfMemory);
    QTest::addRow("%s readonly", name) << int(b) << "readonly" << int(ErrorCode::ReadOnly);
  }
}

void RedisFaultsTest::outageThroughPolicy() {
  QFETCH(int, backend);
  QFETCH(QString, fault);
  QFETCH(int, code);
  const std::string faultName = fault.toStdString();
  auto made = makeRedisStore(static_cast<Backend>(backend), redis_->storeOptions("faults:" + faultName + ":"));
  QVERIFY2(made.ok(), made.ok() ? "" : made.error().message.c_str());
  Store& store = **made;
  const Quota q = Quota::perMinute(kLimit);
  const DecisionRequest req{Algorithm::FixedWindow, "c" + std::to_string(backend), q, 1, Micros{0}};
  QVERIFY(store.decide(req).ok());  // healthy first: 1 of kLimit used in Redis

  QVERIFY(setFault(faultName, true).ok());
  // REPLICAOF syncs from the master first (LOADING for a moment): wait for the fault's own code.
  Result<Decision> raw = Error{};
  const auto t0 = SteadyClock::now();
  do {
    raw = store.decide(req);
  } while (!raw.ok() && raw.error().code != ErrorCode(code) && msSince(t0) < 5000);
  QVERIFY(!raw.ok());
  QCOMPARE(int(raw.error().code), code);
  QCOMPARE(classifyStoreError(raw.error()), StoreErrorClass::Outage);

  for (FailurePolicy policy : {FailurePolicy::Open, FailurePolicy::Closed, FailurePolicy::Local}) {
    MemoryStore local;
    int admitted = 0, byPolicy = 0;
    for (int i = 0; i < kLimit + 3; ++i) {
      auto d = decideWithPolicy(store, req, policy, kPolicyRetryAfter, &local);
      QVERIFY2(d.ok(), d.ok() ? "" : d.error().message.c_str());
      admitted += d->decision.allowed;
      byPolicy += d->byPolicy;
      if (policy == FailurePolicy::Closed) QCOMPARE(d->decision.retryAfter, kPolicyRetryAfter);
    }
    QCOMPARE(byPolicy, kLimit + 3);  // every decision during the fault is an error the policy decided
    const int expected = policy == FailurePolicy::Open ? kLimit + 3 : policy == FailurePolicy::Closed ? 0 : kLimit;
    QCOMPARE(admitted, expected);
  }
  QVERIFY(setFault(faultName, false).ok());
  auto back = store.decide(req);
  QVERIFY2(back.ok(), back.ok() ? "" : back.error().message.c_str());
}

void RedisFaultsTest::pauseFailsFast() {
  test::RedisTestServer redis;  // its own server: this test freezes it
  RL_REQUIRE_REDIS(redis);
  RedisStoreOptions o;
  o.endpoint = redis.endpoint();  // 100 ms command timeout
  o.prefix = "pause:";
  auto made = makeRedisStore(Backend::RedisLua, o);
  QVERIFY(made.ok());
  Store& store = **made;
  const DecisionRequest req{Algorithm::TokenBucket, "c", Quota::perMinute(100000), 1, Micros{0}};
  QVERIFY(store.decide(req).ok());

  QVERIFY(redis.server().pause().ok());
  std::int64_t maxMs = 0, slow = 0, errors = 0, decisions = 0, timeouts = 0;
  const auto t0 = SteadyClock::now();
  while (msSince(t0) < 1500) {  // 1.5 s of pause at about 200 decisions per second
    const auto t = SteadyClock::now();
    auto d = store.decide(req);
    const std::int64_t ms = msSince(t);
    maxMs = std::max(maxMs, ms);
    slow += ms > 50;  // probes wait at most 20 ms; only the first call waits for the 100 ms timeout
    ++decisions;
    errors += !d.ok();
    if (!d.ok()) {
      timeouts += d.error().code == ErrorCode::Timeout;
      QCOMPARE(classifyStoreError(d.error()), StoreErrorClass::Outage);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  QVERIFY(redis.server().resume().ok());
  qInfo("1.5 s SIGSTOP: %lld decisions, %lld errors (%lld timeouts), %lld slower than 50 ms, max %lld ms",
        static_cast<long long>(decisions), static_cast<long long>(errors), static_cast<long long>(timeouts),
        static_cast<long long>(slow), static_cast<long long>(maxMs));
  QCOMPARE(errors, decisions);  // nothing answered: every decision is an error
  QCOMPARE(timeouts, std::int64_t{1});  // only the first call waited for the timeout
  QVERIFY2(maxMs < 400, "a decision during the pause took longer than the timeout + slack");
  QVERIFY2(slow <= 2, "the circuit did not fail fast");

  // After SIGCONT a probe gets PONG within the largest backoff (250 ms) + slack.
  const auto r0 = SteadyClock::now();
  bool back = false;
  while (!back && msSince(r0) < 3000) {
    back = store.decide(req).ok();
    if (!back) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  QVERIFY(back);
  qInfo("recovered %lld ms after SIGCONT", static_cast<long long>(msSince(r0)));
  QVERIFY(static_cast<RedisStoreBase&>(store).reconnects() >= 1);
}

QTEST_GUILESS_MAIN(RedisFaultsTest)
#include "test_redis_faults.moc"
