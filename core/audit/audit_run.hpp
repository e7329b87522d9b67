#pragma once
// runAudit(): every probe of probes.hpp in order, then the fingerprint, then
// the verdict: fail when a required probe (--require; all by default) failed,
// else warn when any probe warned, else pass. The CLI prints the report; a
// window panel can show each check as `onCheck` delivers it.

#include <atomic>
#include <functional>
#include <string>

#include "audit/audit_spec.hpp"
#include "common/result.hpp"

namespace rl {

/// Runs the audit; Unavailable when a URL cannot be reached at start, InvalidArgument for a bad spec.
/// `onCheck` (may be empty) is called after each probe, on the calling thread. When `*cancel` turns
/// true, nothing more is sent: the probes not yet run are skipped as interrupted, the report says so.
Result<AuditReport> runAudit(const AuditSpec& spec, const std::function<void(const AuditCheck&)>& onCheck = {},
                             const std::atomic<bool>* cancel = nullptr);

/// What the audit would send, probe by probe (--plan), without sending anything.
std::string auditPlan(const AuditSpec& spec);

}  // namespace rl
