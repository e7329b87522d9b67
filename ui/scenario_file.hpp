#pragma once
// Files the window reads and writes: scenarios (JSON, the same keys as the
// CLI's flags, via rl::specToJson / rl::loadScenario) and every decision of a
// storm as CSV.

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
/// Writes one CSV row per decision (header first). Slow for millions: call off the GUI thread.
Result<void> writeDecisionsCsv(const QString& path, const StormSpec& spec, const std::vector<DecisionRecord>& records);

}  // namespace rl::ui
