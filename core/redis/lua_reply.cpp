#include "redis/lua_reply.hpp"

#include <algorithm>
#include <string>

namespace rl {

namespace {
// sliding_counter adds prev*(W-e) and curr: its level is not implied by the rest.
std::size_t fieldsOf(Algorithm a) { return a == Algorithm::SlidingCounter ? 7 : 5; }

double ratio(std::int64_t a, std::int64_t b) { return static_cast<double>(a) / static_cast<double>(b); }

// The level each core/limiter algorithm reports, from the fields the script returned.
double levelOf(Algorithm a, const Decision& d, const Quota& q, ReplyView r) {
  const std::int64_t iv = q.interval().count();
  switch (a) {
    case Algorithm::FixedWindow:
    case Algorithm::SlidingLog: return static_cast<double>(q.limit - d.remaining);
    case Algorithm::SlidingCounter:  // slidingEstimate: prev*(W-e) is exact, so is its quotient
      return ratio(r[5].integer(), q.window.count()) + static_cast<double>(r[6].integer());
    case Algorithm::TokenBucket: {
      // resetAfter = max(0, (cap - tokens) * I - carried): carried is recovered
      // exactly while reset > 0; at 0 the bucket is full (level = cap).
      if (d.resetAfter.count() == 0) return static_cast<double>(q.limit);
      const std::int64_t carried = (q.limit - d.remaining) * iv - d.resetAfter.count();
      return std::min(static_cast<double>(q.limit),
                      static_cast<double>(d.remaining) + ratio(std::max<std::int64_t>(0, carried), iv));
    }
    case Algorithm::LeakyBucket: return ratio(d.resetAfter.count(), iv);
    case Algorithm::Gcra: return ratio(std::max<std::int64_t>(0, q.limit * iv - d.resetAfter.count()), iv);
  }
  return 0;
}
}  // namespace

Result<Decision> parseLuaDecision(ReplyView r, Algorithm a, const Quota& q) {
  const std::size_t n = fieldsOf(a);
  if (r.size() != n)
    return protocolError(std::string(algorithmName(a)) + " script returned " + r.describe() + ", expected " +
                         std::to_string(n) + " integers");
  for (std::size_t i = 0; i < n; ++i)
    if (!r[i].isInteger())
      return protocolError(std::string(algorithmName(a)) + " script field " + std::to_string(i) + " is " +
                           r[i].describe());
  Decision d;
  d.allowed = r[0].integer() == 1;
  d.remaining = r[1].integer();
  d.limit = q.limit;
  d.retryAfter = Micros{r[2].integer()};
  d.resetAfter = Micros{r[3].integer()};
  d.delay = Micros{r[4].integer()};
  d.level = levelOf(a, d, q, r);
  return d;
}

}  // namespace rl
