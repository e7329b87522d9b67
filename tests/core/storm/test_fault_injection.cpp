// Every fault x every failure policy against a real private redis-server: a
// storm at 200 requests/s on one client with limit 20, one fault from 50 to
// 450 ms (10 sends before it, so Redis still has room and every decision in
// the window writes), and the per-fault metrics of the decisions sent during
// it. Every Lua write under OOM / READONLY comes back with its own cause and
// the policy decides each (closed denies all, open admits all, local admits
// exactly the limit from its fresh memory store); a pause answers every
// request within the command timeout + slack; kill + restart recovers; a
// latency shorter than the timeout delays and never fails. Plus: a limiter
// already at its limit keeps answering under OOM (a denial writes nothing).

#include <QtTest>

#include "metrics/fault_metrics.hpp"
#include "storm/fault_injector.hpp"
#include "storm/store_factory.hpp"
#include "support/redis_test_server.hpp"
#include "support/checked.hpp"

using namespace rl;

namespace {
constexpr std::int64_t kLimit = 20;             // per hour (a 1.3 s run crosses no window boundary)
constexpr Micros kTimeout{250'000};             // the stores' command timeout
constexpr Micros kTestSlack{300'000};           // "answered in time" slack on this shared machine

struct FaultedRun {
  StormOutcome outcome;
  std::vector<FaultWindow> windows;
  std::vector<FaultAction> actions;
};

StormSpec faultSpec(FailurePolicy policy, const std::string& faults) {
  StormSpec s;
  s.backend = Backend::RedisLua;
  s.clock = ClockMode::Client;
  s.pattern = Pattern::Constant;
  s.rate = 200;
  s.requests = 260;  // 1.3 s
  s.quota = Quota::perWindow(kLimit, 3600 * kSecond);
  s.resilience.onRedisError = policy;
  s.faults = parseFaultSchedule(faults).value();
  return s;
}

Result<FaultedRun> runWithFaults(StormSpec s, ManagedRedisServer& server, const std::string& tag) {
  s.runTag = tag;
  RedisEndpoint ep = server.endpoint();
  ep.commandTimeout = kTimeout;
  FaultInjector injector(server, s.faults);
  auto o = runStorm(s, redisStoreFactory(s, ep), {}, {}, nullptr,
                    [&injector](std::int64_t origin) { injector.start(origin); });
  injector.stop();
  if (!o) return o.error();
  return FaultedRun{std::move(o.value()), injector.windows(), injector.actions()};
}

std::int64_t byCause(const FaultWindowMetrics& m, ErrorCode c) { return m.errorsByCause[static_cast<std::size_t>(c)]; }

void log(const char* row, const FaultWindowMetrics& m) {
  qInfo("%s: %s window %lld..%lld us: %lld decisions, %lld admitted, %lld denied, %lld errors "
        "(oom %lld, readonly %lld, timeout %lld, unavailable %lld), policy %lld/%lld, p99 %lld us, max %lld us, "
        "recovered after %lld us",
        row, m.window.label.c_str(), static_cast<long long>(m.window.startUs), static_cast<long long>(m.window.endUs),
        static_cast<long long>(m.decisions), static_cast<long long>(m.admitted), static_cast<long long>(m.denied),
        static_cast<long long>(m.errors), static_cast<long long>(byCause(m, ErrorCode::OutOfMemory)),
        static_cast<long long>(byCause(m, ErrorCode::ReadOnly)), static_cast<long long>(byCause(m, ErrorCode::Timeout)),
        static_cast<long long>(byCause(m, ErrorCode::Unavailable)), static_cast<long long>(m.policyAdmitted),
        static_cast<long long>(m.policyDenied), static_cast<long long>(m.p99LatencyUs),
        static_cast<long long>(m.maxLatencyUs), static_cast<long long>(m.recoveryUs));
}
}  // namespace

class FaultInjectionTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase();
  void everyFaultUnderEveryPolicy_data();
  void everyFaultUnderEveryPolicy();
  void limiterAtItsLimitAnswersUnderOom();
  void unreachedFaultsAreReported();

 private:
  std::unique_ptr<test::RedisTestServer> redis_;
};

void FaultInjectionTest::initTestCase() {
  redis_ = std::make_unique<test::RedisTestServer>(std::vector<std::string>{"--enable-debug-command", "local"});
  RL_REQUIRE_REDIS(*redis_);
}

void FaultInjectionTest::everyFaultUnderEveryPolicy_data() {
  QTest::addColumn<QString>("fault");
  QTest::addColumn<int>("policy");
  const char* faults[] = {"oom@50:450", "readonly@50:450", "pause@50:450", "kill@50,restart@450",
                          "latency@50:450:20"};
  for (const char* f : faults)
    for (FailurePolicy p : {FailurePolicy::Open, FailurePolicy::Closed, FailurePolicy::Local})
      QTest::newRow((std::string(f) + " " + std::string(failurePolicyName(p))).c_str()) << QString(f) << int(p);
}

void FaultInjectionTest::everyFaultUnderEveryPolicy() {
  QFETCH(QString, fault);
  QFETCH(int, policy);
  const auto p = static_cast<FailurePolicy>(policy);
  const StormSpec s = faultSpec(p, fault.toStdString());
  static int row = 0;
  RL_CHECKED(run, runWithFaults(s, redis_->server(), "fi-" + std::to_string(++row) + "-"));
  for (const FaultAction& a : run.actions) QVERIFY2(a.error.empty() && a.doneUs >= 0, (a.what + ": " + a.error).c_str());
  QVERIFY(redis_->server().running());
  QCOMPARE(run.windows.size(), std::size_t{1});
  const auto metrics = computeFaultMetrics(run.windows, run.outcome.records, 0, kTimeout + kTestSlack);
  const FaultWindowMetrics& m = metrics[0];
  log(QTest::currentDataTag(), m);
  QVERIFY(m.window.reached);
  const std::int64_t expected = (m.window.endUs - m.window.startUs) / 5'000;  // one send per 5 ms
  QVERIFY2(m.decisions >= expected * 8 / 10 && m.decisions <= expected + 10, "about one decision per 5 ms in the window");
  QCOMPARE(m.admitted + m.denied, m.decisions);
  QCOMPARE(m.overBound, 0);  // every request answered within the command timeout + slack
  QVERIFY(m.recoveryUs >= 0 && m.recoveryUs < 1'000'000);  // Redis decides again after the fault
  const FaultKind kind = run.windows[0].kind;
  if (kind == FaultKind::Latency) {  // 20 ms stalls under a 250 ms timeout: slower, never failed
    QCOMPARE(m.errors, 0);
    QVERIFY2(m.maxLatencyUs >= 15'000, "the stalls were real");
    QVERIFY(m.admitted <= kLimit - 5);  // Redis still decides: about 10 of its 20 went before the fault
    return;
  }
  // Every decision in the window failed and the policy decided each. (At the edges a decision
  // may straddle the fault's start or end: a few are allowed to be Redis's own.)
  QVERIFY2(m.errors >= m.decisions - 3, "nearly every decision in the window failed");
  QCOMPARE(m.policyAdmitted + m.policyDenied, m.errors);
  if (kind == FaultKind::OutOfMemory) QCOMPARE(byCause(m, ErrorCode::OutOfMemory), m.errors);
  if (kind == FaultKind::ReadOnly) QCOMPARE(byCause(m, ErrorCode::ReadOnly), m.errors);
  if (kind == FaultKind::Pause || kind == FaultKind::Kill)
    QCOMPARE(byCause(m, ErrorCode::Timeout) + byCause(m, ErrorCode::Unavailable), m.errors);
  if (kind == FaultKind::Kill) QCOMPARE(byCause(m, ErrorCode::Timeout), 0);  // a dead server refuses at once
  if (p == FailurePolicy::Open) QCOMPARE(m.policyAdmitted, m.errors);
  if (p == FailurePolicy::Closed) QCOMPARE(m.policyDenied, m.errors);
  if (p == FailurePolicy::Local) {  // its own memory limiter, fresh: exactly the limit over the whole outage
    std::int64_t localAdmitted = 0;
    for (const DecisionRecord& r : run.outcome.records) localAdmitted += r.byPolicy() && r.allowed();
    QCOMPARE(localAdmitted, kLimit);
    QVERIFY(m.policyAdmitted >= kLimit - 3);
  }
}

void FaultInjectionTest::limiterAtItsLimitAnswersUnderOom() {
  // 80 sends before the fault use up the limit: under OOM fixed_window's denial
  // writes nothing, so Redis keeps deciding (denying) without a single error.
  const StormSpec s = faultSpec(FailurePolicy::Closed, "oom@400:800");
  RL_CHECKED(run, runWithFaults(s, redis_->server(), "fi-full-"));
  const auto m = computeFaultMetrics(run.windows, run.outcome.records, 0, kTimeout + kTestSlack)[0];
  log("at its limit", m);
  QVERIFY(m.decisions >= 60);
  QCOMPARE(m.errors, 0);
  QCOMPARE(m.denied, m.decisions);
}

void FaultInjectionTest::unreachedFaultsAreReported() {
  // A storm cancelled before its fault: the step is reported not reached; nothing was done.
  const StormSpec s = faultSpec(FailurePolicy::Closed, "oom@1200:1250");
  FaultInjector injector(redis_->server(), s.faults);
  injector.start(std::chrono::duration_cast<Micros>(std::chrono::steady_clock::now().time_since_epoch()).count());
  injector.stop();
  const auto actions = injector.actions();
  QCOMPARE(actions.size(), std::size_t{1});
  QCOMPARE(actions[0].doneUs, -1);
  QVERIFY(actions[0].error.starts_with("not reached"));
  QVERIFY(!injector.windows()[0].reached);
  auto conn = redis_->connect();
  QVERIFY(conn.ok());
  auto maxmemory = conn->command({"CONFIG", "GET", "maxmemory"});
  QVERIFY(maxmemory.ok());
  QCOMPARE(QString::fromStdString(std::string((*maxmemory)[1].str())), QString("0"));
}

QTEST_GUILESS_MAIN(FaultInjectionTest)
#include "test_fault_injection.moc"
