#pragma once
// Scenario files the window reads and writes (JSON, the same keys as the
// CLI's flags, via rl::specToJson / rl::loadScenario). The decisions' CSV is
// core's (metrics/run_document.hpp).

#include <QString>
#include <vector>

#include "common/result.hpp"
#include "storm/decision_record.hpp"
#include "storm/storm_spec.hpp"

namespace rl::ui {

/// Reads a scenario file; the error names the file and the bad key.
Result<StormSpec> readScenarioFile(const QString& path);
/// Writes `spec` as a scenario file (with an optional name and description).
Result<void> writeScenarioFile(const QString& path, const StormSpec& spec, const QString& name = {},
                               const QString& description = {});

}  // namespace rl::ui
