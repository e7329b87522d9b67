#pragma once
// The limiter's HTTP face: a Decision becomes a response, and back. The limit
// headers themselves are written by the one header codec (limit_headers.hpp).
//
//   admitted  200  X-RateLimit-Limit, X-RateLimit-Remaining, RateLimit-Policy,
//                  RateLimit (IETF draft-ietf-httpapi-ratelimit-headers, the
//                  structured-field form: `"token_bucket";q=10;w=10` and
//                  `"token_bucket";r=9;t=1`), X-RateLimit-Delay-Ms when shaped
//   denied    429  the same, plus Retry-After (whole seconds, rounded up, never
//                  0) and Retry-After-Ms (milliseconds, rounded up, never 0)
//   store down     the failure policy's decision: open 200, closed 503 with
//                  Retry-After: 1, local 200/429 from the replica's memory
//                  limiter; all carry X-RateLimit-Failure-Policy: open |
//                  closed | local. The store's error text is never sent.
//
// Bodies are small JSON objects whose numeric fields are integer
// microseconds, so an HTTP client store reads back the exact Decision.

#include <cstdint>
#include <string>
#include <string_view>

#include "common/result.hpp"
#include "http/http_message.hpp"
#include "http/limit_headers.hpp"
#include "limiter/algorithm.hpp"
#include "limiter/decision.hpp"
#include "limiter/quota.hpp"
#include "store/failure_policy.hpp"

namespace rl {

/// Header naming the failure policy that decided when the store could not answer.
inline constexpr std::string_view kFailurePolicyHeader = "X-RateLimit-Failure-Policy";

/// What the middleware knows about the request it answers.
struct LimitContext {
  Algorithm algorithm = Algorithm::TokenBucket;  ///< the deciding algorithm
  Quota quota;                                   ///< its quota
  std::string_view client;                       ///< the client key (x-api-key or address)
  int replica = 0;                               ///< index of the answering replica
};

/// 200 for an admitted decision, 429 for a denied one; see the file comment.
HttpResponse decisionResponse(const Decision& d, const LimitContext& c);
/// The same answer as decisionResponse(), appended to `out` as wire bytes (status line,
/// headers, Content-Length, Connection, and the body unless `headOnly`): the replicas' hot path.
void appendDecisionAnswer(std::string& out, const Decision& d, const LimitContext& c, bool keepAlive, bool headOnly);
/// The response when the store failed and the policy decided `d`: open 200,
/// closed 503, local 200 or 429; X-RateLimit-Failure-Policy names the policy.
HttpResponse storeFailureResponse(FailurePolicy policy, const Decision& d, const LimitContext& c);
/// A JSON error response: `{"error":"<message>"}`.
HttpResponse errorResponse(int status, std::string_view message);

/// Reads a Decision back from a 200/429 decisionResponse (HTTP client store).
/// A store-failure response becomes an Unavailable error naming the policy applied.
Result<Decision> decisionFromResponse(const HttpResponse& r);

}  // namespace rl
