// discover, burst, headers, retry_after (probes.hpp). The timed probes are in probes_timed.cpp.

#include "audit/probes.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace rl {
namespace {

std::string ms(std::int64_t v) { return std::to_string(v) + " ms"; }

// Sequential requests on `key` until the first deny (at most `most`).
std::vector<Arrival> untilDenied(AuditContext& c, const ProbeRequest& r, std::int64_t most) {
  std::vector<Arrival> out;
  for (std::int64_t i = 0; i < most; ++i) {
    auto a = c.prober.send(r);
    if (!a) break;
    out.push_back(*a);
    if (a->error || !a->allowed) break;
  }
  return out;
}

AuditCheck errorCheck(std::string name, const Arrival& e) {
  return makeCheck(std::move(name), Verdict::Fail, "the target failed a request: " + e.errorText);
}

// True when a round's admits read as two windows' worth, not as one window
// over-admitted: every admit said how many remain, no count of remaining
// repeats more than twice (once per window), and no more than two limits
// were admitted. A check-then-increment race repeats one count many times.
bool splitByReset(const std::vector<Arrival>& round, std::int64_t limit) {
  std::map<std::int64_t, int> seen;
  std::int64_t admits = 0;
  for (const Arrival& a : round) {
    if (!a.allowed) continue;
    ++admits;
    if (a.headers.remaining < 0 || a.headers.remaining >= limit || ++seen[a.headers.remaining] > 2) return false;
  }
  return admits <= 2 * limit;
}

}  // namespace

AuditCheck makeCheck(std::string name, Verdict verdict, std::string summary) {
  AuditCheck c;
  c.name = std::move(name);
  c.verdict = verdict;
  c.summary = std::move(summary);
  return c;
}

std::int64_t admittedIn(const std::vector<Arrival>& v) {
  return std::count_if(v.begin(), v.end(), [](const Arrival& a) { return a.allowed; });
}

const Arrival* firstError(const std::vector<Arrival>& v) {
  const auto it = std::find_if(v.begin(), v.end(), [](const Arrival& a) { return a.error; });
  return it == v.end() ? nullptr : &*it;
}

AuditCheck probeDiscover(AuditContext& c) {
  std::vector<Arrival> seen;
  for (int i = 0; i < 3; ++i) {
    if (i > 0 && !c.prober.sleepUntil(c.prober.nowUs() + 200'000)) break;
    if (auto a = c.prober.send({"discover", "discover"})) seen.push_back(*a);
  }
  if (seen.empty()) return makeCheck("discover", Verdict::Skip, "no budget left");
  if (const Arrival* e = firstError(seen)) return errorCheck("discover", *e);
  const LimitHeaders* best = nullptr;
  for (const Arrival& a : seen)
    if (a.headers.dialect != LimitDialect::None && (best == nullptr || a.headers.policies.size() > best->policies.size()))
      best = &a.headers;
  AuditCheck check = makeCheck("discover", Verdict::Pass, "");
  check.details["requests"] = seen.size();
  check.details["admitted"] = admittedIn(seen);
  if (best == nullptr) {
    check.verdict = Verdict::Warn;
    check.summary = "no limit headers: the limit and its window are measured, not declared";
    return check;
  }
  DeclaredPolicy& d = c.declared;
  d.dialect = std::string(limitDialectName(best->dialect));
  d.limit = best->limit;
  d.windowS = best->windowS;
  d.policies = static_cast<int>(best->policies.size());
  d.resetInference = best->resetInference;
  for (const auto& p : best->policies)
    if (p.quota == best->limit) d.name = p.name;
  c.limit = d.limit;
  c.windowMs = d.windowS > 0 ? d.windowS * 1000 : -1;
  if (c.windowMs < 0 && best->resetMs > 0) {  // no window declared: the first reset, in whole seconds, stands in
    c.windowMs = (best->resetMs + 999) / 1000 * 1000;
    check.details["window_estimated_ms"] = c.windowMs;
  }
  check.summary = d.dialect + ": " + (d.limit >= 0 ? std::to_string(d.limit) : std::string("?")) + " per " +
                  (d.windowS >= 0 ? std::to_string(d.windowS) + " s" : std::string("? s")) +
                  (d.name.empty() ? "" : " (policy \"" + d.name + "\")") +
                  (d.policies > 1 ? ", " + std::to_string(d.policies) + " policies" : "");
  if (d.limit < 0) check.verdict = Verdict::Warn;
  return check;
}

AuditCheck probeBurst(AuditContext& c) {
  const std::int64_t assumed = c.limit > 0 ? c.limit : 20;
  const int n = static_cast<int>(std::clamp<std::int64_t>(2 * assumed + 2, 10, 64));
  const std::int64_t gaps[] = {0, 250'000, 500'000};
  std::vector<std::int64_t> admitted;
  std::vector<Arrival> all;
  int resets = 0;  // rounds a window reset split, each sent once more on a fresh key
  bool unjudged = false;
  for (std::int64_t gap : gaps) {
    if (gap > 0 && !c.prober.sleepUntil(c.prober.nowUs() + gap)) break;
    auto round = c.prober.sendRound(n, {"burst", "burst"});
    if (round.empty()) break;
    all.insert(all.end(), round.begin(), round.end());
    for (int again = 1; c.limit > 0 && admittedIn(round) > c.limit && splitByReset(round, c.limit); ++again) {
      if (again > 2) {
        unjudged = true;
        break;
      }
      ++resets;
      if (!c.prober.sleepUntil(c.prober.nowUs() + 100'000)) break;
      auto fresh = c.prober.sendRound(n, {"burst", "burst-again-" + std::to_string(resets)});
      if (fresh.empty()) break;
      all.insert(all.end(), fresh.begin(), fresh.end());
      round = std::move(fresh);
    }
    admitted.push_back(admittedIn(round));
  }
  if (admitted.empty()) return makeCheck("burst", Verdict::Skip, "no budget for a round of " + std::to_string(n));
  if (const Arrival* e = firstError(all)) return errorCheck("burst", *e);
  const std::int64_t most = *std::max_element(admitted.begin(), admitted.end());
  AuditCheck check = makeCheck("burst", Verdict::Pass, "");
  check.details["concurrency"] = n;
  check.details["admitted_per_round"] = admitted;
  check.details["max_admitted"] = most;
  check.details["rounds_split_by_reset"] = resets;
  if (c.limit < 0) {
    c.limit = admitted.front();
    check.details["limit"] = nullptr;
    check.summary = std::to_string(admitted.size()) + " rounds of " + std::to_string(n) + ": " +
                    std::to_string(admitted.front()) + " admitted at once (no declared limit to hold it to)";
    return check;
  }
  const auto over = std::count_if(admitted.begin(), admitted.end(), [&](std::int64_t a) { return a > c.limit; });
  check.details["limit"] = c.limit;
  check.details["over_limit_rounds"] = over;
  check.summary = std::to_string(admitted.size()) + " rounds of " + std::to_string(n) + " at once: at most " +
                  std::to_string(most) + " admitted against a limit of " + std::to_string(c.limit);
  if (resets > 0)
    check.summary += " (" + std::to_string(resets) + (resets == 1 ? " round" : " rounds") +
                     " split by a window reset, sent again on a fresh key)";
  if (unjudged) {
    check.verdict = Verdict::Warn;
    check.summary = "a window reset split every try of a round of " + std::to_string(n) +
                    ": its admits cannot be held to one window's limit of " + std::to_string(c.limit);
  } else if (over > 0) {
    check.verdict = Verdict::Fail;
    check.summary += " (" + std::to_string(over) + " rounds over the limit: " +
                     (most > c.limit ? std::to_string(most - c.limit) + " too many" : std::string()) + ")";
  }
  return check;
}

AuditCheck probeHeaders(AuditContext& c) {
  const std::int64_t most = c.limit > 0 ? c.limit + 3 : 70;
  c.exhausted = untilDenied(c, {"headers", "headers"}, most);
  const auto& v = c.exhausted;
  if (v.empty()) return makeCheck("headers", Verdict::Skip, "no budget left");
  if (const Arrival* e = firstError(v)) return errorCheck("headers", *e);
  if (v.front().headers.remaining < 0 && v.front().headers.limit < 0)
    return makeCheck("headers", Verdict::Skip, "no remaining or limit header to check");
  std::vector<std::string> fails, warns;
  std::int64_t lastRemaining = -1, lastReset = -1;
  for (std::size_t i = 0; i < v.size(); ++i) {
    const LimitHeaders& h = v[i].headers;
    const bool lastAdmit = v[i].allowed && (i + 1 == v.size() || !v[i + 1].allowed);
    if (v[i].allowed && lastRemaining >= 0 && h.remaining >= 0 && h.remaining != lastRemaining - 1)
      fails.push_back("remaining went " + std::to_string(lastRemaining) + " -> " + std::to_string(h.remaining) +
                      " on admit " + std::to_string(i + 1) + " (cost 1)");
    if (lastAdmit && h.remaining > 0 && i + 1 < v.size())
      fails.push_back("remaining was " + std::to_string(h.remaining) + " at the last admit, not 0");
    if (h.limit >= 0 && h.remaining > h.limit)
      fails.push_back("remaining " + std::to_string(h.remaining) + " above the limit " + std::to_string(h.limit));
    for (const LimitState& s : h.states)
      if (!s.name.empty() && std::none_of(h.policies.begin(), h.policies.end(), [&](const LimitPolicy& p) { return p.name == s.name; }))
        fails.push_back("RateLimit names \"" + s.name + "\", which RateLimit-Policy does not declare");
    if (lastReset >= 0 && h.resetMs > lastReset + 1000 && v[i].allowed)
      warns.push_back("reset grew from " + ms(lastReset) + " to " + ms(h.resetMs) + " within the window");
    if (!v[i].allowed && h.retryAfterMs >= 0 && h.resetMs > h.retryAfterMs + 1000)
      warns.push_back("Retry-After " + ms(h.retryAfterMs) + " is shorter than the reset " + ms(h.resetMs));
    if (h.remaining >= 0) lastRemaining = h.remaining;
    if (h.resetMs >= 0) lastReset = h.resetMs;
  }
  AuditCheck check = makeCheck("headers", fails.empty() ? (warns.empty() ? Verdict::Pass : Verdict::Warn) : Verdict::Fail, "");
  check.details["requests"] = v.size();
  check.details["admitted"] = admittedIn(v);
  check.details["problems"] = fails;
  check.details["warnings"] = warns;
  check.summary = !fails.empty() ? fails.front() : !warns.empty() ? warns.front()
                : "remaining fell by one per admit to 0 at the last of " + std::to_string(admittedIn(v)) + " admits";
  return check;
}

}  // namespace rl
