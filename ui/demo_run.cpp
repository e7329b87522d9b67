#include "ui/demo_run.hpp"

#include <QApplication>
#include <QDockWidget>
#include <QTextStream>

#include "ui/panels/http_audit_panel.hpp"
#include "ui/panels/key_inspector_panel.hpp"
#include "ui/panels/lanes_panel.hpp"
#include "ui/main_window.hpp"
#include "ui/workers/worker_controller.hpp"
#include "ui/panels/storm_panel.hpp"
#include "ui/panels/tune_panel.hpp"
#include "ui/qt_text.hpp"

namespace rl::ui {

namespace {
constexpr int kSettleMs = 300;  // the last refresh lands
void say(const QString& text) { QTextStream(stderr) << "ratelab: " << text << '\n'; }
}  // namespace

DemoRun::DemoRun(MainWindow& window, WorkerController& controller, DemoRunOptions options, QObject* parent)
    : QObject(parent), window_(window), controller_(controller), options_(std::move(options)) {
  deadline_.setSingleShot(true);
  connect(&deadline_, &QTimer::timeout, this, [this] { finish(true); });
  connect(&controller_, &WorkerController::redisStatus, this, &DemoRun::onRedisStatus);
  connect(&window_, &MainWindow::stormDone, this, [this] {
    stormDone_ = true;
    maybeFinish();
  });
  connect(&window_, &MainWindow::raceDone, this, [this] {
    raceDone_ = true;
    maybeFinish();
  });
  connect(&controller_, &WorkerController::errorOccurred, this, [](const QString& m) { say(m); });
}

void DemoRun::start() {
  if (options_.exitAfterMs > 0) deadline_.start(options_.exitAfterMs);
  if (!options_.trace.isEmpty()) return startTrace();
  if (!options_.audit.isEmpty()) return startAudit();
  if (!options_.autostart) return;
  auto spec = window_.stormPanel()->spec();
  if (spec && spec->backend == Backend::Memory && !options_.race) startStorm();
  // Redis backends start on the first successful status check (onRedisStatus).
}

// Open, sweep, then replay the recommendation (autostart) or take the picture.
void DemoRun::startTrace() {
  TunePanel* tune = window_.tunePanel();
  started_ = true;  // the storm is the replay, not the form's
  connect(tune, &TunePanel::traceOpened, this, [tune] { tune->startSweep(); });
  connect(tune, &TunePanel::sweepFinished, this, [this, tune] {
    if (!options_.autostart) {
      stormDone_ = true;
      return maybeFinish();
    }
    if (!tune->replayRecommended()) {
      say(QStringLiteral("--trace: no quota of the grid meets the target; nothing to replay"));
      stormDone_ = true;
      maybeFinish();
    }
  });
  connect(&controller_, &WorkerController::errorOccurred, this, [this] { failed_ = true; });
  tune->openTrace(options_.trace);
}

// Fill the audit panel's target; with autostart, audit it and take the picture when the report is in.
void DemoRun::startAudit() {
  HttpAuditPanel* panel = window_.httpAuditPanel();
  started_ = true;  // no storm: the audit is the run
  panel->setUrls(options_.audit);
  window_.raiseDock(QStringLiteral("auditDock"));
  if (!options_.autostart) {
    stormDone_ = true;
    return maybeFinish();
  }
  connect(&controller_, &WorkerController::httpAuditFinished, this, [this](const AuditReport& report, const QString& error) {
    if (!error.isEmpty()) say(QStringLiteral("--audit: %1").arg(error));
    else say(QStringLiteral("audit: %1").arg(qs(report.summary)));
    failed_ = failed_ || !error.isEmpty();
    stormDone_ = true;
    maybeFinish();
  });
  if (!panel->startAudit()) {
    say(QStringLiteral("--audit: %1").arg(panel->statusText()));
    failed_ = true;
    stormDone_ = true;
    maybeFinish();
  }
}

void DemoRun::onRedisStatus(const RedisStatus& status) {
  if (!options_.autostart || started_) return;
  if (!status.ok) {
    say(QStringLiteral("waiting for Redis: %1").arg(status.error));
    return;
  }
  startStorm();
}

void DemoRun::startStorm() {
  if (started_) return;
  started_ = true;
  if (!window_.startStorm()) {
    say(QStringLiteral("the storm did not start: %1").arg(window_.stormPanel()->errorText()));
    failed_ = true;
    finish(false);
  }
}

void DemoRun::maybeFinish() {
  if (!stormDone_ || (options_.race && !raceDone_) || settling_) return;
  if (controller_.ttlSampling()) {  // the TTL chart follows the keys to expiry first
    connect(&controller_, &WorkerController::ttlSamplingStopped, this, &DemoRun::maybeFinish, Qt::UniqueConnection);
    return;
  }
  settling_ = true;
  QTimer::singleShot(kSettleMs, this, [this] {
    if (options_.dock != QLatin1String("inspector")) return finish(false);
    window_.keyInspectorPanel()->refresh();  // fresh PTTLs for the picture
    QTimer::singleShot(kSettleMs, this, [this] { finish(false); });
  });
}

void DemoRun::finish(bool timedOut) {
  if (finished_) return;
  finished_ = true;
  if (timedOut && options_.autostart && !stormDone_) say(QStringLiteral("--exit-after-ms reached before the storm ended"));
  if (options_.audit.isEmpty()) window_.lanesPanel()->refresh(controller_.model(), controller_.spanUs());  // an audit's are drawn
  if (options_.race) window_.raiseDock(QStringLiteral("raceDock"));
  if (!options_.dock.isEmpty()) window_.raiseDock(options_.dock + QStringLiteral("Dock"));
  if (auto* tune = window_.findChild<QDockWidget*>(QStringLiteral("tuneDock")); tune && options_.dock == QLatin1String("tune"))
    window_.resizeDocks({tune}, {window_.height() * 11 / 20}, Qt::Vertical);  // room for the heatmap
  if (auto* keys = window_.findChild<QDockWidget*>(QStringLiteral("inspectorDock")); keys && options_.dock == QLatin1String("inspector"))
    window_.resizeDocks({keys}, {window_.height() / 2}, Qt::Vertical);  // room for a screenful of keys
  QApplication::processEvents();
  // Each file asked for: written and named, or its error said and the run failed.
  const auto write = [this](const QString& path, const QString& verb, const Result<void>& ok) {
    if (ok) return say(verb.arg(path));
    say(qs(ok.error().message));
    failed_ = true;
  };
  if (!options_.jsonOut.isEmpty()) write(options_.jsonOut, QStringLiteral("wrote %1"), window_.exportJson(options_.jsonOut));
  if (!options_.reportOut.isEmpty()) write(options_.reportOut, QStringLiteral("wrote %1"), window_.exportReport(options_.reportOut));
  if (!options_.screenshot.isEmpty())
    write(options_.screenshot, QStringLiteral("saved %1"), window_.exportWindowPng(options_.screenshot));
  emit done(failed_ ? 1 : 0);
}

}  // namespace rl::ui
