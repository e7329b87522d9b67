// retry_after (probes.hpp): after a deny, wait what the target said and retry.

#include <algorithm>

#include "audit/probes.hpp"

namespace rl {
namespace {

// One retry at `atUs` (steady, since the audit's start) on the exhausted key.
std::optional<Arrival> retryAt(AuditContext& c, const std::string& key, std::int64_t atUs) {
  if (!c.prober.sleepUntil(atUs)) return std::nullopt;
  return c.prober.send({"retry_after", key});
}

std::string seconds(std::int64_t ms) {
  const auto tenths = (ms + 50) / 100;
  return std::to_string(tenths / 10) + "." + std::to_string(tenths % 10) + " s";
}

// The unit a wait that cannot be meant as seconds was meant in: the first reading
// after which a retry is admitted.
AuditCheck otherUnits(AuditContext& c, const Arrival& deny, std::int64_t raw, AuditCheck check) {
  struct Reading {
    const char* unit;
    std::int64_t waitMs;
  };
  const std::int64_t nowMs = deny.wallUs / 1000;
  const Reading readings[] = {{"milliseconds", raw},
                              {"an epoch time in seconds", raw * 1000 - nowMs},
                              {"an epoch time in milliseconds", raw - nowMs}};
  for (const Reading& r : readings) {
    if (r.waitMs <= 0 || !c.prober.affords(1, Micros{(r.waitMs + 100) * 1000})) continue;
    auto a = retryAt(c, deny.key.substr(c.spec.runTag.size()), deny.sentUs + (r.waitMs + 50) * 1000);
    if (!a) break;
    if (a->allowed) {
      check.verdict = Verdict::Fail;
      check.details["meant"] = r.unit;
      check.summary = "Retry-After " + std::to_string(raw) + " must have meant " + r.unit + ": admitted " +
                      seconds((a->sentUs - deny.sentUs) / 1000) + " later";
      return check;
    }
  }
  check.verdict = Verdict::Fail;
  check.summary = "Retry-After " + std::to_string(raw) + " s is implausible (over ten windows or the budget) and no "
                  "other unit explains it";
  return check;
}

}  // namespace

AuditCheck probeRetryAfter(AuditContext& c) {
  const auto deny = std::find_if(c.exhausted.begin(), c.exhausted.end(), [](const Arrival& a) { return !a.allowed && !a.error; });
  if (deny == c.exhausted.end()) return makeCheck("retry_after", Verdict::Skip, "no deny to retry after");
  const LimitHeaders& h = deny->headers;
  if (h.retryAfterMs < 0) return makeCheck("retry_after", Verdict::Skip, "the deny carried no Retry-After");
  AuditCheck check = makeCheck("retry_after", Verdict::Pass, "");
  const std::int64_t said = h.retryAfterMs;
  check.details["retry_after_ms"] = said;
  check.details["form"] = h.retryAfterIsDate ? "http-date" : "delta-seconds";
  const std::string key = deny->key.substr(c.spec.runTag.size());
  const bool tooLong = (c.windowMs > 0 && said > 10 * c.windowMs) || !c.prober.affords(2, Micros{(said + 200) * 1000});
  if (tooLong && h.retryAfterRaw >= 0) return otherUnits(c, *deny, h.retryAfterRaw, std::move(check));
  if (tooLong) return makeCheck("retry_after", Verdict::Skip, "Retry-After " + seconds(said) + " exceeds the budget");
  if (said >= 3000) {  // admitted at half the wait: the target said far more than it meant
    auto half = retryAt(c, key, deny->sentUs + said * 500);
    if (half && half->allowed) {
      check.verdict = Verdict::Warn;
      check.details["admitted_after_ms"] = (half->sentUs - deny->sentUs) / 1000;
      check.summary = "pessimistic: admitted after " + seconds((half->sentUs - deny->sentUs) / 1000) + " of the " +
                      seconds(said) + " it said";
      return check;
    }
  }
  auto after = retryAt(c, key, deny->sentUs + (said + 50) * 1000);
  if (!after) return makeCheck("retry_after", Verdict::Skip, "no budget left to wait " + seconds(said));
  if (after->error) return makeCheck("retry_after", Verdict::Fail, "the target failed the retry: " + after->errorText);
  check.details["admitted_after_ms"] = after->allowed ? (after->sentUs - deny->sentUs) / 1000 : -1;
  if (!after->allowed) {
    check.verdict = Verdict::Fail;
    check.summary = "early: still denied after waiting the " + seconds(said) + " it said";
    return check;
  }
  check.summary = "honest: admitted after the " + seconds(said) + " it said";
  return check;
}

}  // namespace rl
