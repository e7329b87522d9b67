#include "audit/audit_run.hpp"

#include <algorithm>

#include "audit/fingerprint.hpp"
#include "audit/probes.hpp"

namespace rl {
namespace {

using ProbeFn = AuditCheck (*)(AuditContext&);

struct ProbeEntry {
  std::string_view name;
  ProbeFn run;
};

constexpr ProbeEntry kProbes[] = {{"discover", probeDiscover},   {"burst", probeBurst},
                                  {"headers", probeHeaders},     {"retry_after", probeRetryAfter},
                                  {"boundary", probeBoundary},   {"sustained", probeSustained},
                                  {"replicas", probeReplicas},   {"identity", probeIdentity}};

AuditCheck fingerprintCheck(const AuditContext& c, const Fingerprint& out) {
  if (out.decisions == 0) return makeCheck("fingerprint", Verdict::Skip, "no decisions to replay");
  const bool explained = out.explained * 100 >= out.decisions * 95;
  AuditCheck check = makeCheck("fingerprint", explained ? Verdict::Pass : Verdict::Warn, out.summary);
  if (!explained) check.summary += " (no model explains 95%)";
  if (c.declared.limit > 0 && out.limit != c.declared.limit) {
    check.verdict = Verdict::Warn;
    check.summary += "; it declares " + std::to_string(c.declared.limit) + " but behaves like " + std::to_string(out.limit);
  }
  return check;
}

// The arrivals the fingerprint replays (and the lanes draw).
std::size_t replayable(const std::vector<Arrival>& arrivals) {
  return static_cast<std::size_t>(
      std::count_if(arrivals.begin(), arrivals.end(), [](const Arrival& a) { return replayed(a); }));
}

bool required(const AuditSpec& s, const std::string& name) {
  return s.require.empty() || std::find(s.require.begin(), s.require.end(), name) != s.require.end();
}

void judge(const AuditSpec& spec, AuditReport& r) {
  int fails = 0, warns = 0, passes = 0;
  std::string failed;
  for (const AuditCheck& c : r.checks) {
    if (c.verdict == Verdict::Fail && required(spec, c.name)) {
      ++fails;
      failed += (failed.empty() ? "" : ", ") + c.name;
    }
    warns += c.verdict == Verdict::Warn || (c.verdict == Verdict::Fail && !required(spec, c.name));
    passes += c.verdict == Verdict::Pass;
  }
  r.verdict = fails > 0 ? Verdict::Fail : warns > 0 ? Verdict::Warn : Verdict::Pass;
  r.summary = std::string(verdictName(r.verdict)) + ": " + std::to_string(passes) + " passed, " +
              std::to_string(warns) + " warned, " + std::to_string(fails) + " failed" +
              (failed.empty() ? "" : " (" + failed + ")") + "; " + std::to_string(r.requests) + " requests in " +
              std::to_string(r.elapsedMs) + " ms; " +
              (r.fingerprint.summary.empty() ? std::string("no fingerprint") : r.fingerprint.summary);
}

}  // namespace

Result<AuditReport> runAudit(const AuditSpec& spec, const AuditObserver& observer, const std::atomic<bool>* cancel) {
  if (auto ok = validateAuditSpec(spec); !ok) return ok.error();
  Prober prober(spec);
  prober.setCancel(cancel);
  if (auto ok = prober.open(); !ok) return ok.error();
  AuditContext ctx{spec, prober};
  AuditReport report;
  report.urls = spec.urls;
  FingerprintHints progressHints;  // what the last onProgress fingerprinted with
  for (const ProbeEntry& p : kProbes) {
    const bool chosen = spec.only.empty() || std::find(spec.only.begin(), spec.only.end(), p.name) != spec.only.end();
    if (prober.cancelled()) {
      report.checks.push_back(makeCheck(std::string(p.name), Verdict::Skip, "not run: interrupted (Ctrl-C)"));
      continue;
    }
    report.checks.push_back(chosen ? p.run(ctx) : makeCheck(std::string(p.name), Verdict::Skip, "not chosen (--only)"));
    if (prober.cancelled() && report.checks.back().verdict == Verdict::Skip)  // its "no budget" was the interrupt
      report.checks.back().summary = "interrupted (Ctrl-C) before it could be judged";
    if (observer.onCheck) observer.onCheck(report.checks.back());
    if (observer.onProgress && replayable(prober.arrivals()) > replayable(report.arrivals)) {
      report.arrivals = prober.arrivals();
      report.declared = ctx.declared;
      progressHints = {ctx.limit, ctx.windowMs};
      report.fingerprint = fingerprintArrivals(report.arrivals, progressHints);
      observer.onProgress(report);
    }
  }
  // The last progress may have fingerprinted these very arrivals with these hints already.
  const bool fingerprinted = observer.onProgress && report.arrivals.size() == prober.arrivals().size() &&
                             progressHints.limit == ctx.limit && progressHints.windowMs == ctx.windowMs;
  if (!fingerprinted) report.fingerprint = fingerprintArrivals(prober.arrivals(), {ctx.limit, ctx.windowMs});
  report.checks.push_back(fingerprintCheck(ctx, report.fingerprint));
  if (observer.onCheck) observer.onCheck(report.checks.back());
  report.arrivals = prober.arrivals();
  report.declared = ctx.declared;
  report.requests = prober.sent();
  report.elapsedMs = prober.nowUs() / 1000;
  report.interrupted = prober.cancelled();
  judge(spec, report);
  if (report.interrupted) report.summary = "interrupted: " + report.summary;
  return report;
}

std::string auditPlan(const AuditSpec& spec) {
  std::string out = "audit plan for";
  for (const auto& u : spec.urls) out += " " + u;
  out += "\nbudget: at most " + std::to_string(spec.budgetRequests) + " requests and " +
         std::to_string(spec.budget.count() / 1'000'000) + " s; every probe on a fresh key " + spec.runTag +
         "<probe>" + (spec.keyHeader.empty() ? " (no key header)" : " in " + spec.keyHeader) +
         "; L = the declared limit (else measured), W = the declared window\n";
  const char* lines[] = {
      "discover     3 requests, 200 ms apart: the declared policy and its dialect",
      "burst        3 rounds of 2L+2 (10..64) concurrent requests, 250 and 500 ms apart",
      "headers      sequential requests until the first deny (at most L+3)",
      "retry_after  1 or 2 retries after waiting what Retry-After said (other units if implausible)",
      "boundary     1 request, L-1 just before the announced reset, L just after",
      "sustained    twice L/W for three windows (6L requests), skipped past the budget",
      "replicas     (L+1) x URLs requests on one key, round-robin (several URLs only)",
      "identity     up to L+2 requests, then one from another address and one with a new X-Forwarded-For",
      "fingerprint  no requests: the arrivals above replayed through the six algorithms"};
  for (const char* l : lines) out += std::string("  ") + l + "\n";
  if (!spec.require.empty()) {
    out += "failures that count: ";
    for (const auto& r : spec.require) out += r + " ";
    out += "\n";
  }
  return out;
}

}  // namespace rl
