#pragma once
// The audit of a foreign HTTP limiter: what to probe and what came out.
//
// An audit sends bounded traffic (--budget-requests, --budget-s) to one or
// more URLs of the same limiter, every probe on fresh client ids (a run tag
// in the key header; on a loopback target also a fresh source address per
// key, so per-IP limiters see fresh clients too), and gives each probe a
// verdict. The probes and what they judge are listed in probes.hpp; the
// fingerprint in fingerprint.hpp.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/json.hpp"
#include "common/result.hpp"
#include "http/http_message.hpp"
#include "http/limit_headers.hpp"
#include "http/tls_session.hpp"
#include "limiter/time.hpp"

namespace rl {

/// The probes, in the order they run (stable names: flags, JSON).
inline constexpr std::string_view kAuditProbes[] = {"discover", "burst",    "headers",  "retry_after", "boundary",
                                                    "sustained", "replicas", "identity", "fingerprint"};

/// What an audit sends and how long it may take.
struct AuditSpec {
  std::vector<std::string> urls;       ///< one limiter; several URLs = its replicas (pods)
  std::string keyHeader = "x-api-key"; ///< header carrying the client key ("" = none: the address is the client)
  std::string method = "GET";          ///< request method
  std::vector<HttpHeader> headers;     ///< extra header fields of every request
  std::vector<int> denyStatus{429};    ///< statuses that mean denied (2xx = admitted)
  std::int64_t budgetRequests = 600;   ///< at most this many requests in all
  Micros budget{60 * kSecond};         ///< at most this long in all
  Micros timeout{5 * kSecond};         ///< bound of one request
  TlsOptions tls;                      ///< certificate checks of https URLs
  std::vector<std::string> require;    ///< probes whose failure fails the audit (empty = all)
  std::vector<std::string> only;       ///< probes to run (empty = all; fingerprint always runs)
  std::string runTag;                  ///< prefix of every client key (fresh per audit)
};

/// Checks the spec: InvalidArgument names the field and what is allowed.
Result<void> validateAuditSpec(const AuditSpec& spec);

/// A probe's verdict.
enum class Verdict { Pass, Warn, Fail, Skip };
/// "pass", "warn", "fail", "skip".
std::string_view verdictName(Verdict v);

/// One probe's outcome.
struct AuditCheck {
  std::string name;             ///< one of kAuditProbes
  Verdict verdict = Verdict::Skip;  ///< pass / warn / fail / skip (not applicable or no budget)
  std::string summary;          ///< one line in words
  Json details = Json::object();  ///< the numbers behind it
};

/// The policy the target declared (discover), or measured in its absence.
struct DeclaredPolicy {
  std::string dialect = "none";  ///< limitDialectName of the headers seen
  std::string name;              ///< draft-8 policy name
  std::int64_t limit = -1;       ///< requests per window (-1 unknown)
  std::int64_t windowS = -1;     ///< window seconds (-1 unknown)
  int policies = 0;              ///< how many policies were declared
  std::string resetInference;    ///< how a reset number was read, when one was
};

/// The best model of the target's decisions (fingerprint.hpp).
struct Fingerprint {
  std::string algorithm;         ///< algorithmName, "" when nothing was replayed
  std::int64_t limit = 0;        ///< its limit (window limit, or burst capacity)
  std::int64_t windowMs = 0;     ///< window algorithms: window
  double ratePerSecond = 0;      ///< rate algorithms: refill / leak rate
  std::string alignment;         ///< fixed_window, sliding_counter: "epoch" | "first_request"
  int explained = 0;             ///< decisions the model gives as the target did
  int decisions = 0;             ///< decisions replayed
  std::string summary;           ///< "fixed_window 10 per 60 s, window from the client's first request: 180 of 180"
  /// The other algorithms whose best model explains as many decisions ("leaky_bucket 6 at 10/s"): the
  /// probes could not tell them apart.
  std::vector<std::string> alsoExplainedBy;
};

/// One request the audit made and what came back.
struct Arrival {
  std::string probe;            ///< the probe that sent it
  std::string key;              ///< client key
  int group = -1;               ///< requests sent together (a concurrent round) share a group; -1 alone
  int url = 0;                  ///< index into the spec's URLs
  std::int64_t sentUs = 0;      ///< steady time from the audit's start
  std::int64_t wallUs = 0;      ///< unix time of the send, microseconds
  std::int64_t rttUs = 0;       ///< until the answer
  int status = 0;               ///< HTTP status (0 when none came)
  bool allowed = false;         ///< admitted
  bool error = false;           ///< neither admitted nor denied (transport failure, other status)
  std::string errorText;        ///< why, when `error`
  LimitHeaders headers;         ///< what the answer said
  bool fingerprinted = true;    ///< replayed by the fingerprint (false: replicas, spoofed identities)
};

/// The whole audit.
struct AuditReport {
  std::vector<std::string> urls; ///< the audited URLs (the spec's)
  DeclaredPolicy declared;       ///< discover's reading
  std::vector<AuditCheck> checks;  ///< in kAuditProbes order
  Fingerprint fingerprint;       ///< the best match
  Verdict verdict = Verdict::Pass;  ///< fail when a required probe failed, else warn if any warned, else pass
  std::int64_t requests = 0;     ///< requests sent
  std::int64_t elapsedMs = 0;    ///< wall time
  std::string summary;           ///< one line
  bool interrupted = false;      ///< cancelled (Ctrl-C): the probes after it did not run
  std::vector<Arrival> arrivals; ///< every request sent, in send order (not in the JSON: audit_experiment.hpp draws them)

  /// The URLs, comma-separated (the JSON's "target", the report's title).
  std::string target() const;
};

/// The report as the CLI's --json document:
/// `{"target", "declared":{…}, "checks":[{"name","verdict","summary",…}], "fingerprint":{…}, "verdict", …}`.
Json auditJson(const AuditReport& report);

}  // namespace rl
