#include "ui/gui_measurement.hpp"

#include <QApplication>
#include <algorithm>

#include "metrics/latency_summary.hpp"
#include "ui/charts/lane_model.hpp"
#include "ui/panels/lanes_panel.hpp"
#include "ui/main_window.hpp"
#include "ui/workers/worker_controller.hpp"

namespace rl::ui {

namespace {
constexpr int kRefreshRepeats = 20;

QString stats(std::vector<std::int64_t> us, const QString& unit, double scale) {
  const LatencySummary s = summarizeLatency(us);
  return QStringLiteral("p50 %1 %5, p90 %2 %5, p99 %3 %5, max %4 %5")
      .arg(static_cast<double>(s.p50) / scale, 0, 'f', 2)
      .arg(static_cast<double>(s.p90) / scale, 0, 'f', 2)
      .arg(static_cast<double>(s.p99) / scale, 0, 'f', 2)
      .arg(static_cast<double>(s.max) / scale, 0, 'f', 2)
      .arg(unit);
}
}  // namespace

HeartbeatProbe::HeartbeatProbe(int intervalMs, QObject* parent) : QObject(parent), intervalMs_(intervalMs) {
  timer_.setTimerType(Qt::PreciseTimer);
  timer_.setInterval(intervalMs);
  connect(&timer_, &QTimer::timeout, this, [this] {
    const std::int64_t now = clock_.nsecsElapsed() / 1000;
    lateUs_.push_back(std::max<std::int64_t>(0, now - lastUs_ - intervalMs_ * 1000LL));
    lastUs_ = now;
  });
}

void HeartbeatProbe::start() {
  lateUs_.clear();
  clock_.start();
  lastUs_ = 0;
  timer_.start();
}

void HeartbeatProbe::stop() { timer_.stop(); }

GuiMeasurement::GuiMeasurement(MainWindow& window, WorkerController& controller, QObject* parent)
    : QObject(parent), window_(window), controller_(controller) {
  connect(&controller_, &WorkerController::redisStatus, this, &GuiMeasurement::onRedisStatus);
  connect(&controller_, &WorkerController::stormFinished, this, &GuiMeasurement::onStormFinished);
}

void GuiMeasurement::start() { report_ = QStringLiteral("ratelab --measure\n"); }

void GuiMeasurement::onRedisStatus(const RedisStatus& status) {
  if (phase_ != Phase::WaitingForRedis) return;
  if (!status.ok) {
    emit done(QStringLiteral("cannot measure: Redis is not reachable: %1\n").arg(status.error), 3);
    return;
  }
  if (redisUrl_.isEmpty()) redisUrl_ = status.url;  // a managed server: no password
  startRefreshStorm();
}

void GuiMeasurement::startRefreshStorm() {
  phase_ = Phase::Refresh;
  StormSpec spec;
  spec.algorithms.assign(kAllAlgorithms.begin(), kAllAlgorithms.end());
  spec.backend = Backend::Memory;
  spec.quota = Quota::perWindow(100, kSecond);
  spec.pattern = Pattern::Constant;
  spec.rate = 20'000;
  spec.requests = 166'667;
  spec.concurrency = 2;
  spec.clock = ClockMode::Virtual;
  controller_.startStorm(spec);
}

void GuiMeasurement::onStormFinished(const StormResult& result) {
  if (phase_ == Phase::Refresh) {
    QApplication::processEvents();
    measureRefresh();
    startHeartbeatStorm();
  } else if (phase_ == Phase::Heartbeat) {
    reportHeartbeat(result);
  }
}

void GuiMeasurement::measureRefresh() {
  LanesPanel& lanes = *window_.lanesPanel();
  std::vector<std::int64_t> build, painted, pointsOnly;
  const LaneModel& model = controller_.model();
  for (int i = 0; i < kRefreshRepeats; ++i) {
    QElapsedTimer t;
    t.start();
    for (int lane = 0; lane < static_cast<int>(model.algorithms().size()); ++lane) (void)model.build(lane, 1000, controller_.spanUs());
    pointsOnly.push_back(t.nsecsElapsed() / 1000);
  }
  for (int i = 0; i < kRefreshRepeats; ++i) {
    QElapsedTimer t;
    t.start();
    lanes.refresh(controller_.model(), controller_.spanUs());
    build.push_back(t.nsecsElapsed() / 1000);
    lanes.repaint();
    painted.push_back(t.nsecsElapsed() / 1000);
  }
  report_ += QStringLiteral("refresh of %1 lanes holding %2 decisions (%3x%4 window), build + replace: %5\n")
                 .arg(controller_.model().algorithms().size())
                 .arg(controller_.model().size())
                 .arg(window_.width())
                 .arg(window_.height())
                 .arg(stats(build, QStringLiteral("ms"), 1000.0));
  report_ += QStringLiteral("  with a synchronous repaint of the lanes: %1\n").arg(stats(painted, QStringLiteral("ms"), 1000.0));
  report_ += QStringLiteral("  decimation alone (LaneModel::build, 1000 columns, every lane): %1\n").arg(stats(pointsOnly, QStringLiteral("ms"), 1000.0));
}

void GuiMeasurement::startHeartbeatStorm() {
  phase_ = Phase::Heartbeat;
  StormSpec spec;
  spec.algorithms = {Algorithm::TokenBucket};
  spec.backend = Backend::RedisLua;
  spec.redisUrl = redisUrl_.toStdString();
  spec.runTag = "measure-";
  spec.quota = Quota::perWindow(1000, kSecond);
  spec.pattern = Pattern::Burst;
  spec.requests = kHeartbeatRequests;
  spec.concurrency = 50;
  spec.clients = 50;
  spec.clock = ClockMode::Server;
  probe_.start();
  controller_.startStorm(spec);
}

void GuiMeasurement::reportHeartbeat(const StormResult& result) {
  probe_.stop();
  phase_ = Phase::Done;
  const auto& late = probe_.latenessUs();
  const double seconds = static_cast<double>(std::max<std::int64_t>(result.durationMs, 1)) / 1000.0;
  const std::int64_t decided = result.algorithms.empty() ? 0 : result.algorithms.front().offered;
  report_ += QStringLiteral("heartbeat 10 ms timer on the GUI thread during a max-rate redis-lua storm, 50 connections, "
                            "%1 decisions in %2 s (%3 decisions/s): %4 ticks, lateness %5\n")
                 .arg(decided)
                 .arg(seconds, 0, 'f', 2)
                 .arg(static_cast<double>(decided) / seconds, 0, 'f', 0)
                 .arg(late.size())
                 .arg(stats(late, QStringLiteral("ms"), 1000.0));
  emit done(report_, 0);
}

}  // namespace rl::ui
