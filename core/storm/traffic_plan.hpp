#pragma once
// The offered traffic of a storm: every request's intended send time, client
// and replica, computed before the run starts (open model: a slow limiter
// cannot slow the offered load down).

#include <cstdint>
#include <vector>

#include "limiter/time.hpp"
#include "storm/storm_spec.hpp"

namespace rl {

/// One request the generator offers.
struct PlannedRequest {
  std::int64_t intendedUs = 0;  ///< intended send time, us since the run's start
  std::uint32_t client = 0;     ///< client index
  std::uint16_t replica = 0;    ///< replica behind the round-robin balancer
  std::int64_t cost = 1;        ///< weight (spec.cost, or the trace request's own)
};

/// Number of requests `spec` offers: `requests`, or duration x rate.
std::int64_t plannedRequestCount(const StormSpec& spec);

/// Decision-clock time of a run's start: the trace's first request on the
/// virtual clock (so `now` is the logged time), else `fallback`.
Micros planStart(const StormSpec& spec, Micros fallback);

/// The requests of a valid `spec`, sorted by intended time. `startUs` is the
/// run's start on the decision clock: `boundary` places its two halves either
/// side of the first window edge (a multiple of the window) after it.
/// Request i goes to replica i mod K (round-robin balancer) and to client
/// (i div K) mod N. With a trace: the trace's requests, client and cost as
/// logged, times relative to the first request (divided by the replay speed
/// on real clocks).
std::vector<PlannedRequest> planRequests(const StormSpec& spec, Micros startUs);

}  // namespace rl
