// The one failure policy: every store error is classified in one place, only
// outages reach the policy, and faults are never admitted, whatever the policy.
// A store that always fails with a chosen error stands in for a broken backend
// (the Redis rows of this contract run against a real server in test_redis_outage).

#include <QtTest>

#include "store/failure_policy.hpp"
#include "store/memory_store.hpp"

using namespace rl;

namespace {
/// A store whose every decision fails with `error`.
class FailingStore final : public Store {
 public:
  explicit FailingStore(Error error) : error_(std::move(error)) {}
  std::string_view name() const override { return "failing"; }
  Result<Decision> decide(const DecisionRequest&) override { return error_; }

 private:
  Error error_;
};
}  // namespace

class FailurePolicyTest : public QObject {
  Q_OBJECT
 private slots:
  void classification_data();
  void classification();
  void policyNames();
  void localDecidesWithTheReplicasMemory();
};

void FailurePolicyTest::classification_data() {
  QTest::addColumn<int>("code");
  QTest::addColumn<int>("policy");
  QTest::addColumn<bool>("decided");  // the policy answered (else the error comes back)
  QTest::addColumn<bool>("allowed");
  const int open = int(FailurePolicy::Open), closed = int(FailurePolicy::Closed);
  QTest::newRow("unavailable open") << int(ErrorCode::Unavailable) << open << true << true;
  QTest::newRow("unavailable closed") << int(ErrorCode::Unavailable) << closed << true << false;
  QTest::newRow("timeout open") << int(ErrorCode::Timeout) << open << true << true;
  QTest::newRow("oom closed") << int(ErrorCode::OutOfMemory) << closed << true << false;
  QTest::newRow("readonly open") << int(ErrorCode::ReadOnly) << open << true << true;
  // Not outages: never admitted by fail-open.
  QTest::newRow("protocol open") << int(ErrorCode::Protocol) << open << false << false;
  QTest::newRow("conflict open") << int(ErrorCode::Conflict) << open << false << false;
  QTest::newRow("internal open") << int(ErrorCode::Internal) << open << false << false;
  QTest::newRow("bad input open") << int(ErrorCode::InvalidArgument) << open << false << false;
}

void FailurePolicyTest::classification() {
  QFETCH(int, code);
  QFETCH(int, policy);
  QFETCH(bool, decided);
  QFETCH(bool, allowed);
  FailingStore store({static_cast<ErrorCode>(code), "boom"});
  const DecisionRequest r{Algorithm::TokenBucket, "c", Quota::perSecond(5), 1, Micros{0}};
  const auto d = decideWithPolicy(store, r, static_cast<FailurePolicy>(policy), kPolicyRetryAfter);
  QCOMPARE(d.ok(), decided);
  if (!decided) {
    QCOMPARE(int(d.error().code), code);
    QCOMPARE(classifyStoreError(d.error()) == StoreErrorClass::Outage, false);
    return;
  }
  QVERIFY(d->byPolicy);
  QCOMPARE(d->decision.allowed, allowed);
  QCOMPARE(d->decision.limit, std::int64_t{5});
  if (!allowed) QCOMPARE(d->decision.retryAfter, kPolicyRetryAfter);
}

void FailurePolicyTest::policyNames() {
  QCOMPARE(parseFailurePolicy("local").value(), FailurePolicy::Local);
  QCOMPARE(std::string(failurePolicyName(FailurePolicy::Closed)), std::string("closed"));
  QVERIFY(!parseFailurePolicy("maybe"));
  QCOMPARE(failurePolicyChoices(), std::string("open, closed or local"));
}

void FailurePolicyTest::localDecidesWithTheReplicasMemory() {
  FailingStore redis(unavailable("connection refused"));
  MemoryStore local;
  const Quota q = Quota::perWindow(3, Micros{60'000'000});
  int admitted = 0;
  for (int i = 0; i < 10; ++i) {
    const auto d = decideWithPolicy(redis, {Algorithm::FixedWindow, "c", q, 1, Micros{1'000'000 + i}},
                                    FailurePolicy::Local, kPolicyRetryAfter, &local);
    QVERIFY(d.ok());
    QVERIFY(d->byPolicy);
    admitted += d->decision.allowed ? 1 : 0;
    if (!d->decision.allowed) QVERIFY(d->decision.retryAfter > Micros{0});
  }
  QCOMPARE(admitted, 3);  // the local limiter holds the limit on its own replica
  // Without a local store the local policy is a bug, reported, never an admission.
  const auto none = decideWithPolicy(redis, {Algorithm::FixedWindow, "c", q, 1, Micros{0}}, FailurePolicy::Local,
                                     kPolicyRetryAfter, nullptr);
  QVERIFY(!none.ok());
  QCOMPARE(none.error().code, ErrorCode::Internal);
}

QTEST_APPLESS_MAIN(FailurePolicyTest)
#include "test_failure_policy.moc"
