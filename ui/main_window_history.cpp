// MainWindow's run history: each finished storm is kept (RunHistory), the
// History tab lists them, and the lanes, TTL chart and Summary can show a past
// run again or a past run beside the latest. While they do, the live lanes'
// refreshes wait, and exports write the run shown (a comparison: the latest).

#include <QDockWidget>
#include <QStatusBar>

#include "ui/charts/lane_runs.hpp"
#include "ui/panels/lanes_panel.hpp"
#include "ui/main_window.hpp"
#include "ui/panels/history_panel.hpp"
#include "ui/panels/summary_panel.hpp"
#include "ui/qt_text.hpp"
#include "ui/workers/worker_controller.hpp"
#include "ui/workers/storm_worker.hpp"

namespace rl::ui {

namespace {
// An audit drawn as a run spans its target run's arrivals (at least 1 µs).
std::int64_t auditSpanUs(const ExperimentResult& e) {
  return std::max<std::int64_t>(1, e.runs.front().outcome.wallDuration.count());
}
}  // namespace

void MainWindow::wireHistory() {
  connect(history_, &HistoryPanel::showRequested, this, &MainWindow::showRun);
  connect(history_, &HistoryPanel::compareRequested, this, &MainWindow::compareWithLatest);
  connect(history_, &HistoryPanel::latestRequested, this, [this] {
    if (const PastRun* latest = runs_.latest()) showRun(latest->number);
  });
  connect(&controller_, &WorkerController::stormStarted, this, [this] {
    shownRun_ = 0;
    ttlNow_ = std::make_shared<std::vector<TtlSample>>();
    history_->setStormRunning(true);
    history_->setShowing(tr("A storm is running: the lanes show it live."), 0);
  });
  connect(&controller_, &WorkerController::ttlSampled, this, [this](qint64 at, const QList<qint64>& v) {
    if (ttlNow_) ttlNow_->push_back({at, v});  // the tail after the storm too: the run keeps it
  });
}

void MainWindow::recordRun() {
  history_->setStormRunning(false);
  const StormResult& result = controller_.lastResult();
  if (!result.experiment) return;  // it did not start: nothing ran
  PastRun run;
  run.finished = QDateTime::currentDateTime();
  run.title = preset_ ? preset_->title : tr("Storm");
  run.lanes = controller_.lanes();
  run.result = result;
  run.ttl = ttlSourceOf(controller_.spec().backend, controller_.spec().clock);
  run.ttlSamples = ttlNow_ ? ttlNow_ : std::make_shared<std::vector<TtlSample>>();
  run.wallUs = controller_.runWallUs();
  run.spanUs = controller_.spanUs();
  const PastRun& kept = runs_.add(std::move(run));
  history_->setRuns(runs_);
  history_->setShowing(tr("The lanes show the latest run, #%1.").arg(kept.number), kept.number);
  shownRun_ = 0;
}

void MainWindow::showAudit(const std::shared_ptr<const ExperimentResult>& experiment, const QString& target) {
  if (!experiment || experiment->runs.empty()) return;
  if (controller_.stormRunning())
    return showError(tr("The audit's lanes wait: a storm is running (Show in lanes after it ends)"));
  PastRun run;
  run.finished = QDateTime::currentDateTime();
  run.title = tr("Audit of %1").arg(target);
  run.lanes = experimentLanes(experiment->spec);
  run.result = summarize(experiment);
  run.ttl = TtlSource::NoKeys;
  run.ttlSamples = std::make_shared<std::vector<TtlSample>>();
  run.spanUs = auditSpanUs(*experiment);
  run.live = false;
  const PastRun& kept = runs_.add(std::move(run));
  history_->setRuns(runs_);
  showRun(kept.number);
}

void MainWindow::showAuditSoFar(const std::shared_ptr<const ExperimentResult>& experiment) {
  if (!experiment || experiment->runs.empty() || controller_.stormRunning()) return;  // a storm keeps its lanes
  pastModel_.load(laneRunsOf(*experiment));
  drawRun(experimentLanes(experiment->spec), TtlSource::NoKeys, {}, -1, pastModel_, auditSpanUs(*experiment), kAllClients);
  summary_->setResult(summarize(experiment));
  shownRun_ = -1;  // exports still write the latest storm
  const auto& target = experiment->runs.front().outcome;
  history_->setShowing(tr("The lanes show the audit so far: %1 requests, probe by probe; the model beside them "
                          "is the best fit so far.")
                           .arg(target.records.size()),
                       -1);
}

const StormResult& MainWindow::shownResult() const {
  if (shownRun_ > 0)
    if (const PastRun* run = runs_.find(shownRun_)) return run->result;
  return controller_.lastResult();
}

void MainWindow::drawRun(const std::vector<StormLane>& lanes, TtlSource ttl, const std::vector<TtlSample>& samples,
                         std::int64_t wallUs, LaneModel& model, std::int64_t spanUs, int client) {
  lanes_->setLanes(lanes, ttl, client);
  for (const TtlSample& s : samples) lanes_->addTtlSample(s.atUs, s.pttlMs);
  if (wallUs >= 0) lanes_->markRunEnd(wallUs);
  lanes_->refresh(model, spanUs);
}

void MainWindow::showRun(int number) {
  const PastRun* run = runs_.find(number);
  const PastRun* latest = runs_.latest();
  if (!run || !latest || controller_.stormRunning()) return;
  if (number == latest->number && latest->live) {  // the controller's own model: exactly what the live lanes drew
    drawRun(latest->lanes, latest->ttl, *latest->ttlSamples, latest->wallUs, controller_.model(), latest->spanUs);
    summary_->setResult(controller_.lastResult());
    shownRun_ = 0;
    history_->setShowing(tr("The lanes show the latest run, #%1.").arg(number), number);
    return;
  }
  pastModel_.load(laneRunsOf(*run->result.experiment));
  drawRun(run->lanes, run->ttl, *run->ttlSamples, run->wallUs, pastModel_, run->spanUs,
          run->live ? kWorstClient : kAllClients);  // an audit: every probe's keys
  summary_->setResult(run->result);
  shownRun_ = number;
  const QString text = tr("The lanes show run #%1 (%2, ended %3); exports write it. Latest goes back to #%4.")
                           .arg(number)
                           .arg(run->title, run->finished.toString(QStringLiteral("HH:mm:ss")))
                           .arg(latest->number);
  history_->setShowing(text, number);
  statusBar()->showMessage(text, 5000);
}

void MainWindow::compareWithLatest(int number) {
  const PastRun* run = runs_.find(number);
  const PastRun* latest = runs_.latest();
  if (!run || !latest || run == latest || controller_.stormRunning()) return;
  ComparedRun both = comparedRun(*latest, *run);
  pastModel_.load(std::move(both.laneRuns));
  const TtlSource ttl = latest->ttl == TtlSource::WallClock || run->ttl == TtlSource::WallClock ? TtlSource::WallClock : latest->ttl;
  drawRun(both.lanes, ttl, both.ttlSamples, std::max(latest->wallUs, run->wallUs), pastModel_, both.spanUs);
  summary_->setResult(both.result);
  shownRun_ = -1;
  const QString text = tr("The lanes show the latest run #%1 above run #%2, lane by lane, each judged by its own "
                          "quota; exports write #%1.")
                           .arg(latest->number)
                           .arg(number);
  history_->setShowing(text, -1);
  statusBar()->showMessage(text, 5000);
}

void MainWindow::compareWithPrevious() {
  const PastRun* previous = runs_.previous();
  if (!previous) return showError(tr("Compare with the previous run: two finished storms are needed, %1 so far")
                                      .arg(runs_.runs().size()));
  history_->select(previous->number);
  raiseDock(QStringLiteral("historyDock"));
  compareWithLatest(previous->number);
}

}  // namespace rl::ui
