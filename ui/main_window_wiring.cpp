// MainWindow's wiring: which controller signal reaches which panel (storms,
// serving, the race lab and inspector, the Tune and HTTP audit panels), and the live Summary.
// The window's layout, menus and actions are in main_window.cpp.

#include <QDockWidget>
#include <QLabel>
#include <QStatusBar>

#include "ui/charts/chart_lane.hpp"
#include "ui/charts/lane_model.hpp"
#include "ui/panels/lanes_panel.hpp"
#include "ui/charts/ttl_chart.hpp"
#include "ui/main_window.hpp"
#include "ui/panels/connection_panel.hpp"
#include "ui/panels/http_audit_panel.hpp"
#include "ui/panels/key_inspector_panel.hpp"
#include "ui/panels/race_lab_panel.hpp"
#include "ui/panels/run_toolbar.hpp"
#include "ui/panels/storm_panel.hpp"
#include "ui/panels/summary_panel.hpp"
#include "ui/panels/tune_panel.hpp"
#include "ui/qt_text.hpp"
#include "ui/workers/worker_controller.hpp"

namespace rl::ui {

void MainWindow::wireTune() {
  tune_->acceptDropsOn(this);
  connect(tune_, &TunePanel::traceOpened, this, [this] { raiseDock(QStringLiteral("tuneDock")); });
  connect(tune_, &TunePanel::replayRequested, this, [this](const SharedTrace& t, const TraceOptions& o, Algorithm a, const Quota& q) {
    storm_->setTrace(t, o);
    storm_->setAlgorithmAndQuota(a, q);
    if (!tune_->replayInRealTime()) storm_->setClock(ClockMode::Virtual);  // exact, and done in moments
    if (!controller_.stormRunning()) return void(startStorm());
    controller_.stopStorm();  // the replay starts once the running storm has stopped
    connect(&controller_, &WorkerController::stormFinished, this, [this] { startStorm(); }, Qt::SingleShotConnection);
  });
}

void MainWindow::wireHttpAudit() {
  connect(audit_, &HttpAuditPanel::runRequested, this, [this](const AuditSpec& spec) {
    if (!controller_.startHttpAudit(spec)) return audit_->showFinished({}, tr("An audit is already running: stop it first"));
    // The probes' table is the point now: the bottom tabs get over half the height (the lanes stay, smaller).
    if (auto* dock = findChild<QDockWidget*>(QStringLiteral("auditDock")))
      resizeDocks({dock}, {height() * 55 / 100}, Qt::Vertical);
  });
  connect(audit_, &HttpAuditPanel::stopRequested, &controller_, &WorkerController::stopHttpAudit);
  connect(&controller_, &WorkerController::httpAuditCheck, audit_, &HttpAuditPanel::showCheck);
  connect(&controller_, &WorkerController::httpAuditFinished, audit_, &HttpAuditPanel::showFinished);
  connect(audit_, &HttpAuditPanel::lanesRequested, this, &MainWindow::showAudit);
  connect(&controller_, &WorkerController::httpAuditLanes, this, &MainWindow::showAuditSoFar);
}

void MainWindow::wireStorm() {
  WorkerController* c = &controller_;
  connect(storm_, &StormPanel::startRequested, this, [this] { startStorm(); });
  connect(storm_, &StormPanel::stopRequested, c, &WorkerController::stopStorm);
  connect(storm_, &StormPanel::quotaTuned, c, &WorkerController::tuneQuota);
  connect(c, &WorkerController::stormStarted, this, [this](const StormSpec& s) {
    lanes_->setLanes(controller_.lanes(), ttlSourceOf(s.backend, s.clock));
    const int perRun = static_cast<int>(s.algorithms.size());  // a failover's runs follow each other
    for (int i = perRun; s.failover && i < lanes_->lanes().size(); ++i)
      lanes_->lanes()[i]->setWaiting(tr("waiting for run %1 to finish (this run gets a fresh private Redis Cluster)")
                                         .arg(i / perRun));
    storm_->setRunning(true);
    toolbar_->setRunning(true);
    showLiveSummary();  // the previous run's results go
  });
  connect(c, &WorkerController::stormProgress, storm_, &StormPanel::setProgress);
  connect(c, &WorkerController::refreshDue, this, [this] {
    if (shownRun_ != 0) return;  // a past run is shown: the latest one's late data waits for "Latest"
    lanes_->refresh(controller_.model(), controller_.spanUs());
    controller_.noteRefreshCost(lanes_->lastRefreshMs());
    refreshLabel_->setText(tr("%1 decisions, refresh %2 ms")
                               .arg(controller_.model().size())
                               .arg(lanes_->lastRefreshMs(), 0, 'f', 1));
    if (controller_.stormRunning()) showLiveSummary();
  });
  connect(c, &WorkerController::ttlSampled, lanes_, [this](qint64 at, const QList<qint64>& v) {
    if (shownRun_ == 0) lanes_->addTtlSample(at, v);
  });
  connect(c, &WorkerController::stormFinished, this, &MainWindow::onStormFinished);
}


void MainWindow::wireServing() {
  WorkerController* c = &controller_;
  connect(storm_, &StormPanel::serveRequested, this, [this](const StormSpec& s) {
    StormSpec spec = s;
    spec.redisUrl = connection_->url().toStdString();
    spec.resilience.onRedisError = connection_->policy();
    if (spec.backend != Backend::Memory && spec.redisUrl.empty())
      return storm_->showError(tr("Redis: no server to use; start the managed server or choose the memory backend"));
    controller_.startServing(spec, storm_->serveFront());
  });
  connect(storm_, &StormPanel::serveStopRequested, c, &WorkerController::stopServing);
  connect(c, &WorkerController::servingChanged, this, [this](bool on, const QString& front, const QStringList& replicas) {
    if (on)
      lanes_->setLanes(stormLanes(controller_.spec()),
                            controller_.spec().backend == Backend::Memory ? TtlSource::NoKeys : TtlSource::NotSampled);
    storm_->setServing(on, on ? tr("Front %1 (replicas %2). Try: curl -i -H 'x-api-key: me' %1/ping")
                                    .arg(front, replicas.join(QStringLiteral(", ")))
                              : QString());
  });
  connect(c, &WorkerController::servingTally, this, [this](const QString& t) { statusBar()->showMessage(t, 2000); });
}


void MainWindow::wireRaceAndInspector() {
  WorkerController* c = &controller_;
  connect(race_, &RaceLabPanel::runRequested, this, [this] { startRace(); });
  connect(c, &WorkerController::raceRound, race_, &RaceLabPanel::showRound);
  connect(c, &WorkerController::raceFinished, this, [this](const RaceResult& r) {
    raceResult_ = r;
    race_->showResult(r);
    emit raceDone();
  });
  connect(inspector_, &KeyInspectorPanel::scanRequested, c, &WorkerController::scanKeys);
  connect(inspector_, &KeyInspectorPanel::deleteRequested, c, &WorkerController::deleteKeys);
  connect(inspector_, &KeyInspectorPanel::deletePrefixRequested, c, &WorkerController::deletePrefix);
  connect(c, &WorkerController::keysReady, inspector_, &KeyInspectorPanel::showPage);
  connect(c, &WorkerController::redisStatus, inspector_, &KeyInspectorPanel::showServerStatus);  // rescans on connect
  connect(c, &WorkerController::keysDeleted, inspector_, &KeyInspectorPanel::showDeleted);
}


void MainWindow::showLiveSummary() {
  StormResult live;
  const LaneModel& model = controller_.model();
  const auto& lanes = controller_.lanes();
  for (std::size_t i = 0; i < lanes.size() && i < model.algorithms().size(); ++i) {
    const LaneTotals t = model.totals(static_cast<int>(i));
    AlgorithmResult r;
    r.algorithm = lanes[i].algorithm;
    r.label = qs(lanes[i].label);
    r.offered = t.admitted + t.denied;
    r.admitted = t.admitted;
    r.denied = t.denied;
    r.errors = t.errors;
    live.algorithms.push_back(r);
  }
  summary_->setLive(live);
}


}  // namespace rl::ui
