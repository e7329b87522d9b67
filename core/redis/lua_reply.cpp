#include "redis/lua_reply.hpp"

#include <algorithm>
#include <optional>
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
    case Algorithm::LeakyBucket: return ratio(d.resetAfter.count(), iv);
    case Algorithm::TokenBucket:  // resetAfter = us of refill until full, as GCRA's time ahead
    case Algorithm::Gcra: return ratio(std::max<std::int64_t>(0, q.limit * iv - d.resetAfter.count()), iv);
  }
  return 0;
}

// The one-integer reply of an admission (token_bucket: us until the bucket is
// full again; sliding_log in time order: the remaining count), or nothing.
std::optional<Decision> admittedFromInteger(ReplyView r, Algorithm a, const Quota& q) {
  Decision d;
  d.allowed = true;
  d.limit = q.limit;
  if (a == Algorithm::TokenBucket) {
    const std::int64_t iv = q.interval().count();
    const std::int64_t held = std::max<std::int64_t>(0, q.limit * iv - r.integer());
    d.remaining = held / iv;
    d.resetAfter = Micros{r.integer()};
    d.level = ratio(held, iv);
    return d;
  }
  if (a == Algorithm::SlidingLog) {
    d.remaining = r.integer();
    d.resetAfter = q.window;
    d.level = static_cast<double>(q.limit - d.remaining);
    return d;
  }
  return std::nullopt;
}
}  // namespace

Result<Decision> parseLuaDecision(ReplyView r, Algorithm a, const Quota& q) {
  if (r.isInteger())
    if (auto d = admittedFromInteger(r, a, q)) return *d;
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
