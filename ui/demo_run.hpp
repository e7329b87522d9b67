#pragma once
// DemoRun: the unattended run behind `ratelab --autostart --screenshot PATH
// --exit-after-ms N` (with --trace FILE: open, sweep, replay the recommended
// quota, then the picture; with --audit URL: audit that HTTP limiter, the lanes
// filling probe by probe, then the picture of its decisions beside the model): waits until Redis answers (when the storm needs it),
// starts the storm (and the race lab for the race preset), waits for the end,
// lets the TTL chart follow the keys to expiry (at most
// WorkerController::kTtlTailMaxMs), refreshes the lanes, saves the window as PNG
// and reports done(exitCode). --exit-after-ms bounds the whole run.

#include <QObject>
#include <QString>
#include <QTimer>

#include "ui/workers/redis_types.hpp"

namespace rl::ui {

class MainWindow;
class WorkerController;

/// What the unattended run does.
struct DemoRunOptions {
  bool autostart = false;  ///< start the storm
  bool race = false;       ///< also wait for the race lab
  QString screenshot;      ///< PNG path ("" = none)
  int exitAfterMs = 0;     ///< hard limit (0 = none)
  QString dock;            ///< "summary", "race", "inspector" or "tune": raised before the screenshot
  QString trace;           ///< open in the Tune panel and sweep; with autostart, replay the recommendation
  QString jsonOut;         ///< the run document's path ("" = none), written when the run ends
  QString reportOut;       ///< the HTML report's path ("" = none), written when the run ends
  QString audit;           ///< the HTTP audit panel's target; with autostart, audit it instead of a storm
};

/// One unattended run; see the file comment.
class DemoRun : public QObject {
  Q_OBJECT
 public:
  DemoRun(MainWindow& window, WorkerController& controller, DemoRunOptions options, QObject* parent = nullptr);
  /// Begins (call once the window is shown).
  void start();

 signals:
  /// The run is over: 0 done, 1 the storm or the screenshot failed.
  void done(int exitCode);

 private:
  void onRedisStatus(const RedisStatus& status);
  void startStorm();
  void startTrace();
  void startAudit();
  void maybeFinish();
  void finish(bool timedOut);

  MainWindow& window_;
  WorkerController& controller_;
  DemoRunOptions options_;
  QTimer deadline_;
  bool started_ = false;
  bool stormDone_ = false;
  bool raceDone_ = false;
  bool settling_ = false;  ///< storm, race and TTL tail are over: the picture is being taken
  bool finished_ = false;
  bool failed_ = false;
};

}  // namespace rl::ui
