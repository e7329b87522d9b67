#pragma once
// An HTTP target beside RateLab's models of it. A storm against a foreign
// limiter (`--backend http`) has one lane for the target: the target decides,
// whatever the algorithm list says (the first algorithm's quota is the limit
// it is judged by). The listed algorithms are then replayed on the target's
// own arrivals: every request at the time it was sent, per client, in memory
// on the virtual clock from the same epoch instant, so each model decides
// exactly the requests the target decided, and the decisions that differ
// say how well the model explains the target. No second storm is sent.

#include <cstdint>
#include <vector>

#include "storm/storm_runner.hpp"
#include "trace/trace.hpp"

namespace rl {

/// The model run of an http storm `spec` (comparedRuns adds it after the target's run): memory, virtual clock,
/// one replica, every listed algorithm; its traffic is set from the target's outcome by withArrivals().
StormSpec modelRunOf(const StormSpec& spec);

/// `model` (a modelRunOf spec) with the arrivals of `target` (the target run's outcome) as its trace:
/// one request per decision, at the limiters' epoch time it was sent, keyed by client. (The send, not send
/// plus half the round trip: in a concurrent burst the send order is the order the target decides in.)
StormSpec withArrivals(StormSpec model, const StormOutcome& target);

/// Per lane of the model run: how many of the target's decisions it decided otherwise, matching each
/// client's k-th request in both (the same arrival).
struct ModelAgreement {
  std::int64_t compared = 0;   ///< decisions matched
  std::int64_t differing = 0;  ///< of those, with the other answer
};
std::vector<ModelAgreement> modelAgreement(const StormOutcome& target, const StormOutcome& model, std::size_t modelLanes);

}  // namespace rl
