#pragma once
// Failure policy (`--on-redis-error open|closed`): what a decision is when the
// store cannot answer (ErrorCode::Unavailable). Other errors (bad input, a
// protocol bug, a WATCH conflict) are not outages and pass through unchanged.

#include "common/result.hpp"
#include "limiter/decision.hpp"
#include "limiter/quota.hpp"
#include "store/store.hpp"
#include "storm/storm_spec.hpp"

namespace rl {

/// A decision plus whether the failure policy made it (the store was down).
struct PolicyDecision {
  Decision decision;      ///< what the caller acts on
  bool byPolicy = false;  ///< true: the limiter did not decide; the policy did
};

/// The policy's decision for a request the store could not decide.
/// open: allowed, remaining 0 (unknown, reported conservatively), no delay.
/// closed: denied, retryAfter = `retryAfter` (> 0; e.g. the command timeout).
Decision failureDecision(FailurePolicy policy, const Quota& quota, Micros retryAfter);

/// Asks the store; an Unavailable error becomes the policy's decision
/// (byPolicy = true). Any other error is returned as is.
Result<PolicyDecision> decideWithPolicy(Store& store, const DecisionRequest& request,
                                        FailurePolicy policy, Micros retryAfter);

}  // namespace rl
