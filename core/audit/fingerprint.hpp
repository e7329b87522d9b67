#pragma once
// The fingerprint: which of RateLab's six algorithms, with which quota, gives
// the target's decisions. The recorded arrivals (each probe's own key, from a
// fresh state) are replayed through the pure algorithms (limiter_state.hpp)
// on their recorded times, a virtual clock, searching:
//   window algorithms  limit x window, and for fixed_window / sliding_counter
//                      the alignment: epoch (windows at multiples of the
//                      window), or the client's first request (a window starts
//                      at the first request after the last one ended, as
//                      express-rate-limit's and rate-limit-redis' do);
//   rate algorithms    limit (burst capacity) x rate.
// A decision is explained when the model gives it as the target did; in a
// concurrent round the order is unknown, so a round explains as many admits
// and denies as both have. Ties keep the earlier candidate: declared values
// first, then smaller numbers.

#include <cstdint>
#include <vector>

#include "audit/audit_spec.hpp"
#include "audit/prober.hpp"

namespace rl {

/// What the search starts from (declared or measured): -1 = unknown. Limits are searched
/// from 1 to two above the larger of `limit` and the most admitted in one concurrent round.
struct FingerprintHints {
  std::int64_t limit = -1;     ///< declared or measured limit
  std::int64_t windowMs = -1;  ///< declared window
};

/// The best model of `arrivals` (fingerprinted, without errors); see the file comment.
Fingerprint fingerprintArrivals(const std::vector<Arrival>& arrivals, const FingerprintHints& hints);

}  // namespace rl
