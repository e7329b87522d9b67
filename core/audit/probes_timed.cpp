// boundary, sustained, replicas, identity (probes.hpp).

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>

#include "audit/probes.hpp"

namespace rl {
namespace {

std::string ratio(double r) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1fx", r);
  return buf;
}

// Most admitted arrivals of `v` in any interval [t, t + windowUs).
std::int64_t mostInAnyWindow(const std::vector<Arrival>& v, std::int64_t windowUs) {
  std::vector<std::int64_t> t;
  for (const Arrival& a : v)
    if (a.allowed) t.push_back(a.sentUs);
  std::sort(t.begin(), t.end());
  std::int64_t best = 0;
  for (std::size_t i = 0, j = 0; j < t.size(); ++j) {
    while (t[j] - t[i] >= windowUs) ++i;
    best = std::max<std::int64_t>(best, static_cast<std::int64_t>(j - i + 1));
  }
  return best;
}

// `n` sequential requests on `r` (as fast as the target answers).
std::vector<Arrival> sendMany(AuditContext& c, const ProbeRequest& r, std::int64_t n) {
  std::vector<Arrival> out;
  for (std::int64_t i = 0; i < n; ++i)
    if (auto a = c.prober.send(r)) out.push_back(*a);
  return out;
}

}  // namespace

AuditCheck probeBoundary(AuditContext& c) {
  if (c.limit <= 0) return makeCheck("boundary", Verdict::Skip, "no limit known");
  const ProbeRequest r{"boundary", "boundary"};
  const std::int64_t need = 2 * c.limit;
  if (!c.prober.affords(need, Micros{0})) return makeCheck("boundary", Verdict::Skip, "no budget for 2L requests");
  auto first = c.prober.send(r);
  if (!first || first->error) return makeCheck("boundary", Verdict::Skip, "the first request failed");
  const LimitHeaders& h = first->headers;
  const std::int64_t resetMs = h.resetMs >= 0 ? h.resetMs : c.windowMs;
  if (resetMs <= 0) return makeCheck("boundary", Verdict::Skip, "the target announced no reset and no window");
  const std::int64_t boundaryUs = first->sentUs + resetMs * 1000;
  if (!c.prober.affords(need, Micros{boundaryUs + 300'000 - c.prober.nowUs()}))
    return makeCheck("boundary", Verdict::Skip, "the reset " + std::to_string(resetMs) + " ms away exceeds the budget");
  c.prober.sleepUntil(boundaryUs - 300'000);
  const auto before = sendMany(c, r, c.limit - 1);
  c.prober.sleepUntil(boundaryUs + 200'000);
  const auto after = sendMany(c, r, c.limit);
  const std::int64_t admitted = (first->allowed ? 1 : 0) + admittedIn(before) + admittedIn(after);
  const double x = static_cast<double>(admitted) / static_cast<double>(c.limit);
  AuditCheck check = makeCheck("boundary", Verdict::Pass, "");
  check.details["reset_ms"] = resetMs;
  check.details["admitted_before"] = admittedIn(before) + (first->allowed ? 1 : 0);
  check.details["admitted_after"] = admittedIn(after);
  check.details["admitted"] = admitted;
  check.details["limit"] = c.limit;
  check.details["ratio"] = std::round(x * 100) / 100;
  check.summary = std::to_string(admitted) + " admitted within 0.5 s around the reset " + std::to_string(resetMs) +
                  " ms after the first request: " + ratio(x) + " the limit";
  if (admitted > 2 * c.limit) check.verdict = Verdict::Fail;
  else if (admitted > c.limit) {
    check.verdict = Verdict::Warn;
    check.summary += " (a fixed window's boundary)";
  }
  return check;
}

AuditCheck probeSustained(AuditContext& c) {
  if (c.limit <= 0 || c.windowMs <= 0) return makeCheck("sustained", Verdict::Skip, "no declared limit and window");
  // About twice the rate: 2L + 1/2 per window, so that no request lands on a window's end
  // (windows from the first request would otherwise end exactly on one, a coin flip).
  const double perSecond = (2.0 * static_cast<double>(c.limit) + 0.5) * 1000.0 / static_cast<double>(c.windowMs);
  const std::int64_t spanUs = 3 * c.windowMs * 1000 + 100'000;
  const auto n = static_cast<std::int64_t>(std::ceil(perSecond * static_cast<double>(spanUs) / 1e6));
  if (perSecond > 2000 || !c.prober.affords(n, Micros{spanUs}))
    return makeCheck("sustained", Verdict::Skip,
                     "three windows at twice the rate (" + std::to_string(n) + " requests) exceed the budget");
  const std::int64_t start = c.prober.nowUs();
  std::vector<Arrival> v;
  for (std::int64_t i = 0; i < n; ++i) {
    c.prober.sleepUntil(start + static_cast<std::int64_t>(static_cast<double>(i) * 1e6 / perSecond));
    if (auto a = c.prober.send({"sustained", "sustained"})) v.push_back(*a);
  }
  if (const Arrival* e = firstError(v))
    return makeCheck("sustained", Verdict::Fail, "the target failed a request: " + e->errorText);
  std::vector<std::int64_t> perWindow(3, 0);
  for (const Arrival& a : v)
    if (a.allowed) ++perWindow[std::min<std::size_t>(2, static_cast<std::size_t>((a.sentUs - start) / (c.windowMs * 1000)))];
  // The window less the send jitter: a request paced exactly one window after another is not in it.
  const std::int64_t most = mostInAnyWindow(v, c.windowMs * 1000 - std::max<std::int64_t>(20'000, c.windowMs * 10));
  AuditCheck check = makeCheck("sustained", Verdict::Pass, "");
  check.details["rate_per_s"] = perSecond;
  check.details["requests"] = v.size();
  check.details["admitted_per_window"] = perWindow;
  check.details["max_in_any_window"] = most;
  check.details["limit"] = c.limit;
  check.summary = std::to_string(v.size()) + " requests at twice the rate: at most " +
                  std::to_string(most) + " admitted in any " + std::to_string(c.windowMs) + " ms (limit " +
                  std::to_string(c.limit) + ")";
  if (most > 2 * c.limit) check.verdict = Verdict::Fail;
  else if (most > c.limit) check.verdict = Verdict::Warn;
  return check;
}

AuditCheck probeReplicas(AuditContext& c) {
  const int urls = c.prober.urls();
  if (urls < 2) return makeCheck("replicas", Verdict::Skip, "one URL: give several (pods) to test the N x leak");
  if (c.limit <= 0) return makeCheck("replicas", Verdict::Skip, "no limit known");
  const std::int64_t n = (c.limit + 1) * urls;
  if (!c.prober.affords(n, Micros{0})) return makeCheck("replicas", Verdict::Skip, "no budget for " + std::to_string(n));
  std::vector<Arrival> v;
  for (std::int64_t i = 0; i < n; ++i) {
    ProbeRequest r{"replicas", "replicas", static_cast<int>(i % urls)};
    r.fingerprinted = false;
    if (auto a = c.prober.send(r)) v.push_back(*a);
  }
  if (const Arrival* e = firstError(v))
    return makeCheck("replicas", Verdict::Fail, "the target failed a request: " + e->errorText);
  const std::int64_t admitted = admittedIn(v);
  const double x = static_cast<double>(admitted) / static_cast<double>(c.limit);
  AuditCheck check = makeCheck("replicas", admitted > c.limit ? Verdict::Fail : Verdict::Pass, "");
  check.details["urls"] = urls;
  check.details["admitted"] = admitted;
  check.details["limit"] = c.limit;
  check.details["leak"] = std::round(x * 100) / 100;
  check.summary = "one key round-robin over " + std::to_string(urls) + " URLs: " + std::to_string(admitted) +
                  " admitted against a limit of " + std::to_string(c.limit) + " (" + ratio(x) + ")";
  return check;
}

namespace {
// One attempt of the identity probe: exhaust the key, then the same key from another
// address, with a new X-Forwarded-For, and once more as it was (the control).
struct IdentityTry {
  std::optional<Arrival> moved, forwarded, control;  ///< the three answers after the deny
  bool denied = false;                               ///< the key was exhausted first
};

IdentityTry identityTry(AuditContext& c, std::int64_t most) {
  IdentityTry t;
  for (std::int64_t i = 0; i < most; ++i) {
    auto a = c.prober.send({"identity", "identity"});
    if (!a) return t;
    if (!a->allowed) {
      t.denied = true;
      break;
    }
  }
  if (!t.denied) return t;
  ProbeRequest other{"identity", "identity"};
  other.sourceKey = "identity-elsewhere";  // the same key from another source address
  other.fingerprinted = false;
  ProbeRequest spoofed{"identity", "identity"};
  spoofed.forwardedFor = "203.0.113.7";  // the same key and address, a new forwarded client
  spoofed.fingerprinted = false;
  ProbeRequest same{"identity", "identity"};
  same.fingerprinted = false;
  t.moved = c.prober.send(other);
  t.forwarded = c.prober.send(spoofed);
  t.control = c.prober.send(same);
  return t;
}
}  // namespace

AuditCheck probeIdentity(AuditContext& c) {
  const std::int64_t most = c.limit > 0 ? c.limit + 2 : 70;
  IdentityTry t;
  // A window that resets during the probe admits the control too: that answer says
  // nothing about identity, so the probe runs once more (twice at most).
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (!c.prober.affords(most + 3, Micros{0})) return makeCheck("identity", Verdict::Skip, "no budget left");
    t = identityTry(c, most);
    if (!t.denied) return makeCheck("identity", Verdict::Skip, "no deny within " + std::to_string(most));
    if (!t.moved || !t.forwarded || !t.control) return makeCheck("identity", Verdict::Skip, "no budget left");
    if (!t.control->allowed) break;
  }
  if (t.control->allowed)
    return makeCheck("identity", Verdict::Warn, "the key's allowance came back within the probe twice: identity not judged");
  AuditCheck check = makeCheck("identity", Verdict::Pass, "");
  const bool byAddress = t.moved->allowed;
  check.details["keyed_by"] = !c.prober.choosesAddress(0) ? "unknown"
                              : byAddress ? "source address"
                              : (c.spec.keyHeader.empty() ? "unknown" : c.spec.keyHeader);
  check.details["new_address_admitted"] = t.moved->allowed;
  check.details["new_forwarded_for_admitted"] = t.forwarded->allowed;
  check.summary = !c.prober.choosesAddress(0) ? "the source address could not be varied (not a loopback target)"
                  : byAddress ? "keyed by the source address (the key header is ignored)"
                              : "keyed by the client key, not the address";
  if (t.forwarded->allowed) {
    check.verdict = Verdict::Fail;
    check.summary += "; a new X-Forwarded-For bought a fresh allowance (spoofable)";
  } else {
    check.summary += "; a new X-Forwarded-For did not buy a fresh allowance";
  }
  return check;
}

}  // namespace rl
