#pragma once
// StormWorker: the window's thin adapter over core's experiment runner
// (storm/experiment.hpp), as ratelab-cli run is the CLI's: it feeds the lanes.
//
// Threading: the controller moves it to a QThread and invokes run() queued.
// run() calls rl::runExperiment on this thread; its one poll loop hands the
// new decision records to the observer, which converts them to lane samples,
// pushes them into the LaneModel (one short lock per batch), and emits the
// cheap dataReady() signal; never one signal per decision.
// requestCancel() and setQuota() may be called from any thread: cancellation
// is a std::atomic<bool>. Every slot catches and reports via errorOccurred.

#include <QObject>
#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>

#include "common/result.hpp"
#include "storm/experiment.hpp"
#include "storm/storm_runner.hpp"
#include <optional>

#include "ui/workers/storm_types.hpp"

namespace rl::ui {

class LaneModel;

/// Summary rows of a finished experiment, from its records: one per lane
/// (experimentLanes names them), each failover run's report with its overshoot.
StormResult summarize(std::shared_ptr<const ExperimentResult> experiment);

/// Runs storms off the GUI thread; see the file comment.
class StormWorker : public QObject {
  Q_OBJECT
 public:
  explicit StormWorker(LaneModel& model);
  /// Any thread: asks the running storm to stop (returns at once).
  void requestCancel() { cancel_.store(true); }
  /// The caller's thread, before queuing run(): clears an earlier cancellation. (run() itself must not: a
  /// Stop pressed between Start and the worker picking the run up would be lost, and the storm run in full.)
  void armRun() { cancel_.store(false); }
  /// Any thread: changes the running storm's quota (the runner records the marker).
  Result<void> setQuota(const Quota& quota);

 public slots:
  /// Runs `spec`'s experiment (runExperiment: its variants side by side or in turn,
  /// its fault schedule on `server`, a failover storm on fresh private sets) to
  /// completion or cancellation; blocks this worker's thread, not the GUI.
  void run(const rl::StormSpec& spec, rl::ManagedRedisServer* server = nullptr);

 signals:
  /// The runner started; `spanUs` is the planned length of the run's timeline (0 = unknown).
  void started(qint64 spanUs);
  /// The storm's first run is about to send: its start on the steady clock
  /// (us), the origin of its timeline (a fault schedule is timed from it).
  void sendsBegin(qint64 startSteadyUs);
  /// Progress, about every 100 ms.
  void progressed(const rl::StormProgress& progress);
  /// New samples are in the model (cheap; the GUI refreshes on its timer).
  void dataReady();
  /// The storm is over (also after a failure, with what was recorded).
  void finished(const rl::ui::StormResult& result);
  /// Something failed: one sentence for the user.
  void errorOccurred(const QString& message);
  /// What the worker is doing now, for the status line ("Starting a private Redis Cluster...").
  void notice(const QString& text);
  /// A failover storm's run `run` (0-based) started sending, on its own cluster at `url`.
  void failoverRunBegins(int run, const QString& url);

 private:
  class Observer;
  LaneModel& model_;
  std::atomic<bool> cancel_{false};       ///< set by requestCancel
  std::mutex runnerMutex_;                ///< guards runners_ (setQuota from other threads)
  std::vector<StormRunner*> runners_;     ///< the running storm(s), owned by the experiment
};

}  // namespace rl::ui
