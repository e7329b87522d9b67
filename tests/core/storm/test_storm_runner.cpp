// The storm runner on the memory backend: replica leak, boundary and burst
// tolerance on the virtual clock with exact numbers, determinism across
// concurrency, incremental record taking, live quota changes, cancellation
// and store failures.

#include <QtTest>

#include <atomic>
#include <chrono>
#include <thread>

#include "metrics/storm_metrics.hpp"
#include "storm/compared_runs.hpp"
#include "storm/model_replay.hpp"
#include "storm/storm_settings.hpp"
#include "storm/store_factory.hpp"
#include "store/memory_store.hpp"
#include "trace/trace.hpp"
#include "support/checked.hpp"

using namespace rl;

namespace {

Result<StormSpec> scenario(const char* name) {
  return loadScenario(std::string(RATELAB_SOURCE_DIR) + "/resources/scenarios/" + name + ".json");
}

struct Run {
  StormOutcome outcome;
  std::vector<AlgorithmMetrics> metrics;
};

Result<Run> run(const StormSpec& spec) {
  auto o = runStorm(spec, memoryStoreFactory(spec.replicas));
  if (!o) return o.error();
  auto m = computeMetrics(spec, o->records, o->wallDuration);
  return Run{std::move(o.value()), std::move(m)};
}

}  // namespace

class StormRunnerTest : public QObject {
  Q_OBJECT
 private slots:
  void replicaLeakOnMemory();
  void boundaryOnVirtualClock();
  void burstTolerance();
  void traceCostsReachTheStore();
  void virtualRunsAreDeterministic_data();
  void virtualRunsAreDeterministic();
  void takeRecordsHandsOutEachOnce();
  void setQuotaAppliesAndMarks();
  void cancelReturnsPromptly();
  void storeFailureEndsTheRun();
  void badSpecDoesNotStart();
  void skewShiftsTheReplicaClock();
  void httpStormModelsTheTargetOnItsArrivals();
  void slowStoreIsLateThenDropped();
};

void StormRunnerTest::replicaLeakOnMemory() {
  RL_CHECKED(s, scenario("replica_leak"));
  RL_CHECKED(r, run(s));
  QCOMPARE(r.metrics.size(), std::size_t{1});
  QCOMPARE(r.metrics[0].offered, 400);
  QCOMPARE(r.metrics[0].admitted, 400);
  QCOMPARE(r.metrics[0].maxAdmittedInWindow, 400);
  QCOMPARE(r.metrics[0].overshoot, 4.0);
  QCOMPARE(r.metrics[0].overLimitAdmitted, 300);  // every admission past the 100th
  QVERIFY(!r.metrics[0].overLimitSpans.empty());
  s.replicas = 1;  // one replica, one store: exactly the limit
  RL_CHECKED(one, run(s));
  QCOMPARE(one.metrics[0].admitted, 100);
  QCOMPARE(one.metrics[0].overshoot, 1.0);
}

void StormRunnerTest::boundaryOnVirtualClock() {
  RL_CHECKED(s, scenario("boundary"));
  RL_CHECKED(r, run(s));
  QCOMPARE(r.metrics.size(), std::size_t{6});
  QCOMPARE(r.metrics[0].algorithm, Algorithm::FixedWindow);
  QCOMPARE(r.metrics[0].admitted, 200);
  QCOMPARE(r.metrics[0].maxAdmittedInWindow, 200);  // twice the limit in one sliding second...
  QCOMPARE(r.metrics[0].overshoot, 1.0);             // ...yet each aligned window held its 100
  QCOMPARE(r.metrics[0].overLimitAdmitted, 0);
  QCOMPARE(r.metrics[1].algorithm, Algorithm::SlidingLog);
  QCOMPARE(r.metrics[1].admitted, 100);
  QCOMPARE(r.metrics[1].overshoot, 1.0);
  QCOMPARE(r.outcome.progress.late, 0);
  QCOMPARE(r.outcome.progress.dropped, 0);
}

void StormRunnerTest::burstTolerance() {
  // After idle: token_bucket admits its full bucket (10) at t = 0..90 ms, then one per
  // 100 ms: 19 in the worst 1 s window; sliding_log never more than 10.
  RL_CHECKED(s, scenario("burst_tolerance"));  // algorithms in the file's order: sliding_log, token_bucket
  RL_CHECKED(r, run(s));
  QCOMPARE(r.metrics[1].algorithm, Algorithm::TokenBucket);
  std::int64_t burst = 0;
  for (const DecisionRecord& d : r.outcome.records)
    if (d.algorithm() == 1 && d.allowed() && d.atUs() < 100'000) ++burst;
  QCOMPARE(burst, 10);
  QCOMPARE(r.metrics[1].admitted, 29);
  QCOMPARE(r.metrics[1].maxAdmittedInWindow, 19);
  // 19 in one second is what a bucket of 10 refilling 10/s promises: not over its limit.
  QVERIFY(r.metrics[1].overshoot <= 1.0);
  QCOMPARE(r.metrics[1].overLimitAdmitted, 0);
  QCOMPARE(r.metrics[0].algorithm, Algorithm::SlidingLog);
  QCOMPARE(r.metrics[0].admitted, 20);
  QCOMPARE(r.metrics[0].maxAdmittedInWindow, 10);
  QCOMPARE(r.metrics[0].overshoot, 1.0);
}

void StormRunnerTest::traceCostsReachTheStore() {
  // A planned send keeps a trace request's own cost (27 bits): costs 3, 3, 2 at
  // one instant on a bucket of 5 are admitted, denied (3 > 2 left), admitted.
  auto t = std::make_shared<Trace>();
  t->keys = {"k"};
  t->path = "synthetic";
  for (std::uint32_t cost : {3u, 3u, 2u}) t->requests.push_back({1'700'000'000'000'000, 0, cost});
  StormSpec spec;
  spec.algorithms = {Algorithm::TokenBucket};
  spec.quota = Quota::perSecond(5);
  spec.trace.path = t->path;
  spec.traceData = t;
  spec.clients = 1;
  auto outcome = runStorm(spec, memoryStoreFactory(1));
  QVERIFY2(outcome, outcome ? "" : outcome.error().message.c_str());
  std::vector<int> allowed;
  for (const DecisionRecord& d : outcome->records) allowed.push_back(d.allowed() ? 1 : 0);
  QCOMPARE(allowed, (std::vector<int>{1, 0, 1}));
  // Costs from 2^27 up cannot ride in a send, and a virtual replay spans at most 12 days.
  auto big = std::make_shared<Trace>(*t);
  big->requests[1].cost = 1u << 27;
  spec.quota = Quota::perWindow(std::int64_t{1} << 28, Micros{3'600'000'000});  // allows the cost
  spec.traceData = big;
  auto refused = validate(spec);
  QVERIFY(!refused);
  QVERIFY2(refused.error().message.find("allowed costs 1 to 134217727") != std::string::npos,
           refused.error().message.c_str());
  auto longTrace = std::make_shared<Trace>(*t);
  longTrace->requests[2].timeUs += 13LL * 86'400'000'000;
  spec.quota = Quota::perSecond(5);
  spec.traceData = longTrace;
  refused = validate(spec);
  QVERIFY(!refused);
  QVERIFY2(refused.error().message.find("allowed at most 12 days") != std::string::npos, refused.error().message.c_str());
}

void StormRunnerTest::virtualRunsAreDeterministic_data() {
  QTest::addColumn<int>("pattern");
  QTest::newRow("boundary") << int(Pattern::Boundary);
  QTest::newRow("burst: every request at t = 0") << int(Pattern::Burst);
}

void StormRunnerTest::virtualRunsAreDeterministic() {
  QFETCH(int, pattern);
  RL_CHECKED(s, scenario("boundary"));
  s.pattern = static_cast<Pattern>(pattern);
  s.clients = 5;
  s.replicas = 2;
  s.concurrency = 1;
  RL_CHECKED(a, run(s));
  s.concurrency = 4;
  RL_CHECKED(b, run(s));
  QCOMPARE(a.outcome.records.size(), std::size_t{2400});
  QCOMPARE(b.outcome.records.size(), a.outcome.records.size());
  // Each key's decisions are made in intended order whatever the concurrency, so
  // the decisions are the same; only the listing order of simultaneous ones may differ.
  auto canonical = [](std::vector<DecisionRecord>& v) {
    std::sort(v.begin(), v.end(), [](const DecisionRecord& x, const DecisionRecord& y) {
      return std::tuple(x.intendedUs(), x.algorithm(), x.client(), x.replica(), x.remaining(), x.flags()) <
             std::tuple(y.intendedUs(), y.algorithm(), y.client(), y.replica(), y.remaining(), y.flags());
    });
  };
  canonical(a.outcome.records);
  canonical(b.outcome.records);
  for (std::size_t i = 0; i < a.outcome.records.size(); ++i) {
    const DecisionRecord& x = a.outcome.records[i];
    const DecisionRecord& y = b.outcome.records[i];
    QCOMPARE(x.intendedUs(), y.intendedUs());
    QCOMPARE(x.client(), y.client());
    QCOMPARE(x.replica(), y.replica());
    QCOMPARE(x.algorithm(), y.algorithm());
    QCOMPARE(x.flags(), y.flags());
    QCOMPARE(x.remaining(), y.remaining());
    QCOMPARE(x.retryAfterUs(), y.retryAfterUs());
  }
}

void StormRunnerTest::takeRecordsHandsOutEachOnce() {
  StormSpec s;
  s.algorithms = {Algorithm::TokenBucket, Algorithm::Gcra};
  s.requests = 50'000;
  s.concurrency = 2;
  s.clients = 10;
  StormRunner runner(s, memoryStoreFactory(1));
  std::atomic<int> calls{0};
  runner.setOnData([&] { ++calls; }, Micros{1000});
  QVERIFY(runner.start().ok());
  std::vector<DecisionRecord> taken;
  while (!runner.finished()) runner.takeRecords(taken);
  runner.wait();
  runner.takeRecords(taken);
  QCOMPARE(taken.size(), std::size_t{100'000});
  QCOMPARE(runner.takeRecords(taken), std::size_t{0});
  QVERIFY(calls.load() >= 1);  // at least the final call
  const auto c = runner.counters();
  QCOMPARE(c[0].admitted + c[0].denied, 50'000);
  QCOMPARE(runner.progress().sent, 100'000);
  QCOMPARE(runner.progress().planned, 100'000);
}

void StormRunnerTest::setQuotaAppliesAndMarks() {
  StormSpec s;
  s.clock = ClockMode::Client;
  s.pattern = Pattern::Constant;
  s.rate = 200;
  s.requests = 200;  // 1 s
  s.quota = Quota::perWindow(5, 60 * kSecond);
  StormRunner runner(s, memoryStoreFactory(1));
  QVERIFY(runner.start().ok());
  std::vector<DecisionRecord> taken;
  while (taken.size() < 20 && !runner.finished()) {
    runner.takeRecords(taken);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  QVERIFY(runner.setQuota(Quota::perWindow(1000, 60 * kSecond)).ok());
  QVERIFY(!runner.setQuota(Quota::perWindow(0, kSecond)).ok());  // invalid: refused, not applied
  runner.wait();
  const StormOutcome o = runner.outcome();
  QCOMPARE(o.markers.size(), std::size_t{1});
  QCOMPARE(o.markers[0].limit, 1000);
  QVERIFY(o.counters[0].admitted > 5);
  for (const DecisionRecord& d : o.records)
    if (d.intendedUs() > o.markers[0].atUs + 100'000) QVERIFY(d.allowed());
}

void StormRunnerTest::cancelReturnsPromptly() {
  StormSpec s;
  s.clock = ClockMode::Client;
  s.pattern = Pattern::Constant;
  s.rate = 100;
  s.duration = 600 * kSecond;
  s.concurrency = 4;
  StormRunner runner(s, memoryStoreFactory(1));
  QVERIFY(runner.start().ok());
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const auto t0 = std::chrono::steady_clock::now();
  runner.cancel();
  runner.wait();
  const auto waited = std::chrono::steady_clock::now() - t0;
  QVERIFY(waited < std::chrono::seconds(5));  // generous "no hang" bound
  const StormOutcome o = runner.outcome();
  QVERIFY(o.cancelled);
  QVERIFY(o.progress.finished);
  QVERIFY(!o.records.empty());
  QVERIFY(static_cast<std::int64_t>(o.records.size()) < o.progress.planned);
}

void StormRunnerTest::storeFailureEndsTheRun() {
  StormSpec s;
  s.requests = 10;
  s.concurrency = 3;
  auto factory = [](int, int worker) -> Result<std::unique_ptr<Store>> {
    if (worker == 2) return unavailable("cannot connect to 127.0.0.1:1: Connection refused");
    return std::unique_ptr<Store>(std::make_unique<MemoryStore>());
  };
  const auto o = runStorm(s, factory);
  QVERIFY(!o);
  QCOMPARE(o.error().code, ErrorCode::Unavailable);
  QCOMPARE(QString::fromStdString(o.error().message), QString("cannot connect to 127.0.0.1:1: Connection refused"));
}

void StormRunnerTest::badSpecDoesNotStart() {
  StormSpec s;
  s.requests = 10;
  s.replicas = 0;
  StormRunner runner(s, memoryStoreFactory(1));
  const auto ok = runner.start();
  QVERIFY(!ok);
  QCOMPARE(QString::fromStdString(ok.error().message), QString("--replicas 0 is out of range: allowed 1 to 64"));
  runner.wait();  // never started: returns at once
}

void StormRunnerTest::skewShiftsTheReplicaClock() {
  // Token bucket 4, refill 2/s, two replicas sharing one store, replica 1 ten
  // seconds ahead: its requests see a full bucket again, so more than 4 pass.
  StormSpec s;
  s.algorithms = {Algorithm::TokenBucket};
  s.quota = Quota::perWindow(4, 2 * kSecond).withRefill(2);
  s.requests = 8;
  s.replicas = 2;
  s.skew = {Micros{0}, 10 * kSecond};
  auto shared = std::make_shared<MemoryStore>();
  auto factory = [shared](int, int) -> Result<std::unique_ptr<Store>> {
    struct View final : Store {
      std::shared_ptr<MemoryStore> s;
      std::string_view name() const override { return "memory"; }
      Result<Decision> decide(const DecisionRequest& r) override { return s->decide(r); }
    };
    auto v = std::make_unique<View>();
    v->s = shared;
    return std::unique_ptr<Store>(std::move(v));
  };
  auto o = runStorm(s, factory);
  QVERIFY(o.ok());
  // Request 0 (replica 0, T) takes 1 of 4; request 1 (replica 1, T + 10 s) refills to 4 and takes 1;
  // later requests see no refill (time never runs past T + 10 s again): 4 + 1 = 5 admitted.
  QCOMPARE(o->counters[0].admitted, 5);
  s.skew.clear();
  auto same = runStorm(s, factory);
  QVERIFY(same.ok());
  QVERIFY(same->counters[0].admitted <= 4);
}

void StormRunnerTest::slowStoreIsLateThenDropped() {
  // Open model: 2,000 requests offered at 10,000/s to one worker whose store
  // takes 5 ms. Sends start late, latency counts from the intended time, and
  // sends that cannot start before span + 1 s grace are dropped, not sent.
  StormSpec s;
  s.clock = ClockMode::Client;
  s.pattern = Pattern::Constant;
  s.rate = 10'000;
  s.requests = 2'000;
  s.concurrency = 1;
  struct Slow final : Store {
    MemoryStore inner;
    std::string_view name() const override { return "slow"; }
    Result<Decision> decide(const DecisionRequest& r) override {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      return inner.decide(r);
    }
  };
  auto factory = [](int, int) -> Result<std::unique_ptr<Store>> { return std::unique_ptr<Store>(std::make_unique<Slow>()); };
  auto o = runStorm(s, factory);
  QVERIFY(o.ok());
  const StormProgress& p = o->progress;
  QCOMPARE(p.planned, 2'000);
  QCOMPARE(p.sent + p.dropped, 2'000);
  QVERIFY(p.dropped > 1'000);           // at most ~1.2 s / 5 ms = 240 can be sent
  QVERIFY(p.late >= p.sent - 1);        // all but the first start late
  const auto m = computeMetrics(s, o->records, o->wallDuration);
  QVERIFY(m[0].latency.max > 100'000);  // measured from the intended time, not the send
}

void StormRunnerTest::httpStormModelsTheTargetOnItsArrivals() {
  // An http storm is one lane for the target, then its model run: the listed algorithms, in memory on the
  // virtual clock, on the target's own arrivals.
  StormSpec http;
  http.backend = Backend::Http;
  http.http.targets = {"http://127.0.0.1:9/"};
  http.algorithms = {Algorithm::FixedWindow, Algorithm::SlidingLog, Algorithm::TokenBucket};
  http.quota = Quota::perWindow(5, Micros{1'000'000});
  const auto runs = comparedRuns(http);
  QCOMPARE(runs.size(), std::size_t(2));
  QCOMPARE(runs[0].algorithms.size(), std::size_t(1));
  QVERIFY(runs[1].modelsTarget && runs[1].backend == Backend::Memory && runs[1].clock == ClockMode::Virtual);
  QCOMPARE(runs[1].algorithms, http.algorithms);
  const auto lanes = stormLanes(http);
  QCOMPARE(lanes.size(), std::size_t(4));
  QCOMPARE(lanes[0].label, std::string("target"));
  QVERIFY(!lanes[0].hasLevel && lanes[1].hasLevel);
  QCOMPARE(lanes[1].heading, std::string("fixed_window \xC2\xB7 model on the target's arrivals"));

  // A stand-in target decided on the virtual clock (so each decision's time is exactly its arrival): a fixed
  // window of 5 per second under poisson traffic at 40/s from 3 clients. The fixed_window model decides every
  // one of its arrivals as it did; the other algorithms differ where their rules do.
  StormSpec target;
  target.algorithms = {Algorithm::FixedWindow};
  target.quota = http.quota;
  target.pattern = Pattern::Poisson;
  target.rate = 40;
  target.requests = 200;
  target.clients = 3;
  RL_CHECKED(decided, run(target));
  StormSpec model = modelRunOf(target);
  model.algorithms = http.algorithms;
  model = withArrivals(model, decided.outcome);
  QCOMPARE(model.traceData->requests.size(), std::size_t(200));
  QVERIFY(validate(model));
  RL_CHECKED(replayed, run(model));
  const auto agreement = modelAgreement(decided.outcome, replayed.outcome, 3);
  QCOMPARE(agreement[0].compared, std::int64_t(200));
  QCOMPARE(agreement[0].differing, std::int64_t(0));
  QCOMPARE(replayed.metrics[0].admitted, decided.metrics[0].admitted);
  QVERIFY2(agreement[1].differing > 0, "sliding_log denies what a fixed window admits at its edges");
  QCOMPARE(agreement[2].compared, std::int64_t(200));
}

QTEST_GUILESS_MAIN(StormRunnerTest)
#include "test_storm_runner.moc"
