#pragma once
// Step: what one pure algorithm call returns besides the updated state.

#include "limiter/decision.hpp"

namespace rl {

/// The outcome of one algorithm call on a state.
struct Step {
  Decision decision;  ///< the answer for this request
  bool wrote = false; ///< the state changed: a store must persist it and (re)set its TTL
  Micros ttl{0};      ///< when `wrote`: how long until the state equals a fresh key (> 0)
};

}  // namespace rl
