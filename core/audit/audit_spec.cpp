#include "audit/audit_spec.hpp"

#include <algorithm>

#include "http/http_client.hpp"

namespace rl {

std::string_view verdictName(Verdict v) {
  switch (v) {
    case Verdict::Pass: return "pass";
    case Verdict::Warn: return "warn";
    case Verdict::Fail: return "fail";
    case Verdict::Skip: break;
  }
  return "skip";
}

Result<void> validateAuditSpec(const AuditSpec& s) {
  if (s.urls.empty()) return invalidArgument("--http-target: needs URL[,URL..] (e.g. http://127.0.0.1:8080/api)");
  for (const auto& url : s.urls)
    if (auto t = parseHttpUrl(url); !t) return invalidArgument("--http-target: " + t.error().message);
  if (s.budgetRequests < 10 || s.budgetRequests > 1'000'000)
    return invalidArgument("--budget-requests " + std::to_string(s.budgetRequests) + ": allowed 10 to 1000000");
  if (s.budget < kSecond || s.budget > 24 * 3600 * kSecond)
    return invalidArgument("--budget-s: allowed 1 to 86400 seconds");
  for (const auto* list : {&s.require, &s.only})
    for (const std::string& r : *list)
      if (std::find(std::begin(kAuditProbes), std::end(kAuditProbes), r) == std::end(kAuditProbes))
        return invalidArgument(std::string(list == &s.only ? "--only '" : "--require '") + r +
                               "' is not a probe: allowed discover, burst, headers, retry_after, boundary, sustained, "
                               "replicas, identity, fingerprint");
  for (const char c : s.keyHeader)
    if (c <= 0x20 || c == ':' || c == 0x7f)
      return invalidArgument("--key-header '" + s.keyHeader + "' is not a header name: allowed e.g. x-api-key");
  return {};
}

std::string AuditReport::target() const {
  std::string out;
  for (const std::string& u : urls) out += (out.empty() ? "" : ",") + u;
  return out;
}

Json auditJson(const AuditReport& r) {
  Json doc;
  doc["target"] = r.target();
  const DeclaredPolicy& d = r.declared;
  Json declared;
  declared["dialect"] = d.dialect;
  if (!d.name.empty()) declared["name"] = d.name;
  declared["limit"] = d.limit >= 0 ? Json(d.limit) : Json(nullptr);
  declared["window_s"] = d.windowS >= 0 ? Json(d.windowS) : Json(nullptr);
  declared["policies"] = d.policies;
  if (!d.resetInference.empty()) declared["reset_inference"] = d.resetInference;
  doc["declared"] = declared;
  Json checks = Json::array();
  for (const AuditCheck& c : r.checks) {
    Json j;
    j["name"] = c.name;
    j["verdict"] = verdictName(c.verdict);
    j["summary"] = c.summary;
    for (const auto& [k, v] : c.details.items()) j[k] = v;
    checks.push_back(std::move(j));
  }
  doc["checks"] = checks;
  const Fingerprint& f = r.fingerprint;
  Json fp;
  fp["algorithm"] = f.algorithm;
  fp["limit"] = f.limit;
  if (f.windowMs > 0) fp["window_ms"] = f.windowMs;
  if (f.ratePerSecond > 0) fp["rate_per_s"] = f.ratePerSecond;
  if (!f.alignment.empty()) fp["alignment"] = f.alignment;
  fp["explained"] = f.explained;
  fp["decisions"] = f.decisions;
  fp["summary"] = f.summary;
  fp["also_explained_by"] = f.alsoExplainedBy;
  doc["fingerprint"] = fp;
  doc["verdict"] = verdictName(r.verdict);
  doc["summary"] = r.summary;
  doc["requests"] = r.requests;
  doc["elapsed_ms"] = r.elapsedMs;
  if (r.interrupted) doc["interrupted"] = true;
  return doc;
}

}  // namespace rl
