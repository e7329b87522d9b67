#pragma once
// The audit's probes. Each uses fresh client ids and the Prober's budget, and
// returns a verdict with the numbers behind it:
//
//   discover     3 requests 200 ms apart: the declared policy and its dialect.
//                warn when nothing is declared (every figure is then measured).
//   burst        3 rounds of C concurrent requests on one key (C = 2L + 2,
//                10..64), 250 and 500 ms apart. fail when a round admits more
//                than the limit (check-then-increment races do). A round whose
//                admits read as two windows' worth (each remaining count said at
//                most twice, at most 2L admits) was split by a window reset: it
//                is sent again on a fresh key (twice at most; warn when every
//                try is split).
//   headers      sequential requests until the first deny: remaining falls by
//                one per admit and is 0 at the last admit (fail otherwise);
//                RateLimit names a declared policy and stays within its quota
//                (fail); reset never grows in a window, Retry-After >= t (warn).
//   retry_after  after that deny, wait exactly what Retry-After said, retry:
//                honest (pass), early: still denied (fail), pessimistic:
//                admitted at half the wait (warn); a wait over ten windows or the
//                budget is tried as milliseconds / epoch: admitted -> fail naming
//                the unit it must have meant.
//   boundary     one request, then L-1 just before the announced reset and L
//                just after: admitted / L is 1.0x for sliding algorithms, 2.0x
//                for a fixed window (warn), more fails.
//   sustained    twice the declared rate (2L + 1/2 per window, so no request
//                lands on a window's end) for three windows: the most admitted
//                in any window against the limit (<= L pass, <= 2L warn).
//   replicas     with several URLs: one key round-robin; admitted against the
//                limit shows the N x leak (fail above the limit).
//   identity     one key exhausted; the same key from another source address,
//                and with a new X-Forwarded-For: a fresh allowance through the
//                forwarded header alone fails (spoofable).

#include <cstdint>

#include "audit/audit_spec.hpp"
#include "audit/prober.hpp"

namespace rl {

/// What the probes share: the spec, the prober, and what earlier probes learnt.
struct AuditContext {
  AuditContext(const AuditSpec& s, Prober& p) : spec(s), prober(p) {}

  const AuditSpec& spec;        ///< what to send
  Prober& prober;               ///< the only way to the target
  DeclaredPolicy declared;      ///< discover's reading
  std::int64_t limit = -1;      ///< the declared limit, else burst's measured one
  std::int64_t windowMs = -1;   ///< the declared window
  std::vector<Arrival> exhausted;  ///< headers' sequence (fresh key up to its first deny)
};

AuditCheck probeDiscover(AuditContext& c);    ///< see the file comment
AuditCheck probeBurst(AuditContext& c);       ///< see the file comment
AuditCheck probeHeaders(AuditContext& c);     ///< see the file comment
AuditCheck probeRetryAfter(AuditContext& c);  ///< see the file comment
AuditCheck probeBoundary(AuditContext& c);    ///< see the file comment
AuditCheck probeSustained(AuditContext& c);   ///< see the file comment
AuditCheck probeReplicas(AuditContext& c);    ///< see the file comment
AuditCheck probeIdentity(AuditContext& c);    ///< see the file comment

/// A check with `verdict` and `summary`.
AuditCheck makeCheck(std::string name, Verdict verdict, std::string summary);
/// Counts the admitted arrivals of `v`.
std::int64_t admittedIn(const std::vector<Arrival>& v);
/// The first transport or status error in `v`, or nullptr.
const Arrival* firstError(const std::vector<Arrival>& v);

}  // namespace rl
