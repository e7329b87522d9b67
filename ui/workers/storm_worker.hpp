#pragma once
// StormWorker: runs one storm (rl::StormRunner) off the GUI thread and feeds
// the lanes.
//
// Threading: the controller moves it to a QThread and invokes run() queued.
// run() starts the runner (which has its own worker threads), then polls it
// every 20 ms: it takes the new decision records, converts them to lane
// samples and pushes them into the LaneModel (one short lock per batch), and
// emits the cheap dataReady() signal; never one signal per decision.
// requestCancel() and setQuota() may be called from any thread: cancellation
// is a std::atomic<bool>. Every slot catches and reports via errorOccurred.

#include <QObject>
#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>

#include "common/result.hpp"
#include "storm/storm_runner.hpp"
#include <optional>

#include "ui/workers/storm_types.hpp"

namespace rl::ui {

class LaneModel;

/// The store factory for `spec`'s backend: memory (one store per replica) or Redis (one connection per worker).
Result<StoreFactory> makeStoreFactory(const StormSpec& spec);

/// Summary rows of a finished storm, from its records; `beside`: other runs
/// stand beside it, so the rows name their backend.
StormResult summarize(const StormSpec& spec, StormOutcome outcome, bool beside = false);

/// Runs storms off the GUI thread; see the file comment.
class StormWorker : public QObject {
  Q_OBJECT
 public:
  explicit StormWorker(LaneModel& model);
  /// Any thread: asks the running storm to stop (returns at once).
  void requestCancel() { cancel_.store(true); }
  /// Any thread: changes the running storm's quota (the runner records the marker).
  Result<void> setQuota(const Quota& quota);

 public slots:
  /// Runs `spec` to completion or cancellation (blocks this worker's thread, not the GUI).
  /// With `policies`: the storm once per failure policy, all at the same time (one outage
  /// for all; policyRuns()), lanes in policyLanes() order.
  void run(const rl::StormSpec& spec, const std::vector<rl::FailurePolicy>& policies = {});
  /// Runs a failover storm (spec.failover) once per WAIT setting, one after the
  /// other (waitRuns()), each on a fresh private Redis Cluster of 3 masters + 3
  /// replicas that is stopped afterwards; lanes in waitLanes() order, each row
  /// with its FailoverReport.
  void runFailovers(const rl::StormSpec& spec, const std::vector<int>& waitReplicas);

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
  /// How often a running storm is polled for records, and every how many polls progress is sent.
  static constexpr auto kPoll = std::chrono::milliseconds(20);
  static constexpr int kProgressEvery = 5;
  /// Adds a run that followed the previous ones: its rows, its wall time, and (the
  /// first run's only) its records.
  static void appendRun(StormResult& total, StormResult part, bool first);
  /// Runs `fn`; an exception ends the storm with one sentence, never the thread.
  template <class Fn>
  void guarded(Fn&& fn);
  void runGuarded(const StormSpec& spec);
  void runFailoverLanes(const StormSpec& spec, const std::vector<int>& waitReplicas);
  /// policyRuns() at the same time; lanes follow each other in run order.
  void runSideBySide(const StormSpec& spec, const std::vector<FailurePolicy>& policies);
  /// One run of comparedRuns(); its lanes start at `laneOffset`. Empty when it could not start.
  std::optional<StormResult> runOne(const StormSpec& spec, int laneOffset, bool first, bool beside);
  /// Moves the runner's new records into the model; `marksSeen` null: its quota marks are not copied.
  bool drain(StormRunner& runner, int laneOffset, std::vector<DecisionRecord>& buffer, std::size_t* marksSeen);

  LaneModel& model_;
  std::atomic<bool> cancel_{false};       ///< set by requestCancel
  std::mutex runnerMutex_;                ///< guards runners_ (setQuota from other threads)
  std::vector<StormRunner*> runners_;     ///< the running storm(s), owned by run()
};

}  // namespace rl::ui
