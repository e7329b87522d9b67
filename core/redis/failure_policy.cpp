#include "redis/failure_policy.hpp"

#include <algorithm>

namespace rl {

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

Result<PolicyDecision> decideWithPolicy(Store& store, const DecisionRequest& request,
                                        FailurePolicy policy, Micros retryAfter) {
  auto d = store.decide(request);
  if (d) return PolicyDecision{*d, false};
  if (d.error().code != ErrorCode::Unavailable) return d.error();
  return PolicyDecision{failureDecision(policy, request.quota, retryAfter), true};
}

}  // namespace rl
