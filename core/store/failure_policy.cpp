#include "store/failure_policy.hpp"

#include <algorithm>

#include "common/enum_names.hpp"

namespace rl {
namespace {
constexpr EnumNames<FailurePolicy, 3> kPolicies{
    {{FailurePolicy::Open, "open"}, {FailurePolicy::Closed, "closed"}, {FailurePolicy::Local, "local"}}};
}  // namespace

std::string_view failurePolicyName(FailurePolicy p) { return enumName(kPolicies, p); }
std::optional<FailurePolicy> parseFailurePolicy(std::string_view s) { return enumFromName(kPolicies, s); }
std::string failurePolicyChoices() { return enumChoices(kPolicies); }

StoreErrorClass classifyStoreError(const Error& error) {
  switch (error.code) {
    case ErrorCode::Unavailable:
    case ErrorCode::Timeout:
    case ErrorCode::OutOfMemory:
    case ErrorCode::ReadOnly: return StoreErrorClass::Outage;
    case ErrorCode::InvalidArgument: return StoreErrorClass::BadInput;
    case ErrorCode::Protocol:
    case ErrorCode::Conflict:
    case ErrorCode::Cancelled:
    case ErrorCode::Internal: return StoreErrorClass::Fault;
  }
  return StoreErrorClass::Fault;
}

Decision failureDecision(FailurePolicy policy, const Quota& quota, Micros retryAfter) {
  Decision d;
  d.limit = quota.limit;
  d.remaining = 0;
  if (policy == FailurePolicy::Open) {
    d.allowed = true;
  } else {
    d.allowed = false;
    d.retryAfter = std::max(retryAfter, Micros{1});
  }
  return d;
}

Result<PolicyDecision> decideWithPolicy(Store& store, const DecisionRequest& request, FailurePolicy policy,
                                        Micros retryAfter, Store* fallback) {
  return applyPolicy(store.decide(request), request, policy, retryAfter, fallback);
}

Result<PolicyDecision> applyPolicy(Result<Decision> d, const DecisionRequest& request, FailurePolicy policy,
                                   Micros retryAfter, Store* fallback) {
  if (d) return PolicyDecision{*d, d->degraded, d->degraded ? ErrorCode::Unavailable : ErrorCode::Internal};
  if (classifyStoreError(d.error()) != StoreErrorClass::Outage) return d.error();
  const ErrorCode cause = d.error().code;
  std::string why = std::move(d.error().message);
  if (policy != FailurePolicy::Local)
    return PolicyDecision{failureDecision(policy, request.quota, retryAfter), true, cause, std::move(why)};
  if (fallback == nullptr) return Error{ErrorCode::Internal, "the local failure policy has no local store"};
  auto local = fallback->decide(request);
  if (!local) return local.error();
  return PolicyDecision{*local, true, cause, std::move(why)};
}

}  // namespace rl
