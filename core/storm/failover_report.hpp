#pragma once
// What a failover during a storm cost (storm/cluster_failover.hpp runs it): a
// plain value, so the window's summary can hold it without the cluster's parts.

#include <cstdint>
#include <string>

#include "limiter/time.hpp"

namespace rl {

/// What the failover cost.
struct FailoverReport {
  std::int64_t admittedBeforeKill = 0;  ///< admitted by the limiter on the old master (client's view)
  std::int64_t stateOnNewMaster = -1;   ///< admitted entries in the promoted replica's state (-1: not countable)
  std::int64_t lostWrites = -1;         ///< admittedBeforeKill - stateOnNewMaster (-1: not countable)
  std::int64_t errorsDuringFailover = 0;  ///< decisions the failure policy made from break to the end
  /// Decisions on the key that failed before the kill (e.g. WAIT timed out). Such a write
  /// stays applied on the master and may still reach the replica, so lostWrites >= -this.
  std::int64_t errorsBeforeKill = 0;
  Micros unserved{0};                   ///< from the kill to the first answer the limiter made again; -1: never
  Micros breakAt{0}, killAt{0}, promoteAt{0}, rejoinAt{0};  ///< when each step happened (since the storm's start)
  std::string master;                   ///< host:port of the killed master
  std::string promoted;                 ///< host:port of the promoted replica
  int waitReplicas = 0;                 ///< the storm's WAIT n after each admitting write (0 = none)
};

}  // namespace rl
