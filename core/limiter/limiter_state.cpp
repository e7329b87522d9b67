#include "limiter/limiter_state.hpp"

namespace rl {

LimiterState freshState(Algorithm a) {
  switch (a) {
    case Algorithm::FixedWindow: return FixedWindowState{};
    case Algorithm::SlidingLog: return SlidingLogState{};
    case Algorithm::SlidingCounter: return SlidingCounterState{};
    case Algorithm::TokenBucket: return TokenBucketState{};
    case Algorithm::LeakyBucket: return LeakyBucketState{};
    case Algorithm::Gcra: return GcraState{};
  }
  return FixedWindowState{};
}

Step decide(Algorithm a, LimiterState& state, Micros now, std::int64_t cost, const Quota& q) {
  if (state.index() != static_cast<std::size_t>(a)) state = freshState(a);
  return std::visit([&](auto& s) { return decide(s, now, cost, q); }, state);
}

}  // namespace rl
