#pragma once
// GuiMeasurement: the figures `ratelab --measure` prints, measured in the real
// window with real storms (never asserted in tests: speed is reported).
//   1. refresh: a memory storm of 1,000,002 decisions (6 algorithms x 166,667
//      requests) fills the lanes; then every lane is rebuilt and replaced 20
//      times (build + replace, and with a synchronous repaint).
//   2. heartbeat: a 10 ms PreciseTimer on the GUI thread while a max-rate
//      redis-lua storm with 50 connections runs and the lanes refresh at 30 Hz;
//      lateness of each tick = gap since the previous tick - 10 ms.

#include <QElapsedTimer>
#include <QObject>
#include <QString>
#include <QTimer>
#include <vector>

#include "ui/workers/redis_types.hpp"
#include "ui/workers/storm_types.hpp"

namespace rl::ui {

class MainWindow;
class WorkerController;

/// Lateness of a periodic timer on the thread it lives on.
class HeartbeatProbe : public QObject {
  Q_OBJECT
 public:
  /// `intervalMs` between ticks (Qt::PreciseTimer).
  explicit HeartbeatProbe(int intervalMs = 10, QObject* parent = nullptr);
  /// Starts ticking (forgets earlier samples).
  void start();
  /// Stops ticking.
  void stop();
  /// Lateness of each tick in microseconds.
  const std::vector<std::int64_t>& latenessUs() const { return lateUs_; }

 private:
  QTimer timer_;
  QElapsedTimer clock_;
  std::int64_t lastUs_ = 0;
  int intervalMs_;
  std::vector<std::int64_t> lateUs_;
};

/// Runs both measurements; see the file comment.
class GuiMeasurement : public QObject {
  Q_OBJECT
 public:
  /// Heartbeat storm size (requests of one token_bucket lane).
  static constexpr int kHeartbeatRequests = 200'000;
  GuiMeasurement(MainWindow& window, WorkerController& controller, QObject* parent = nullptr);
  /// Begins once Redis answers.
  void start();
  /// The URL the heartbeat storm uses, as the user gave it (the status only
  /// shows it without its password); unset: the URL of the checked server.
  void setRedisUrl(const QString& url) { redisUrl_ = url; }

 signals:
  /// Finished: the report (several lines) and the exit code.
  void done(const QString& report, int exitCode);

 private:
  void onRedisStatus(const RedisStatus& status);
  void onStormFinished(const StormResult& result);
  void startRefreshStorm();
  void measureRefresh();
  void startHeartbeatStorm();
  void reportHeartbeat(const StormResult& result);

  enum class Phase { WaitingForRedis, Refresh, Heartbeat, Done };
  MainWindow& window_;
  WorkerController& controller_;
  HeartbeatProbe probe_;
  Phase phase_ = Phase::WaitingForRedis;
  QString redisUrl_;
  QString report_;
};

}  // namespace rl::ui
