#pragma once
// Plain values the storm controller hands to the panels (GUI thread copies).

#include <QMetaType>
#include <QString>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "limiter/algorithm.hpp"
#include "storm/decision_record.hpp"
#include "storm/experiment.hpp"
#include "storm/failover_report.hpp"
#include "storm/storm_runner.hpp"
#include "storm/storm_spec.hpp"

namespace rl::ui {

/// One summary row: how one algorithm did in a storm.
struct AlgorithmResult {
  Algorithm algorithm = Algorithm::FixedWindow;  ///< the lane's quota rules
  QString label;                                 ///< the lane's name (stormLanes(): a script by its file name)
  QString backend;                               ///< what decided: memory, redis-lua, redis-script, ...
  std::int64_t offered = 0;                      ///< requests sent
  std::int64_t admitted = 0;                     ///< allowed
  std::int64_t denied = 0;                       ///< refused
  std::int64_t errors = 0;                       ///< store failures
  FailurePolicy policy = FailurePolicy::Open;    ///< what decided the store failures of this run
  std::int64_t limit = 0;                        ///< the limit at the end
  std::int64_t maxAdmittedInWindow = 0;          ///< worst admitted count in any window
  double overshoot = 0;                          ///< largest need / limit of an admission (metrics/over_limit.hpp)
  std::int64_t overLimitAdmitted = 0;            ///< admissions over the algorithm's own limit
  std::uint32_t worstClient = 0;                 ///< whose admission was the worst
  std::int64_t worstAtUs = -1;                   ///< when (-1: nothing admitted)
  QString bound;                                 ///< the promise judged, in words
  std::int64_t p50us = 0;                        ///< decision latency
  std::int64_t p99us = 0;                        ///< decision latency
  std::optional<FailoverReport> failover;        ///< the failover preset's lanes only
  std::int64_t targetCompared = -1;              ///< a model lane of an http storm: decisions matched with the target's
  std::int64_t targetDiffering = 0;              ///< of those, decided otherwise than the target did
};

/// The summary of a finished (or stopped) storm.
struct StormResult {
  std::vector<AlgorithmResult> algorithms;  ///< one row per lane
  std::int64_t durationMs = 0;              ///< wall time of the run
  bool cancelled = false;                   ///< stopped by the user
  /// What ran and every decision of every run (the run document, the CSV
  /// export); shared, never copied. Null when nothing ran.
  std::shared_ptr<const ExperimentResult> experiment;
};

}  // namespace rl::ui

Q_DECLARE_METATYPE(rl::StormProgress)
Q_DECLARE_METATYPE(rl::ui::StormResult)
Q_DECLARE_METATYPE(rl::StormSpec)
Q_DECLARE_METATYPE(rl::Quota)
