#pragma once
// What a failover during a storm cost: a plain value, so the window's summary
// can hold it without the cluster's parts. Scripted failovers
// (storm/cluster_failover.hpp) and Redis's own (storm/natural_failover.hpp)
// fill it; failoverJson() and failoverSentences() are the one way it is shown
// (`run --json`'s "failover", the table's lines, the window's summary).

#include <cstdint>
#include <string>
#include <vector>

#include "common/json.hpp"
#include "limiter/algorithm.hpp"
#include "limiter/time.hpp"
#include "storm/decision_record.hpp"

namespace rl {

/// One algorithm after a natural failover: what its clients saw admitted, what the new master holds.
struct FailoverKeyCount {
  Algorithm algorithm = Algorithm::FixedWindow;  ///< the lane
  std::int64_t admitted = 0;      ///< admitted by the limiter (not the failure policy), every client, the whole run
  std::int64_t onNewMaster = -1;  ///< admits the new master's state holds at the end (-1: not countable)
  std::int64_t lost = -1;         ///< admitted - onNewMaster (-1 with onNewMaster; < 0: writes the client saw fail that landed)
  std::string notCountable;       ///< why the state cannot be counted (empty when it was)
  double overshoot = -1;          ///< the run's max admitted in a window / limit (metrics; -1 = not set)
};

/// What the failover cost.
struct FailoverReport {
  std::string kind = "scripted";        ///< "scripted", "natural:kill" or "sentinel-failover"
  std::int64_t admittedBeforeKill = 0;  ///< admitted by the limiter on the old master (client's view)
  std::int64_t stateOnNewMaster = -1;   ///< admitted entries in the promoted replica's state (-1: not countable)
  std::int64_t lostWrites = -1;         ///< admittedBeforeKill - stateOnNewMaster (-1: not countable)
  std::int64_t errorsDuringFailover = 0;  ///< decisions the failure policy made from break (natural: the kill) to the end
  /// Decisions on the key that failed before the kill (e.g. WAIT timed out). Such a write
  /// stays applied on the master and may still reach the replica, so lostWrites >= -this.
  std::int64_t errorsBeforeKill = 0;
  Micros unserved{0};                   ///< from the kill to the first answer the limiter made again; -1: never
  Micros breakAt{0}, killAt{0}, promoteAt{0}, rejoinAt{0};  ///< when each step happened (since the storm's start)
  Micros electedAt{-1};                 ///< natural: when a new master was first seen (-1: none before the end)
  std::int64_t scriptReloads = 0;       ///< natural, redis-lua: NOSCRIPT answers (the new master had no scripts)
  std::vector<FailoverKeyCount> keys;   ///< natural: per algorithm of the storm
  std::string master;                   ///< host:port of the killed master
  std::string promoted;                 ///< host:port of the promoted replica (natural: the elected one)
  int waitReplicas = 0;                 ///< the storm's WAIT n after each admitting write (0 = none)
};

/// Time from `after` to the first decision the limiter answered (not the failure policy) sent after it; -1: none.
Micros firstServedAfter(const std::vector<DecisionRecord>& records, Micros after);

/// The `"failover": {...}` object of `run --json` (times in ms, "keys" per algorithm for natural failovers).
Json failoverJson(const FailoverReport& report);

/// The report as short sentences (the table's lines under the run, the window's summary caption).
std::vector<std::string> failoverSentences(const FailoverReport& report);

}  // namespace rl
