#pragma once
// StormPanel: the form that describes a storm (backend, algorithms, quota,
// traffic, replicas, clock), Start/Stop and the progress of the running storm.
// Invalid input is refused here with one visible message; nothing starts.

#include <QWidget>
#include <map>

#include "common/result.hpp"
#include "storm/storm_runner.hpp"
#include "storm/storm_spec.hpp"
#include "ui/workers/storm_types.hpp"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QToolButton;
class QVBoxLayout;

namespace rl::ui {

class ConfigQuotaBox;
class HttpTargetBox;
class ScriptBox;
class LabeledSlider;

/// The storm form; see the file comment.
class StormPanel : public QWidget {
  Q_OBJECT
 public:
  explicit StormPanel(QWidget* parent = nullptr);

  /// The form as a validated spec, or the error naming the field and what is allowed.
  Result<StormSpec> spec() const;
  /// Fills the form from `spec` (scenario load, presets).
  void setSpec(const StormSpec& spec);
  /// The quota fields (limit, window, refill) as a quota (unvalidated).
  Quota quota() const;
  /// Switches Start/Stop and locks the fields that cannot change mid-storm.
  void setRunning(bool running);
  /// Updates the progress bar and its label.
  void setProgress(const rl::StormProgress& p);
  /// Shows `message` in red under the form (empty clears it).
  void showError(const QString& message);
  /// The visible error text (empty when none).
  QString errorText() const;
  /// Shows what the loaded preset demonstrates (empty hides it).
  void setExplanation(const QString& text);
  /// Shows whether the form is served over HTTP, with the URLs to hit.
  void setServing(bool serving, const QString& text);
  /// The "Serve over HTTP" toggle.
  QPushButton* serveButton() const { return serve_; }
  /// The front chosen for serving: "builtin", "nginx" or "none".
  QString serveFront() const;
  /// Start/Stop button (the Space shortcut clicks it).
  QPushButton* startButton() const { return start_; }
  /// The progress bar and the progress line under Start (tests: always in view).
  QProgressBar* progressBar() const { return progress_; }
  QLabel* progressLine() const { return progressText_; }
  /// Failure policy lives in the connection panel; the storm form reads it from there.
  void setFailurePolicy(FailurePolicy p) { policy_ = p; }
  /// Replays `trace` instead of the pattern (a null trace goes back to the pattern).
  void setTrace(const SharedTrace& trace, const TraceOptions& options);
  /// Checks only `algorithm` and sets the quota fields to `quota` (a cell of the Tune panel).
  void setAlgorithmAndQuota(Algorithm algorithm, const Quota& quota);
  /// Selects the clock (virtual, server, client).
  void setClock(ClockMode clock);
  /// Redis URL lives in the connection panel.
  void setRedisUrl(const QString& url) { redisUrl_ = url; }
  /// The first-run form: 1,000 requests at fixed_window, as fast as possible.
  void resetToFirstRun();
  /// Chooses `b` unless the user or a loaded spec already chose a backend
  /// (the window prefers redis-lua once Redis answers).
  void setDefaultBackend(Backend b);
  /// The backend the form shows.
  Backend backend() const;
  /// The "From config" box of the quota area.
  ConfigQuotaBox* configBox() const { return config_; }

 signals:
  /// The user asked for a storm and the form is valid.
  void startRequested(const rl::StormSpec& spec);
  /// The user asked to stop the running storm.
  void stopRequested();
  /// Serve the form over HTTP (valid spec; the first checked algorithm is served).
  void serveRequested(const rl::StormSpec& spec);
  /// Stop serving over HTTP.
  void serveStopRequested();
  /// Limit, window or refill changed while a storm runs (already validated).
  void quotaTuned(const rl::Quota& quota);
  /// The backend or the algorithms ticked changed (what a storm would fire at).
  void whatChanged();

 private:
  QWidget* buildAlgorithms();
  QWidget* buildQuota();
  /// Start, Serve over HTTP and its front, the progress bar and line, the error line.
  void buildRunControls(QVBoxLayout* layout);
  QWidget* buildTraffic();
  QWidget* buildAdvanced(QWidget* box);
  void onStartClicked();
  void onQuotaEdited();
  Result<std::vector<Micros>> parseSkew() const;

  QComboBox* backend_;
  std::map<Algorithm, QCheckBox*> algorithms_;
  LabeledSlider* limit_;
  LabeledSlider* window_;
  LabeledSlider* refill_;
  ConfigQuotaBox* config_;  ///< "From config": the team's limiter config read as the quota
  QComboBox* pattern_;
  QDoubleSpinBox* rate_;
  QSpinBox* requests_;
  QSpinBox* duration_;
  QSpinBox* concurrency_;
  QSpinBox* replicas_;
  QSpinBox* clients_;
  QComboBox* clock_;
  QLineEdit* skew_;
  ScriptBox* scriptBox_;      ///< shown for the "Custom script" backend
  HttpTargetBox* httpBox_;   ///< shown for the http backend
  QPushButton* start_;
  QPushButton* serve_;
  QLabel* serveText_;
  QComboBox* serveFront_;  ///< builtin | nginx | none
  QProgressBar* progress_;
  QLabel* progressText_;
  QLabel* error_;
  QLabel* explanation_;
  QToolButton* advanced_;  ///< folds duration, replicas, clients, clock, skew
  QLabel* traceText_;        ///< "Traffic: trace ..." while a trace replaces the pattern
  QPushButton* clearTrace_;  ///< back to the pattern
  bool running_ = false;
  bool backendChosen_ = false;  ///< the user or a loaded spec picked the backend
  FailurePolicy policy_ = FailurePolicy::Open;
  QString redisUrl_;
  StormSpec loaded_;  ///< fields the form does not show (seed, think time, prefix)
};

}  // namespace rl::ui
