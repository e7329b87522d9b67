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
// first, then smaller numbers; window algorithms before rate algorithms. The
// other algorithms that explain as many decisions are named beside it.

#include <cstdint>
#include <optional>
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

/// True when the fingerprint replays `a` (and the lanes draw it): fingerprinted, and no error.
inline bool replayed(const Arrival& a) { return a.fingerprinted && !a.error; }

/// When the target saw `a`: its send plus half the round trip (unix µs), the time the fingerprint replays.
std::int64_t seenAtUs(const Arrival& a);

/// The model a fingerprint names, as the limiter math takes it.
struct FingerprintModel {
  Algorithm algorithm = Algorithm::FixedWindow;
  Quota quota;                ///< limit and window, or burst and rate
  bool firstRequest = false;  ///< windows start at the client's first request (else at the epoch)
};
/// `f`'s model; nullopt when it names none (nothing was replayed).
std::optional<FingerprintModel> modelOf(const Fingerprint& f);

/// What the fingerprint's model decided for one arrival.
struct ModelDecision {
  std::size_t arrival = 0;  ///< index into the arrivals
  bool allowed = false;     ///< the model's answer
  double level = 0;         ///< the model's level after it (tokens, queue depth, window count)
};
/// The model `f` names (fingerprintArrivals' result) replayed on `arrivals`: one decision per fingerprinted
/// arrival without an error, in arrival order. In a concurrent round, whose order is unknown, the model's
/// admits go to the requests the target admitted first, so exactly `f.explained` decisions agree.
std::vector<ModelDecision> fingerprintDecisions(const std::vector<Arrival>& arrivals, const Fingerprint& f);

}  // namespace rl
