#pragma once
// TunePanel: what each candidate quota would have done to real traffic.
// Open an access log (button, File > Open trace, or drop it on the window);
// the per-client peak distribution appears with a draggable limit line
// ("N clients and M requests would be cut"); Sweep runs the quota grid on a
// worker thread (progress bar, Cancel) and fills one heatmap per algorithm;
// clicking a cell asks the window to replay the trace with that quota through
// the storm lanes (replayRequested). All reading and sweeping runs in
// TuneWorker on a thread of the window's WorkerController (adopt): the GUI
// thread only draws.

#include <QWidget>
#include <memory>
#include <vector>

#include "dialects/dialect.hpp"
#include "trace/trace.hpp"
#include "tune/tune_sweep.hpp"
#include "ui/workers/tune_worker.hpp"

class QCheckBox;
class QComboBox;
class QGridLayout;
class QHBoxLayout;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QToolButton;

namespace rl::ui {

class PeakDistributionChart;
class WorkerController;
class TuneHeatmap;

/// The Tune panel; see the file comment.
class TunePanel : public QWidget {
  Q_OBJECT
 public:
  /// The panel's TuneWorker runs on a thread `workers` owns (joined when `workers` closes).
  explicit TunePanel(WorkerController& workers, QWidget* parent = nullptr);

  /// Reads `path` with the panel's trace options (format, key, filter, burst) on the worker.
  void openTrace(const QString& path);
  /// Lets a file dropped anywhere on `window` open as a trace.
  void acceptDropsOn(QWidget* window);
  /// Starts a sweep with the form's grid; false (with a visible message) when the form is invalid.
  bool startSweep();
  /// Replays the recommended cell of the algorithm shown (as a click would); false when there is none.
  bool replayRecommended();
  /// Puts the recommendation of the algorithm shown on the clipboard in `dialect`'s syntax (the Copy as menu).
  void copyRecommendation(const Dialect& dialect);
  /// Writes the last sweep's report (what `ratelab-cli tune --report` writes: the recommendation, the heatmaps,
  /// the sweep's lines, the tune document); the error names what is missing or why the file can't be written.
  Result<void> exportReport(const QString& path) const;
  /// The form as a sweep spec, or the error naming the field.
  Result<TuneSpec> tuneSpec() const;

  TuneHeatmap* heatmap() const { return heatmap_; }                    ///< chart
  PeakDistributionChart* distribution() const { return distribution_; }  ///< chart
  QLineEdit* limitsEdit() const { return limits_; }                    ///< --limit
  QLineEdit* refillEdit() const { return refill_; }                    ///< --refill-rate
  QLineEdit* windowsEdit() const { return windows_; }                  ///< --window-ms
  QLineEdit* algorithmsEdit() const { return algorithms_; }            ///< --algorithm
  QComboBox* algorithmShown() const { return shown_; }                 ///< heatmap's algorithm
  QToolButton* copyAsButton() const { return copyAs_; }                ///< Copy as menu
  QPushButton* reportButton() const { return report_; }                ///< Export report...
  /// A replay runs on the storm form's clock (checked) or, by default, on the virtual clock: exact, and
  /// done in moments however long the trace.
  bool replayInRealTime() const;
  QProgressBar* progressBar() const { return progress_; }              ///< sweep progress
  QString statusText() const;                                          ///< status / error line
  SharedTrace trace() const { return trace_; }                         ///< the loaded trace
  std::shared_ptr<const TuneResult> result() const { return result_; } ///< the last sweep

 signals:
  /// A trace was read (summary shown).
  void traceOpened();
  /// A sweep ended (complete or cancelled).
  void sweepFinished();
  /// Replay `trace` with `quota` for `algorithm` in the storm lanes.
  void replayRequested(const rl::SharedTrace& trace, const rl::TraceOptions& options, rl::Algorithm algorithm,
                       const rl::Quota& quota);

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;

 private:
  /// From this width on, the form holds four fields a row, else two.
  static constexpr int kWideForm = 900;
  QWidget* buildForm();
  void layOutForm(int slotsPerRow);
  QWidget* buildCharts();
  QHBoxLayout* buildRecommendationRow();
  Result<TraceOptions> traceOptions(const QString& path) const;
  void showStatus(const QString& text, bool error = false);
  void onTraceLoaded(const std::shared_ptr<const TraceSummary>& summary);
  void onSwept(const std::shared_ptr<const TuneResult>& result);
  void showDistribution();
  void showHeatmap();
  void requestCut();
  void replayPoint(std::size_t index);

  QGridLayout* form_ = nullptr;                              ///< the form's grid
  std::vector<std::pair<QWidget*, QWidget*>> formSlots_;     ///< its slots in order: (label, field) or (widget, none)
  int formSlotsPerRow_ = 0;                                  ///< as laid out now
  TuneWorker* worker_;  ///< on its thread, owned (and deleted) by the WorkerController
  QPushButton* open_;
  QLabel* traceText_;
  QLineEdit* format_;
  QLineEdit* key_;
  QLineEdit* filter_;
  QCheckBox* burst_;
  QLineEdit* algorithms_;
  QLineEdit* limits_;
  QLineEdit* refill_;
  QLineEdit* windows_;
  QLineEdit* target_;
  QLineEdit* legit_;
  QPushButton* sweep_;
  QPushButton* cancel_;
  QProgressBar* progress_;
  QLabel* status_;
  QComboBox* peakWindow_;
  PeakDistributionChart* distribution_;
  QComboBox* shown_;
  TuneHeatmap* heatmap_;
  QLabel* recommendation_;
  QToolButton* copyAs_;  ///< "Copy as" nginx / envoy / traefik / ... (enabled with a recommendation)
  QPushButton* report_;  ///< Export report... (enabled after a sweep)
  QCheckBox* realTime_;  ///< replay on the storm form's clock instead of the virtual one
  SharedTrace trace_;                          ///< the loaded trace
  TraceOptions options_;                       ///< how it was read
  std::shared_ptr<const TraceSummary> summary_;  ///< trace + peaks
  std::shared_ptr<const TuneResult> result_;   ///< last sweep
  TuneSpec lastSpec_;                          ///< the spec of the last sweep
  bool cutInFlight_ = false;                   ///< a countCut is queued or running
  bool cutPending_ = false;                    ///< the line moved meanwhile
  bool sweeping_ = false;                      ///< a sweep runs
};

}  // namespace rl::ui
