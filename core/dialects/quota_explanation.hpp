#pragma once
// What a quota does, in numbers found by running RateLab's own limiter
// (core/limiter's decide()) on a virtual clock, never by a second formula:
//   - N simultaneous requests: how many pass at once, are delayed, are denied;
//   - a client that retries as soon as it is told it may (retryAfter): the most
//     admitted in any second and in any minute, over two minutes of traffic,
//     started at a window start and one millisecond before one (the boundary).
// Used by `ratelab-cli explain` and the window's "From config" box.

#include <cstdint>
#include <string>
#include <vector>

#include "limiter/algorithm.hpp"
#include "limiter/quota.hpp"

namespace rl {

/// The numbers of one explanation; see the file comment.
struct QuotaExplanation {
  Micros emissionInterval{0};     ///< microseconds per request at the steady rate (window / limit for windows)
  std::int64_t simultaneous = 0;  ///< N requests sent at the same instant
  std::int64_t passed = 0;        ///< of those, admitted without delay
  std::int64_t delayed = 0;       ///< admitted after a queueing delay (leaky_bucket)
  std::int64_t denied = 0;        ///< refused
  Micros longestDelay{0};         ///< the longest of those delays
  std::int64_t maxInSecond = 0;   ///< most admitted in any 1 s, greedy client
  std::int64_t maxInMinute = 0;   ///< most admitted in any 60 s, greedy client
  bool capped = false;            ///< the greedy run hit its decision cap: the maxima are lower bounds
};

/// N simultaneous requests when not given: twice the limit, at least 10, at most 100000.
std::int64_t defaultSimultaneous(const Quota& quota);

/// Runs the limiter; `quota` must be valid for `algorithm`, `simultaneous` >= 1.
QuotaExplanation explainQuota(Algorithm algorithm, const Quota& quota, std::int64_t simultaneous);

/// "100/s", "0.1/s (6/min)", "0.00139/s (5/h)": a steady rate for people.
std::string rateWords(double perSecond);
/// "10 ms", "8.621 s": an interval in the unit that reads best.
std::string intervalWords(Micros interval);

/// The few sentences `explain` prints (algorithm, interval, simultaneous, maxima).
std::vector<std::string> explanationSentences(Algorithm algorithm, const Quota& quota, const QuotaExplanation& e);

}  // namespace rl
