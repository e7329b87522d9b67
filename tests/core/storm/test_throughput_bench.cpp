// The throughput bench against a private redis-server. Speed is not asserted
// (a busy 2-core machine decides it); what is asserted is that the numbers
// are honest: on the redis-lua wire path every decision counted is one the
// server ran (the counters in Redis add up to it exactly) and every reply
// that is not a decision is counted as an error.

#include <QtTest>

#include <chrono>
#include <thread>

#include "redis/redis_connection.hpp"
#include "storm/throughput_bench.hpp"
#include "redis/command_stats.hpp"
#include "support/redis_test_server.hpp"
#include "support/checked.hpp"

using namespace rl;

class ThroughputBenchTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase();
  void wireDecisionsAreWhatRedisRan_data();
  void wireDecisionsAreWhatRedisRan();
  void errorRepliesAreCounted();
  void killedConnectionsAreErrors_data();
  void killedConnectionsAreErrors();
  void storePathForOtherBackends();
  void reportsRedisMicrosPerDecision_data();
  void reportsRedisMicrosPerDecision();
  void parsesCommandStats();

 private:
  Result<std::int64_t> sumOfCounters(const std::string& prefix);
  std::unique_ptr<test::RedisTestServer> redis_;
};

void ThroughputBenchTest::initTestCase() {
  redis_ = std::make_unique<test::RedisTestServer>();
  RL_REQUIRE_REDIS(*redis_);
}

// Sum of every fixed-window counter under `prefix` (a private server: KEYS is fine).
Result<std::int64_t> ThroughputBenchTest::sumOfCounters(const std::string& prefix) {
  auto c = redis_->connect();
  if (!c) return c.error();
  auto keys = c->command({"KEYS", prefix + "*"});
  if (!keys) return keys.error();
  std::int64_t sum = 0;
  for (std::size_t i = 0; i < keys->size(); ++i) {
    auto v = c->command({"GET", (*keys)[i].str()});
    if (!v || !v->toInt()) return protocolError("counter " + std::string((*keys)[i].str()) + " is not a number");
    sum += *v->toInt();
  }
  return sum;
}

void ThroughputBenchTest::wireDecisionsAreWhatRedisRan_data() {
  QTest::addColumn<int>("concurrency");
  QTest::addColumn<int>("pipeline");
  QTest::addColumn<int>("threads");
  QTest::addColumn<int>("expectedLoops");
  QTest::newRow("50 connections, default loops") << 50 << 1 << 0 << 2;
  QTest::newRow("50 connections, one loop") << 50 << 1 << 1 << 1;
  QTest::newRow("50 connections, one loop, pipeline 16") << 50 << 16 << 1 << 1;
  QTest::newRow("7 connections, 2 loops, pipeline 4") << 7 << 4 << 2 << 2;
  QTest::newRow("2 connections, more loops asked than connections") << 2 << 1 << 5 << 2;
}

// fixed_window with a limit nobody reaches: every decision admits and INCRs,
// so the counters in Redis sum to exactly the decisions the bench reports.
void ThroughputBenchTest::wireDecisionsAreWhatRedisRan() {
  QFETCH(int, concurrency);
  QFETCH(int, pipeline);
  QFETCH(int, threads);
  QFETCH(int, expectedLoops);
  BenchSpec s;
  s.backend = Backend::RedisLua;
  s.algorithms = {Algorithm::FixedWindow};
  s.quota = Quota::perWindow(1'000'000'000, 3600 * kSecond);
  s.concurrency = concurrency;
  s.pipeline = pipeline;
  s.threads = threads;
  s.duration = Micros{150'000};
  s.keysPerThread = 3;
  static int run = 0;
  s.prefix = "bench" + std::to_string(++run) + ":";
  RedisEndpoint ep = redis_->endpoint();
  ep.commandTimeout = Micros{2'000'000};
  auto r = runBench(s, ep);
  QVERIFY2(r.ok(), r.ok() ? "" : r.error().message.c_str());
  QCOMPARE(r->size(), std::size_t{1});
  const BenchResult& b = r->front();
  QVERIFY(b.wirePath);
  QCOMPARE(b.threads, expectedLoops);
  QCOMPARE(b.concurrency, concurrency);
  QCOMPARE(b.pipeline, pipeline);
  QCOMPARE(b.errors, std::int64_t{0});
  QVERIFY(b.decisions >= std::int64_t{concurrency} * pipeline);  // at least the first batch came back
  RL_CHECKED(counted, sumOfCounters(s.prefix));
  QCOMPARE(counted, b.decisions);
}

// Redis refusing every write (maxmemory 1 byte, noeviction): each EVALSHA
// answers an OOM error, and each one is an error in the result.
void ThroughputBenchTest::errorRepliesAreCounted() {
  auto admin = redis_->connect();
  QVERIFY(admin.ok());
  QVERIFY(admin->command({"CONFIG", "SET", "maxmemory-policy", "noeviction"}));
  QVERIFY(admin->command({"CONFIG", "SET", "maxmemory", "1"}));
  BenchSpec s;
  s.backend = Backend::RedisLua;
  s.concurrency = 4;
  s.pipeline = 2;
  s.duration = Micros{100'000};
  s.keysPerThread = 10;
  s.prefix = "oom:";
  auto r = runBench(s, redis_->endpoint());
  QVERIFY(admin->command({"CONFIG", "SET", "maxmemory", "0"}));
  QVERIFY2(r.ok(), r.ok() ? "" : r.error().message.c_str());
  QVERIFY(r->front().decisions >= 8);
  QCOMPARE(r->front().errors, r->front().decisions);
  RL_CHECKED(counted, sumOfCounters("oom:"));
  QCOMPARE(counted, std::int64_t{0});
}

void ThroughputBenchTest::killedConnectionsAreErrors_data() {
  QTest::addColumn<int>("pipeline");
  QTest::newRow("1 in flight") << 1;
  QTest::newRow("16 in flight") << 16;
}

// The server drops every bench connection mid-run: the bench ends on time with
// each connection's commands in flight (always exactly `pipeline`) as errors.
void ThroughputBenchTest::killedConnectionsAreErrors() {
  QFETCH(int, pipeline);
  BenchSpec s;
  s.backend = Backend::RedisLua;
  s.concurrency = 50;
  s.pipeline = pipeline;
  s.duration = Micros{1'500'000};
  s.keysPerThread = 1;
  s.prefix = "kill" + std::to_string(pipeline) + ":";
  RedisEndpoint ep = redis_->endpoint();
  ep.commandTimeout = Micros{2'000'000};
  std::optional<Result<std::vector<BenchResult>>> result;
  std::thread bench([&] { result.emplace(runBench(s, ep)); });
  auto admin = redis_->connect();
  QVERIFY(admin.ok());
  const std::string firstKey = limiterKey(s.prefix, Algorithm::TokenBucket, "bench-49-0");
  bool measuring = false;  // the last connection decided once: every connection is in the loop
  for (int i = 0; i < 10'000 && !measuring; ++i) {
    auto e = admin->command({"EXISTS", firstKey});
    measuring = e && e->integer() == 1;
    if (!measuring) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  auto killed = admin->command({"CLIENT", "KILL", "SKIPME", "yes", "TYPE", "normal"});
  bench.join();
  QVERIFY(measuring);
  QVERIFY(killed.ok());
  QCOMPARE(killed->integer(), std::int64_t{50});
  QVERIFY2(result->ok(), result->ok() ? "" : (*result).error().message.c_str());
  const BenchResult& b = (*result)->front();
  QCOMPARE(b.errors, std::int64_t{50} * pipeline);
  QVERIFY(b.decisions > b.errors);
}

// The other Redis variants keep the store path: one thread per connection.
void ThroughputBenchTest::storePathForOtherBackends() {
  BenchSpec s;
  s.backend = Backend::RedisNaive;
  s.concurrency = 3;
  s.duration = Micros{50'000};
  s.keysPerThread = 10;
  s.prefix = "naive:";
  RedisEndpoint ep = redis_->endpoint();
  ep.commandTimeout = Micros{2'000'000};
  auto r = runBench(s, ep);
  QVERIFY2(r.ok(), r.ok() ? "" : r.error().message.c_str());
  QVERIFY(!r->front().wirePath);
  QCOMPARE(r->front().threads, 3);
  QCOMPARE(r->front().errors, std::int64_t{0});
  QVERIFY(r->front().decisions > 0);
}

void ThroughputBenchTest::reportsRedisMicrosPerDecision_data() {
  QTest::addColumn<int>("backend");
  QTest::addColumn<bool>("serverClock");
  QTest::newRow("redis-lua, server clock") << static_cast<int>(Backend::RedisLua) << true;
  QTest::newRow("redis-lua, client clock") << static_cast<int>(Backend::RedisLua) << false;
  QTest::newRow("redis-naive") << static_cast<int>(Backend::RedisNaive) << true;
}

// The server's own time per decision (INFO commandstats delta) is measured and
// plausible: more than zero, less than the wall time each decision took.
void ThroughputBenchTest::reportsRedisMicrosPerDecision() {
  QFETCH(int, backend);
  QFETCH(bool, serverClock);
  BenchSpec s;
  s.backend = static_cast<Backend>(backend);
  s.algorithms = {Algorithm::TokenBucket, Algorithm::SlidingLog};
  s.serverClock = serverClock;
  s.concurrency = 2;
  s.duration = Micros{100'000};
  s.keysPerThread = 50;
  s.prefix = "cost" + std::to_string(backend) + (serverClock ? "s:" : "c:");
  auto r = runBench(s, redis_->endpoint());
  QVERIFY2(r.ok(), r.ok() ? "" : r.error().message.c_str());
  QCOMPARE(r->size(), std::size_t{2});
  for (const BenchResult& b : *r) {
    QCOMPARE(b.errors, std::int64_t{0});
    const double wallPerDecision = static_cast<double>(b.elapsed.count()) * s.concurrency / static_cast<double>(b.decisions);
    QVERIFY2(b.redisMicros > 0 && b.redisMicros < wallPerDecision,
             qPrintable(QString("%1 us per decision in Redis, %2 us wall").arg(b.redisMicros).arg(wallPerDecision)));
  }
}

void ThroughputBenchTest::parsesCommandStats() {
  const std::string before =
      "# Commandstats\r\ncmdstat_evalsha:calls=10,usec=100,usec_per_call=10.00,rejected_calls=0,failed_calls=0\r\n"
      "cmdstat_get:calls=30,usec=30,usec_per_call=1.00,rejected_calls=0,failed_calls=0\r\n";
  const std::string after =
      "# Commandstats\r\ncmdstat_evalsha:calls=20,usec=180,usec_per_call=9.00,rejected_calls=0,failed_calls=0\r\n"
      "cmdstat_get:calls=60,usec=70,usec_per_call=1.17,rejected_calls=0,failed_calls=0\r\n"
      "cmdstat_info:calls=2,usec=50,usec_per_call=25.00,rejected_calls=0,failed_calls=0\r\n";
  auto b = parseCommandStats(before);
  auto a = parseCommandStats(after);
  QVERIFY(b.ok() && a.ok());
  QCOMPARE(a->at("evalsha").calls, std::int64_t{20});
  QCOMPARE(a->at("get").usec, std::int64_t{70});
  // Scripts ran: their time is the decision's (the GETs inside them are part of it).
  QCOMPARE(redisMicrosPerDecision(*b, *a, 10), 8.0);
  // No script: every command but INFO.
  auto noScripts = parseCommandStats("cmdstat_get:calls=60,usec=70\r\ncmdstat_set:calls=5,usec=30\r\n");
  QCOMPARE(redisMicrosPerDecision(CommandStats{}, *noScripts, 4), 25.0);
  QCOMPARE(redisMicrosPerDecision(*b, *a, 0), 0.0);
  auto bad = parseCommandStats("cmdstat_get:calls=x,usec=1\r\n");
  QVERIFY(!bad.ok());
  QCOMPARE(QString::fromStdString(bad.error().message),
           QString("INFO commandstats line without calls/usec: cmdstat_get:calls=x,usec=1"));
}

QTEST_GUILESS_MAIN(ThroughputBenchTest)
#include "test_throughput_bench.moc"
