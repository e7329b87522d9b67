#pragma once
// One grid point over a trace: the pure limiter math (core/limiter) decides
// every request of every client, in time order, on the trace's own times,
// exactly as a virtual-clock storm on the memory store would.

#include <atomic>
#include <cstdint>
#include <vector>

#include "limiter/algorithm.hpp"
#include "limiter/quota.hpp"
#include "tune/client_streams.hpp"

namespace rl {

/// What one quota would have done to the trace.
struct PointOutcome {
  std::int64_t offered = 0;        ///< requests
  std::int64_t denied = 0;         ///< requests denied
  std::int64_t legitOffered = 0;   ///< requests from legitimate clients
  std::int64_t legitDenied = 0;    ///< of those, denied
  std::int64_t clientsDenied = 0;  ///< clients denied at least once
  std::int64_t legitClientsDenied = 0;  ///< legitimate clients denied at least once
  std::int64_t worstAdmitted = 0;  ///< most cost admitted to one client in any peak window
  std::int64_t firstDenialUs = -1; ///< time of the first denial (us since the epoch), -1 = none
  bool complete = true;            ///< false when cancelled part way
};

/// Evaluates `quota` (valid for `a`) over `s`. `legit[c]` != 0 marks client c
/// legitimate. A request costing more than the limit is denied (it could never
/// pass). `allowed`, when given, receives each decision in trace order
/// (index = Trace::requests index). `cancel` is checked between clients.
PointOutcome evaluatePoint(const ClientStreams& s, const std::vector<char>& legit, Algorithm a, const Quota& quota,
                           Micros peakWindow, std::vector<std::uint8_t>* allowed = nullptr,
                           const std::atomic<bool>* cancel = nullptr);

}  // namespace rl
