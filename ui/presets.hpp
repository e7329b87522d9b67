#pragma once
// Presets: each demo of the window set up in one click, with the sentence
// that explains what to look at. A preset IS a scenario file: every
// resources/scenarios/<id>.json with a "window" key (title, explanation,
// order, and the optional race and panel to show) is a preset,
// read from the copy embedded in rl_storm, so the window and `ratelab-cli run
// --scenario` run the same storm.

#include <QString>
#include <QStringList>
#include <optional>
#include <vector>

#include "common/result.hpp"
#include "storm/storm_spec.hpp"

namespace rl::ui {

/// One demo: a storm, what it shows, and anything it does during the run.
struct Preset {
  QString id;                         ///< "boundary", "replica_leak", ...
  QString title;                      ///< menu text
  QString explanation;                ///< what to look at, two or three sentences
  StormSpec spec;                     ///< the experiment: the storm, its variants and its fault schedule
  /// The scenario's own "on_redis_error": its runs use it, the Connection panel's choice stays (unset: the panel's).
  std::optional<FailurePolicy> policy;
  bool runRace = false;               ///< also run the race lab (race preset)
  QString show;                       ///< the dock to raise ("raceDock"), or empty
  int order = 0;                      ///< position in the menu

  /// The preset's own policy for a run of `form`: set while the form holds the preset's storm
  /// (a changed form is the user's storm, with the Connection panel's policy).
  std::optional<FailurePolicy> policyFor(const StormSpec& form) const;
};

/// Every preset, in menu order.
const std::vector<Preset>& presets();
/// Reads one preset from a scenario document; the error names the scenario and key.
Result<Preset> presetFromScenario(const QString& id, std::string_view json);
/// The preset with `id`, or nullptr.
const Preset* findPreset(const QString& id);
/// The ids, for `--help` and error messages.
QStringList presetIds();

}  // namespace rl::ui
