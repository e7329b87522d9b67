#pragma once
// The failure policy (`--on-redis-error open|closed|local`): what a decision
// is when the store cannot answer. This is the one place that classifies a
// store error and applies the policy; the storm runner, the HTTP replicas and
// the window all call decideWithPolicy().
//
// Outages (unavailable, timeout, out of memory, read-only) go through the
// policy. Bad input is the caller's to fix. Everything else (a protocol or
// script bug, a WATCH conflict, an internal error) is a fault: counted as an
// error and never admitted, whatever the policy.

#include <optional>
#include <string>
#include <string_view>

#include "common/result.hpp"
#include "limiter/decision.hpp"
#include "limiter/quota.hpp"
#include "store/store.hpp"

namespace rl {

/// What a decision is when the store cannot answer (`--on-redis-error`).
enum class FailurePolicy {
  Open,    ///< admit: availability over protection
  Closed,  ///< deny: protection over availability
  Local,   ///< decide with the replica's own in-memory limiter: up to replicas x limit while degraded
};

std::string_view failurePolicyName(FailurePolicy p);                  ///< "open", "closed", "local"
std::optional<FailurePolicy> parseFailurePolicy(std::string_view s);  ///< nullopt if unknown
std::string failurePolicyChoices();                                   ///< "open, closed or local"

/// The closed policy's Retry-After: a client retrying sooner is unlikely to find the store back.
inline constexpr Micros kPolicyRetryAfter{1'000'000};

/// How a store error is treated.
enum class StoreErrorClass {
  Outage,    ///< the store cannot answer now: the policy decides
  BadInput,  ///< the request is wrong: the caller fixes it (HTTP 400)
  Fault,     ///< a bug or conflict: an error, counted, never admitted (HTTP 500)
};

/// The one classification of store errors.
StoreErrorClass classifyStoreError(const Error& error);

/// A decision plus whether the failure policy made it (the store was down).
struct PolicyDecision {
  Decision decision;      ///< what the caller acts on
  bool byPolicy = false;  ///< true: the store did not decide; the policy did
  ErrorCode cause = ErrorCode::Internal;  ///< byPolicy: the store's error (Unavailable, Timeout, OutOfMemory, ReadOnly)
  std::string why{};      ///< byPolicy: the store's error message (which server, what failed)
};

/// The open or closed policy's decision for a request the store could not decide.
/// open: allowed, remaining 0 (unknown, reported conservatively), no delay.
/// closed: denied, retryAfter = `retryAfter` (> 0; e.g. the command timeout).
Decision failureDecision(FailurePolicy policy, const Quota& quota, Micros retryAfter);

/// The policy applied to a store's answer `decided` to `request`, however it was
/// obtained (the HTTP replicas' asynchronous Redis path): what decideWithPolicy does after asking.
/// A decision an HTTP target made by its own failure policy (Decision::degraded)
/// stays as it is, counted as the policy's (byPolicy, cause Unavailable).
Result<PolicyDecision> applyPolicy(Result<Decision> decided, const DecisionRequest& request, FailurePolicy policy,
                                   Micros retryAfter, Store* fallback = nullptr);

/// Asks `store`; on an outage the policy decides (byPolicy = true): open
/// admits, closed denies, local asks `fallback` (the replica's memory store,
/// required for the local policy). Bad input and faults are returned as errors.
Result<PolicyDecision> decideWithPolicy(Store& store, const DecisionRequest& request, FailurePolicy policy,
                                        Micros retryAfter, Store* fallback = nullptr);

}  // namespace rl
