#pragma once
// runAudit(): every probe of probes.hpp in order, then the fingerprint, then
// the verdict: fail when a required probe (--require; all by default) failed,
// else warn when any probe warned, else pass. The CLI prints the report; the
// window shows each check as it is judged, and the lanes as they fill.

#include <atomic>
#include <functional>
#include <string>

#include "audit/audit_spec.hpp"
#include "common/result.hpp"

namespace rl {

/// What runAudit tells its caller as it goes, on the calling thread (each may be empty).
struct AuditObserver {
  /// After each probe: its verdict.
  std::function<void(const AuditCheck&)> onCheck;
  /// After each probe that added decisions the fingerprint replays: the audit so far (its checks, its
  /// arrivals, the declared policy, and the fingerprint of the arrivals so far), e.g. to fill the lanes live
  /// (auditExperiment draws it).
  std::function<void(const AuditReport&)> onProgress;
};

/// Runs the audit; Unavailable when a URL cannot be reached at start, InvalidArgument for a bad spec.
/// When `*cancel` turns true, nothing more is sent: the probes not yet run are skipped as interrupted, the
/// report says so.
Result<AuditReport> runAudit(const AuditSpec& spec, const AuditObserver& observer = {},
                             const std::atomic<bool>* cancel = nullptr);

/// What the audit would send, probe by probe (--plan), without sending anything.
std::string auditPlan(const AuditSpec& spec);

}  // namespace rl
