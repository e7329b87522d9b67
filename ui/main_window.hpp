#pragma once
// MainWindow: assembles the panels around the lanes, wires them to the
// WorkerController, and holds the window's habits: menus, presets, shortcuts
// (Space start/stop, F5 inspector, Ctrl+S save scenario, Ctrl+E export PNG),
// themes and QSettings (geometry, dock layout, last settings). Assembly
// only: every panel is its own widget and all work runs in the controller.

#include <QMainWindow>
#include <functional>
#include <optional>

#include "common/result.hpp"
#include "ui/charts/lane_model.hpp"
#include "ui/charts/theme.hpp"
#include "ui/panels/save_path.hpp"
#include "ui/presets.hpp"
#include "ui/run_history.hpp"
#include "ui/workers/race_worker.hpp"

class QSettings;
class QLabel;

namespace rl::ui {

class WorkerController;
class ConnectionPanel;
class StormPanel;
class LanesPanel;
class RaceLabPanel;
class KeyInspectorPanel;
class SummaryPanel;
class RunToolBar;
class TunePanel;
class HttpAuditPanel;
class HistoryPanel;

/// The RateLab window; see the file comment.
class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  /// `controller` must outlive the window.
  explicit MainWindow(WorkerController& controller, QWidget* parent = nullptr);

  /// Fills the forms from a preset and shows its explanation.
  void applyPreset(const Preset& preset);
  /// Starts a storm from the form; false (with a visible message) when the form is invalid.
  bool startStorm();
  /// Switches the theme of the widgets and charts.
  void setTheme(Theme t);
  /// Shows and raises a dock: "summaryDock", "raceDock", "inspectorDock", ...
  void raiseDock(const QString& objectName);
  /// The current theme.
  Theme theme() const { return theme_; }

  /// Loads a scenario file into the form.
  Result<void> loadScenario(const QString& path);
  /// Saves the form as a scenario file. When the last storm was tuned live and
  /// the form still holds the quota it was tuned to, the file holds the quota the
  /// storm started with and every change at the time it was made, so it replays.
  Result<void> saveScenario(const QString& path);
  /// Saves the charts as a PNG: every lane, also those scrolled out of view, the level and TTL.
  Result<void> exportPng(const QString& path);
  /// Saves the whole window as a PNG (screenshots).
  Result<void> exportWindowPng(const QString& path);
  /// Saves the summary as JSON.
  Result<void> exportJson(const QString& path);
  /// The last finished storm's run document (`ratelab-cli run --json`'s), empty when none finished.
  QByteArray runDocumentText() const;
  /// Writes every decision of the last storm as CSV (off the GUI thread).
  void exportCsv(const QString& path);
  /// Every menu shortcut and what it does, one per line (Help > Keyboard shortcuts).
  QString shortcutsText() const;
  /// Writes the last storm's self-contained HTML report (`ratelab-cli run --report`'s, core/report),
  /// headed by the preset and the connected Redis's version. Blocking (the menu's runs on a thread).
  Result<void> exportReport(const QString& path) const;
  /// Writes the last race lab run's HTML report (`ratelab-cli race --report`'s).
  Result<void> exportRaceReport(const QString& path) const;

  /// Stores geometry, dock layout, theme and the form.
  void saveSettings(QSettings& settings) const;
  /// Restores what saveSettings stored.
  void restoreSettings(const QSettings& settings);

  ConnectionPanel* connectionPanel() const { return connection_; }  ///< panel
  StormPanel* stormPanel() const { return storm_; }                 ///< panel
  LanesPanel* lanesPanel() const { return lanes_; }                 ///< panel
  RaceLabPanel* raceLabPanel() const { return race_; }              ///< panel
  KeyInspectorPanel* keyInspectorPanel() const { return inspector_; }  ///< panel
  SummaryPanel* summaryPanel() const { return summary_; }           ///< panel
  TunePanel* tunePanel() const { return tune_; }                    ///< panel
  HttpAuditPanel* httpAuditPanel() const { return audit_; }         ///< panel
  HistoryPanel* historyPanel() const { return history_; }           ///< panel
  /// The window's last finished storms (History tab).
  const RunHistory& runHistory() const { return runs_; }
  /// Draws run `number` of the history again (lanes, TTL, Summary); exports then write it.
  void showRun(int number);
  /// Draws run `number` of the history under the latest run, lane by lane.
  void compareWithLatest(int number);
  /// View > Compare with previous run: the run before the latest beside it.
  void compareWithPrevious();

 signals:
  /// A storm started from this window finished (and the lanes were refreshed).
  void stormDone();
  /// A race started from this window finished.
  void raceDone();

 protected:
  void closeEvent(QCloseEvent* event) override;
  void showEvent(QShowEvent* event) override;

 private:
  void updateHint();
  void buildDocks();
  void buildMenus();
  void wireController();
  void wireStorm();
  void wireServing();
  void wireRaceAndInspector();
  void wireTune();
  void wireHttpAudit();
  void wireHistory();
  /// Keeps the storm that just finished in the run history.
  void recordRun();
  /// The result the lanes show: a past run's when one is shown, else the latest.
  const StormResult& shownResult() const;
  void drawRun(const std::vector<StormLane>& lanes, TtlSource ttl, const std::vector<TtlSample>& samples,
               std::int64_t wallUs, LaneModel& model, std::int64_t spanUs, int client = kWorstClient);
  void startRace();
  void onStormFinished();
  /// The Summary while a storm runs: each lane's counts so far.
  void showLiveSummary();
  void showError(const QString& message);
  /// The failure policy of the next run: the loaded preset's own while the form holds its storm,
  /// else the Connection panel's.
  FailurePolicy runPolicy() const;
  template <class Fn>
  /// Asks for a file to open (`save` empty) or to save to (a dated name suggested, its extension added), then runs `fn`.
  void fileAction(const QString& title, const QString& filter, std::optional<SaveAs> save, Fn&& fn);
  /// File > Export report: a dated name suggested, ".html" added, written off the GUI thread.
  void exportReportAs();
  /// File > Export race report: a dated name suggested, ".html" added.
  void exportRaceReportAs();
  /// Draws a finished audit's arrivals (audit_experiment.hpp) in the lanes, as a run of the History.
  void showAudit(const std::shared_ptr<const ExperimentResult>& experiment, const QString& target);
  /// Draws a running audit's arrivals so far (and the model that explains them so far), not kept in the History.
  void showAuditSoFar(const std::shared_ptr<const ExperimentResult>& experiment);
  /// Runs `work` (a file export) on its own thread; its sentence then shows in the status line.
  void inBackground(std::function<QString()> work);
  /// On the GUI thread: what the report of the last storm needs, as work any thread may run.
  Result<std::function<Result<void>()>> reportWriter(const QString& path) const;

  WorkerController& controller_;
  ConnectionPanel* connection_;
  StormPanel* storm_;
  LanesPanel* lanes_;
  RaceLabPanel* race_;
  KeyInspectorPanel* inspector_;
  SummaryPanel* summary_;
  RunToolBar* toolbar_;  ///< Start/Stop, presets, Reset
  TunePanel* tune_;
  HttpAuditPanel* audit_;
  HistoryPanel* history_;
  QLabel* refreshLabel_;
  bool redisUp_ = false;  ///< the last status check found Redis answering
  std::optional<Preset> preset_;  ///< the preset the form was last set from
  Theme theme_ = Theme::Light;
  bool docksSized_ = false;  ///< default dock sizes applied (first show without saved state)
  std::optional<RaceSpec> raceSpec_;      ///< what the last race lab run raced
  std::optional<RaceResult> raceResult_;  ///< how it ended (none while it runs)
  RunHistory runs_;
  LaneModel pastModel_;  ///< what the lanes draw while a past run (or a comparison) is shown
  int shownRun_ = 0;     ///< 0: the latest (or live) run; N: past run N; -1: a comparison
  std::shared_ptr<std::vector<TtlSample>> ttlNow_;  ///< the running storm's TTL samples (its PastRun keeps them)
  QString fileNote_;  ///< what a file action adds to its status line (set by the action, shown by fileAction)
};

}  // namespace rl::ui
