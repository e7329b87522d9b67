#pragma once
// Presets: each demo of the window set up in one click, with the sentence
// that explains what to look at. Ids match resources/scenarios/<id>.json.

#include <QString>
#include <QStringList>
#include <optional>
#include <vector>

#include "storm/storm_spec.hpp"

namespace rl::ui {

/// The Redis outage of a preset: the managed server stops, then restarts, mid-storm.
struct OutagePlan {
  int stopAtMs = 0;     ///< ms after the storm started
  int restartAtMs = 0;  ///< ms after the storm started (> stopAtMs)
};

/// One demo: a storm, what it shows, and anything it does during the run.
struct Preset {
  QString id;                         ///< "boundary", "replica_leak", ...
  QString title;                      ///< menu text
  QString explanation;                ///< what to look at, two or three sentences
  StormSpec spec;                     ///< the storm
  std::optional<OutagePlan> outage;   ///< Redis outage preset only
  bool runRace = false;               ///< also run the race lab (race preset)
};

/// Every preset, in menu order.
const std::vector<Preset>& presets();
/// The preset with `id`, or nullptr.
const Preset* findPreset(const QString& id);
/// The ids, for `--help` and error messages.
QStringList presetIds();

}  // namespace rl::ui
