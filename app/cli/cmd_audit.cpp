// ratelab-cli audit: probe a foreign HTTP limiter (core/audit), print the table or --json.
#include <cstdio>

#include "audit/audit_run.hpp"
#include "cli_flags.hpp"
#include "commands.hpp"
#include "interrupt.hpp"
#include "report/html_report.hpp"
#include "report_flag.hpp"
#include "common/printable_text.hpp"
#include "storm/run_tag.hpp"

namespace rl::cli {

namespace {
constexpr const char* kAuditHelp =
    "usage: ratelab-cli audit --http-target URL[,URL..] [options]\n"
    "Probes an HTTP limiter with bounded traffic, every probe on fresh client keys: its\n"
    "declared policy (any header dialect), burst, headers, retry-after honesty, the window\n"
    "boundary, sustained traffic, replicas (several URLs = pods), identity, and a\n"
    "fingerprint (its decisions replayed through RateLab's six algorithms).\n"
    "  --http-target URL[,URL..]  http:// or https:// URLs of one limiter (required)\n"
    "  --budget-requests N   at most N requests in all (10 to 1000000, default 600)\n"
    "  --budget-s S          at most S seconds in all (1 to 86400, default 60)\n"
    "  --plan                print what each probe would send, send nothing\n"
    "  --require P[,P..]     probes whose failure fails the audit (default all): discover,\n"
    "                        burst, headers, retry_after, boundary, sustained, replicas,\n"
    "                        identity, fingerprint\n"
    "  --only P[,P..]        run only these probes (the fingerprint always runs)\n"
    "  --http-key header:NAME|source-addr  how the client key travels (default header:x-api-key)\n"
    "  --http-header 'Name: value'  an extra header on every request (repeatable)\n"
    "  --http-method M       request method (default GET)\n"
    "  --http-deny-status S[,S..]  statuses that mean denied (default 429)\n"
    "  --timeout-ms MS       bound of one request (100 to 60000, default 5000)\n"
    "  --cacert FILE         trust the CA certificates of this PEM file (https)\n"
    "  --insecure            accept any certificate and name (https)\n"
    "  --json                one JSON document on stdout\n"
    "  --report FILE.html    the audit as one self-contained HTML page (checked before any request)\n"
    "Exit: 0 nothing failed, 1 a required probe failed, 2 bad input, 3 a URL cannot be reached,\n"
    "130 Ctrl-C (nothing more is sent; what was found is printed and --report written).\n";

std::vector<FlagSpec> auditFlags() {
  return {{"http-target", true}, {"budget-requests", true}, {"budget-s", true},  {"plan", false},
          {"require", true},     {"only", true},            {"http-key", true},        {"http-header", true}, {"http-method", true},
          {"http-deny-status", true}, {"timeout-ms", true}, {"cacert", true},    {"insecure", false},
          {"json", false},       {"report", true},           {"help", false}};
}

std::vector<std::string> splitList(const std::string& s) {
  std::vector<std::string> out;
  std::size_t at = 0;
  while (at <= s.size()) {
    const auto comma = s.find(',', at);
    out.push_back(s.substr(at, comma == std::string::npos ? std::string::npos : comma - at));
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  return out;
}

Result<void> applyRequestFlags(const Flags& flags, AuditSpec& s) {
  if (auto key = flags.get("http-key")) {
    if (*key == "source-addr") s.keyHeader.clear();
    else if (key->rfind("header:", 0) == 0 && key->size() > 7) s.keyHeader = key->substr(7);
    else return invalidArgument("--http-key '" + *key + "': allowed header:NAME or source-addr");
  }
  for (const auto& [name, value] : flags.all()) {
    if (name != "http-header") continue;
    const auto colon = value.find(':');
    if (colon == std::string::npos || colon == 0)
      return invalidArgument("--http-header '" + value + "': allowed 'Name: value'");
    const auto begin = value.find_first_not_of(' ', colon + 1);
    s.headers.push_back({value.substr(0, colon), begin == std::string::npos ? "" : value.substr(begin)});
  }
  s.method = flags.get("http-method").value_or(s.method);
  if (auto deny = flags.get("http-deny-status")) {
    s.denyStatus.clear();
    for (const auto& item : splitList(*deny)) {
      int status = 0;
      if (std::sscanf(item.c_str(), "%d", &status) != 1 || status < 300 || status > 599 ||
          std::to_string(status) != item)
        return invalidArgument("--http-deny-status '" + *deny + "': allowed statuses 300 to 599, e.g. 429,503");
      s.denyStatus.push_back(status);
    }
  }
  return {};
}

Result<AuditSpec> specFrom(const Flags& flags) {
  AuditSpec s;
  if (auto t = flags.get("http-target")) s.urls = splitList(*t);
  if (auto r = flags.get("require")) s.require = splitList(*r);
  if (auto o = flags.get("only")) s.only = splitList(*o);
  auto requests = intFlag(flags, "budget-requests", s.budgetRequests, 10, 1'000'000);
  if (!requests) return requests.error();
  s.budgetRequests = *requests;
  auto seconds = intFlag(flags, "budget-s", 60, 1, 86'400);
  if (!seconds) return seconds.error();
  s.budget = *seconds * kSecond;
  auto timeout = intFlag(flags, "timeout-ms", 5000, 100, 60'000);
  if (!timeout) return timeout.error();
  s.timeout = *timeout * kMillisecond;
  s.tls.caFile = flags.get("cacert").value_or("");
  s.tls.insecure = flags.has("insecure");
  if (auto ok = applyRequestFlags(flags, s); !ok) return ok.error();
  s.runTag = freshRunTag("audit");
  if (auto ok = validateAuditSpec(s); !ok) return ok.error();
  return s;
}

void printTable(const AuditReport& r) {
  const DeclaredPolicy& d = r.declared;
  std::printf("target    %s\n", printableText(r.target()).c_str());
  std::printf("declared  %s%s\n", d.dialect.c_str(),
              d.limit >= 0 ? (": " + std::to_string(d.limit) + " per " + std::to_string(d.windowS) + " s").c_str() : "");
  std::printf("\n%-12s %-8s %s\n", "probe", "verdict", "what it found");
  for (const AuditCheck& c : r.checks)
    std::printf("%-12s %-8s %s\n", c.name.c_str(), std::string(verdictName(c.verdict)).c_str(),
                printableText(c.summary).c_str());
  std::printf("\n%s\n", printableText(r.summary).c_str());
}
}  // namespace

int cmdAudit(const Args& args) {
  auto flags = Flags::parse(args, auditFlags());
  if (!flags) return badInput("audit", flags.error());
  if (flags->has("help")) {
    std::fputs(kAuditHelp, stdout);
    return kExitOk;
  }
  auto spec = specFrom(*flags);
  if (!spec) return badInput("audit", spec.error());
  if (flags->has("plan")) {
    std::fputs(auditPlan(*spec).c_str(), stdout);
    return kExitOk;
  }
  if (int rc = checkReportFlag("audit", *flags); rc != kExitOk) return rc;  // before the first request
  const bool json = flags->has("json");
  catchInterrupt();  // Ctrl-C: stop sending, print and write what was found, exit 130
  AuditObserver progress;
  progress.onCheck = [json](const AuditCheck& c) {
    if (!json) return;
    std::fprintf(stderr, "audit: %s %s\n", c.name.c_str(), std::string(verdictName(c.verdict)).c_str());
  };
  auto report = runAudit(*spec, progress, &interruptFlag());
  if (!report) {
    if (report.error().code == ErrorCode::InvalidArgument) return badInput("audit", report.error());
    std::fprintf(stderr, "ratelab-cli audit: cannot reach the HTTP target: %s\n",
                 printableText(report.error().message).c_str());
    return kExitNoRedis;  // 3: the target cannot be reached at start
  }
  const Json doc = auditJson(*report);
  if (json) std::printf("%s\n", dumpJson(doc, 2).c_str());
  else printTable(*report);
  if (flags->has("report")) {
    ReportHeader header;
    header.title = "Audit of " + report->target();
    header.command = commandLine("audit", args);
    if (int rc = writeReportFlag("audit", *flags, auditReportHtml(doc, header)); rc != kExitOk) return rc;
  }
  if (report->interrupted) return interruptedExitCode();
  return report->verdict == Verdict::Fail ? kExitFailed : kExitOk;
}

}  // namespace rl::cli
