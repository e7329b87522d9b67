#include "dialects/quota_explanation.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "clock/clock.hpp"
#include "limiter/limiter_state.hpp"
#include "metrics/window_truth.hpp"

namespace rl {

namespace {
constexpr std::int64_t kMaxDecisions = 4'000'000;  // the greedy run's cap (about 0.2 s)
constexpr Micros kHorizon = 121 * kSecond;         // two minutes (and a second) of greedy traffic

// A client that sends again as soon as it may, from `start` for kHorizon; admitted times appended.
bool greedyRun(Algorithm a, const Quota& q, Micros start, std::vector<std::int64_t>& admitted) {
  VirtualClock clock(start);
  LimiterState state = freshState(a);
  std::int64_t decisions = 0;
  while (clock.now() < start + kHorizon) {
    if (++decisions > kMaxDecisions) return false;
    const Step s = decide(a, state, clock.now(), 1, q);
    if (s.decision.allowed) {
      admitted.push_back(clock.now().count());
    } else {
      clock.advanceTo(clock.now() + std::max(s.decision.retryAfter, Micros{1}));
    }
  }
  return true;
}

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}
}  // namespace

std::int64_t defaultSimultaneous(const Quota& quota) {
  return std::clamp<std::int64_t>(2 * quota.limit, 10, 100'000);
}

QuotaExplanation explainQuota(Algorithm a, const Quota& q, std::int64_t simultaneous) {
  QuotaExplanation e;
  e.emissionInterval = q.interval();
  e.simultaneous = simultaneous;
  // An aligned instant far from zero, so windows start there.
  const Micros t0{q.window.count() * (1'000'000'000'000'000 / q.window.count() / 1000)};
  LimiterState state = freshState(a);
  for (std::int64_t i = 0; i < simultaneous; ++i) {
    const Decision d = decide(a, state, t0, 1, q).decision;
    if (!d.allowed) ++e.denied;
    else if (d.delay.count() > 0) ++e.delayed, e.longestDelay = std::max(e.longestDelay, d.delay);
    else ++e.passed;
  }
  for (Micros start : {t0, t0 + q.window - kMillisecond}) {
    std::vector<std::int64_t> admitted;
    e.capped = !greedyRun(a, q, start, admitted) || e.capped;
    e.maxInSecond = std::max(e.maxInSecond, maxInAnyWindow(admitted, kSecond.count()));
    e.maxInMinute = std::max(e.maxInMinute, maxInAnyWindow(admitted, 60 * kSecond.count()));
  }
  return e;
}

std::string rateWords(double perSecond) {
  if (perSecond >= 1) return number(perSecond) + "/s";
  if (perSecond * 60 >= 1) return number(perSecond) + "/s (" + number(perSecond * 60) + "/min)";
  return number(perSecond) + "/s (" + number(perSecond * 3600) + "/h)";
}

std::string intervalWords(Micros interval) {
  const auto us = interval.count();
  if (us < 1000) return std::to_string(us) + " us";
  if (us < 1'000'000) return number(static_cast<double>(us) / 1e3) + " ms";
  return number(static_cast<double>(us) / 1e6) + " s";
}

std::vector<std::string> explanationSentences(Algorithm a, const Quota& q, const QuotaExplanation& e) {
  std::vector<std::string> out;
  const double rate = isRateBased(a) ? q.ratePerSecond() : 1e6 / static_cast<double>(e.emissionInterval.count());
  if (isRateBased(a))
    out.push_back(std::string(algorithmName(a)) + ", limit " + std::to_string(q.limit) + ", " + rateWords(rate) +
                  ": up to " + std::to_string(q.limit) + " at once, then one request per emission interval.");
  else
    out.push_back(std::string(algorithmName(a)) + ", limit " + std::to_string(q.limit) + " per " +
                  intervalWords(q.window) + " (" + rateWords(rate) + " on average).");
  out.push_back("Emission interval " + intervalWords(e.emissionInterval) + ".");
  auto verb = [](std::int64_t n, const char* one, const char* many) { return std::to_string(n) + (n == 1 ? one : many); };
  std::string s = "Of " + std::to_string(e.simultaneous) + " simultaneous requests, " +
                  verb(e.passed, " passes", " pass") + " at once, " + verb(e.delayed, " is", " are") + " delayed";
  if (e.delayed > 0) s += " (the last by " + intervalWords(e.longestDelay) + ")";
  out.push_back(s + " and " + verb(e.denied, " is", " are") + " denied.");
  out.push_back(std::string("A client retrying as soon as it may gets ") + (e.capped ? "at least " : "") +
                std::to_string(e.maxInSecond) + " admitted in its busiest second and " + std::to_string(e.maxInMinute) +
                " in its busiest minute.");
  return out;
}

}  // namespace rl
