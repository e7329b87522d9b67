#include "ui/main_window.hpp"

#include "report/html_report.hpp"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QChartView>
#include <QCloseEvent>
#include <QDateTime>
#include <QDockWidget>
#include <QFileDialog>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QScrollArea>
#include <QSettings>
#include <QStatusBar>
#include <QStyle>
#include <QTimer>

#include "redis/redis_url.hpp"
#include "storm/storm_settings.hpp"
#include "ui/panels/connection_panel.hpp"
#include "ui/panels/key_inspector_panel.hpp"
#include "ui/panels/lanes_panel.hpp"
#include "ui/panels/race_lab_panel.hpp"
#include "ui/panels/run_toolbar.hpp"
#include "ui/workers/worker_controller.hpp"
#include "ui/panels/storm_panel.hpp"
#include "ui/panels/summary_panel.hpp"
#include "ui/charts/lane_model.hpp"
#include "ui/qt_text.hpp"
#include "ui/panels/history_panel.hpp"
#include "ui/panels/http_audit_panel.hpp"
#include "ui/panels/tune_panel.hpp"

namespace rl::ui {

namespace {
QDockWidget* dock(QMainWindow* w, const QString& title, const QString& name, QWidget* content,
                  Qt::DockWidgetArea area) {
  auto* d = new QDockWidget(title, w);
  d->setObjectName(name);
  d->setWidget(content);
  w->addDockWidget(area, d);
  return d;
}

// `w` in a scroll area that resizes it, with the given frame.
QScrollArea* scrollable(QWidget* w, QFrame::Shape frame) {
  auto* s = new QScrollArea;
  s->setWidget(w);
  s->setWidgetResizable(true);
  s->setFrameShape(frame);
  return s;
}
}  // namespace

MainWindow::MainWindow(WorkerController& controller, QWidget* parent)
    : QMainWindow(parent),
      controller_(controller),
      connection_(new ConnectionPanel),
      storm_(new StormPanel),
      lanes_(new LanesPanel),
      race_(new RaceLabPanel),
      inspector_(new KeyInspectorPanel(controller)),
      summary_(new SummaryPanel),
      toolbar_(new RunToolBar),
      tune_(new TunePanel(controller)),
      audit_(new HttpAuditPanel),
      history_(new HistoryPanel),
      refreshLabel_(new QLabel) {
  setWindowTitle(tr("RateLab"));
  setWindowIcon(QIcon(QStringLiteral(":/icons/ratelab.png")));
  setCentralWidget(lanes_);
  addToolBar(Qt::TopToolBarArea, toolbar_);
  toolbar_->letSpaceStartIn(storm_);  // Space starts the storm from the form's number fields too
  buildDocks();
  buildMenus();
  wireController();
  statusBar()->addPermanentWidget(refreshLabel_);
  updateHint();
  resize(1400, 900);
}

void MainWindow::buildDocks() {
  dock(this, tr("Connection"), QStringLiteral("connectionDock"), connection_, Qt::LeftDockWidgetArea);
  dock(this, tr("Storm"), QStringLiteral("stormDock"), storm_, Qt::LeftDockWidgetArea);  // its form scrolls, Start does not
  // The left column runs the full height (the storm form fits at 1366x768);
  // the bottom tabs sit under the lanes only, and scroll rather than push
  // the lanes away when a tab (Tune, Race lab) wants more height.
  setCorner(Qt::BottomLeftCorner, Qt::LeftDockWidgetArea);
  auto* summary = dock(this, tr("Summary"), QStringLiteral("summaryDock"), summary_, Qt::BottomDockWidgetArea);
  auto* race = dock(this, tr("Race lab"), QStringLiteral("raceDock"), scrollable(race_, QFrame::NoFrame), Qt::BottomDockWidgetArea);
  auto* keys = dock(this, tr("Key inspector"), QStringLiteral("inspectorDock"), scrollable(inspector_, QFrame::NoFrame), Qt::BottomDockWidgetArea);
  tabifyDockWidget(summary, race);
  tabifyDockWidget(race, keys);
  auto* tune = dock(this, tr("Tune"), QStringLiteral("tuneDock"), scrollable(tune_, QFrame::NoFrame), Qt::BottomDockWidgetArea);
  tabifyDockWidget(keys, tune);
  auto* audit = dock(this, tr("HTTP audit"), QStringLiteral("auditDock"), scrollable(audit_, QFrame::NoFrame), Qt::BottomDockWidgetArea);
  tabifyDockWidget(tune, audit);
  tabifyDockWidget(audit, dock(this, tr("History"), QStringLiteral("historyDock"), history_, Qt::BottomDockWidgetArea));
  summary->raise();
}

void MainWindow::buildMenus() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  const auto act = [this](QMenu* menu, const QString& text, const QKeySequence& key, auto fn) {
    QAction* a = menu->addAction(text);
    a->setShortcut(key);
    connect(a, &QAction::triggered, this, fn);
    return a;
  };
  act(file, tr("&Load scenario..."), QKeySequence::Open, [this] {
    fileAction(tr("Load scenario"), tr("Scenario (*.json)"), std::nullopt, [this](const QString& p) { return loadScenario(p); });
  });
  act(file, tr("Open &trace..."), QKeySequence(Qt::CTRL | Qt::Key_T), [this] {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open trace"), QString(), tr("Logs (*.log *.gz *.jsonl *.csv *.txt);;All files (*)"));
    if (!path.isEmpty()) tune_->openTrace(path);
  });
  act(file, tr("&Save scenario..."), QKeySequence(Qt::CTRL | Qt::Key_S), [this] {
    fileAction(tr("Save scenario"), tr("Scenario (*.json)"), SaveAs{"scenario", "json"}, [this](const QString& p) { return saveScenario(p); });
  });
  file->addSeparator();
  act(file, tr("&Export charts as PNG..."), QKeySequence(Qt::CTRL | Qt::Key_E), [this] {
    fileAction(tr("Export charts"), tr("PNG image (*.png)"), SaveAs{"charts", "png"}, [this](const QString& p) { return exportPng(p); });
  });
  act(file, tr("Export decisions as &CSV..."), QKeySequence(), [this] {
    fileAction(tr("Export decisions"), tr("CSV (*.csv)"), SaveAs{"decisions", "csv"}, [this](const QString& p) {
      exportCsv(p);
      return Result<void>{};
    });
  });
  act(file, tr("Export summary as &JSON..."), QKeySequence(), [this] {
    fileAction(tr("Export summary"), tr("JSON (*.json)"), SaveAs{"run", "json"}, [this](const QString& p) { return exportJson(p); });
  });
  act(file, tr("Export &report (HTML)..."), QKeySequence(Qt::CTRL | Qt::Key_R), [this] { exportReportAs(); });
  act(file, tr("Export r&ace report (HTML)..."), QKeySequence(), [this] { exportRaceReportAs(); });
  file->addSeparator();
  act(file, tr("&Quit"), QKeySequence::Quit, [this] { close(); });

  QMenu* run = menuBar()->addMenu(tr("&Storm"));
  run->addAction(toolbar_->startAction());  // Start / stop, Space
  act(run, tr("Run race lab"), QKeySequence(), [this] { startRace(); });
  act(run, tr("Refresh key inspector"), QKeySequence(Qt::Key_F5), [this] { inspector_->refresh(); });

  QMenu* presetMenu = menuBar()->addMenu(tr("&Presets"));
  for (const Preset& p : presets()) {
    QAction* a = act(presetMenu, p.title, QKeySequence(), [this, id = p.id] { applyPreset(*findPreset(id)); });
    a->setToolTip(p.explanation);
  }
  presetMenu->setToolTipsVisible(true);

  QMenu* view = menuBar()->addMenu(tr("&View"));
  auto* themes = new QActionGroup(this);
  for (Theme t : {Theme::Light, Theme::Dark}) {
    QAction* a = act(view, t == Theme::Dark ? tr("&Dark theme") : tr("&Light theme"), QKeySequence(), [this, t] { setTheme(t); });
    a->setCheckable(true);
    a->setChecked(t == theme_);
    a->setObjectName(QStringLiteral("theme_") + themeName(t));
    themes->addAction(a);
  }
  view->addSeparator();
  act(view, tr("&Compare with previous run"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_P), [this] { compareWithPrevious(); });
  view->addSeparator();
  for (QDockWidget* d : findChildren<QDockWidget*>()) view->addAction(d->toggleViewAction());

  QMenu* help = menuBar()->addMenu(tr("&Help"));
  act(help, tr("&Keyboard shortcuts"), QKeySequence(Qt::Key_F1), [this] {
    QMessageBox::information(this, tr("Keyboard shortcuts"), shortcutsText());
  });
  act(help, tr("&About RateLab"), QKeySequence(), [this] {
    QMessageBox::about(this, tr("About RateLab"),
                       tr("<b>RateLab %1</b><p>A workbench for understanding, tuning and auditing rate limiters: "
                          "six algorithms on memory or a live Redis, races, leaks, outages and failovers, "
                          "and the team's own HTTP limiter, keys and config.</p><p>Qt %2. "
                          "<tt>ratelab-cli</tt> runs the same engine headless.</p><p>MIT License.</p>")
                           .arg(qs(rateLabVersion()), QString::fromLatin1(qVersion())));
  });
}

QString MainWindow::shortcutsText() const {
  // Read from the menus themselves, so the list is what the keys do.
  QString text;
  for (QAction* top : menuBar()->actions()) {
    if (!top->menu()) continue;
    for (QAction* a : top->menu()->actions())
      if (!a->shortcut().isEmpty())
        text += a->shortcut().toString(QKeySequence::NativeText) + QStringLiteral("\t") +
                QString(a->text()).remove(QLatin1Char('&')).remove(QStringLiteral("...")) + QLatin1Char('\n');
  }
  return text;
}

void MainWindow::wireController() {
  WorkerController* c = &controller_;
  connect(toolbar_, &RunToolBar::startStopTriggered, this, [this] { storm_->startButton()->click(); });
  connect(toolbar_, &RunToolBar::presetPicked, this, [this](const QString& id) {
    if (const Preset* p = findPreset(id)) applyPreset(*p);
  });
  connect(toolbar_, &RunToolBar::resetTriggered, this, [this] {
    preset_.reset();
    storm_->resetToFirstRun();
    if (redisUp_) storm_->setDefaultBackend(Backend::RedisLua);
    toolbar_->showPreset({});
    setWindowTitle(tr("RateLab"));
    updateHint();
  });
  connect(storm_, &StormPanel::whatChanged, this, &MainWindow::updateHint);
  connect(c, &WorkerController::redisStatus, this, [this](const RedisStatus& s) {
    redisUp_ = s.ok;
    if (s.ok) storm_->setDefaultBackend(Backend::RedisLua);  // only while nobody chose another
    updateHint();
  });
  connect(connection_, &ConnectionPanel::connectRequested, c, &WorkerController::connectRedis);
  connect(connection_, &ConnectionPanel::startServerRequested, c, &WorkerController::startServer);
  connect(connection_, &ConnectionPanel::stopServerRequested, c, &WorkerController::stopServer);
  connect(connection_, &ConnectionPanel::policyChanged, storm_, &StormPanel::setFailurePolicy);
  connect(connection_, &ConnectionPanel::policyChanged, this, [this] {
    if (preset_) preset_->policy.reset();  // the user's choice from now on, over the preset's own
  });
  connect(c, &WorkerController::redisStatus, connection_, &ConnectionPanel::showStatus);
  connect(c, &WorkerController::serverChanged, connection_, &ConnectionPanel::showServer);
  connect(c, &WorkerController::runServerChanged, connection_, &ConnectionPanel::showRunServer);
  connect(c, &WorkerController::message, this, [this](const QString& m) { statusBar()->showMessage(m, 5000); });
  connect(c, &WorkerController::errorOccurred, this, &MainWindow::showError);
  wireStorm();
  wireServing();
  wireRaceAndInspector();
  wireTune();
  wireHttpAudit();
  wireHistory();
}

void MainWindow::raiseDock(const QString& objectName) {
  if (auto* d = findChild<QDockWidget*>(objectName)) {
    d->show();
    d->raise();
  }
}

void MainWindow::showError(const QString& message) { statusBar()->showMessage(message, 10000); }

bool MainWindow::startStorm() {
  if (controller_.stormRunning()) return false;
  storm_->setRedisUrl(connection_->url());
  storm_->setFailurePolicy(runPolicy());
  auto spec = storm_->spec();
  if (!spec) {
    storm_->showError(qs(spec.error().message));
    return false;
  }
  if (isRedisBackend(spec->backend) && spec->redisUrl.empty() && !spec->failover) {  // a failover makes its cluster
    storm_->showError(tr("Redis: no server to use; start the managed server or enter a redis:// URL in the "
                         "Connection panel (or choose the memory backend)"));
    return false;
  }
  // Never run a fault schedule without its faults.
  if (const QString refused = controller_.faultRefusal(*spec); !refused.isEmpty()) {
    storm_->showError(refused);
    return false;
  }
  storm_->showError({});
  controller_.startStorm(*spec);
  if (preset_ && preset_->runRace) startRace();
  return true;
}

void MainWindow::startRace() {
  RaceRequest r = race_->request();
  r.redisUrl = connection_->url();
  r.spec.prefix = inspector_->prefix().toStdString();
  if (!controller_.startRace(r)) return;
  race_->setRunning(true);
  raceSpec_ = r.spec;  // the report says what raced
  raceResult_.reset();
}

void MainWindow::updateHint() {
  const auto spec = storm_->spec();
  if (!spec) return lanes_->setHint(tr("Pick a preset, or fix the storm form and press Space"));
  QString where = spec->backend == Backend::Memory ? tr("the in-memory store")
                  : redisUp_ ? tr("Redis (%1)").arg(QString::fromUtf8(backendName(spec->backend).data()))
                             : tr("Redis, once it answers");
  if (spec->backend == Backend::Http)  // the target decides, and RateLab's model beside it when asked
    where = tr("the HTTP limiter at %1%2")
                .arg(qs(spec->http.targets.empty() ? std::string("?") : spec->http.targets.front()),
                     spec->compareBackends.empty() ? QString() : tr(", then in memory beside it"));
  QStringList names;
  for (Algorithm a : spec->algorithms) names << QString::fromUtf8(algorithmName(a).data());
  lanes_->setHint(tr("Pick a preset above, or press Space to fire %L1 requests at %2 on %3")
                      .arg(spec->requests)
                      .arg(names.join(QStringLiteral(", ")), where));
}

void MainWindow::onStormFinished() {
  storm_->setRunning(false);
  toolbar_->setRunning(false);
  lanes_->markRunEnd(controller_.runWallUs());
  summary_->setResult(controller_.lastResult());
  recordRun();
  if (controller_.spec().backend != Backend::Memory) inspector_->refresh();
  emit stormDone();
}

void MainWindow::applyPreset(const Preset& preset) {
  preset_ = preset;
  if (!controller_.stormRunning()) {  // the previous storm's lanes and summary are not this preset's
    lanes_->setLanes(stormLanes(preset.spec), ttlSourceOf(preset.spec.backend, preset.spec.clock));
    summary_->clear(tr("%1: press Space (or Start) to run it.").arg(preset.title));
  }
  storm_->setSpec(preset.spec);  // its on_redis_error applies to its runs only (runPolicy), not to later storms
  storm_->setExplanation(QStringLiteral("<b>%1.</b> %2").arg(preset.title, preset.explanation));
  setWindowTitle(tr("RateLab - %1").arg(preset.title));
  raiseDock(preset.show.isEmpty() ? QStringLiteral("summaryDock") : preset.show);  // the tab that matters
  toolbar_->showPreset(preset.id);
  updateHint();
}

void MainWindow::setTheme(Theme t) {
  theme_ = t;
  applyTheme(*qobject_cast<QApplication*>(QCoreApplication::instance()), t);
  lanes_->setTheme(t);
  race_->setTheme(t);
  for (QAction* a : findChildren<QAction*>())
    if (a->objectName() == QStringLiteral("theme_") + themeName(t)) a->setChecked(true);
}

void MainWindow::inBackground(std::function<QString()> work) {
  controller_.inBackground(std::move(work), this, [this](const QString& text) { showError(text); });
}

template <class Fn>
void MainWindow::fileAction(const QString& title, const QString& filter, std::optional<SaveAs> save, Fn&& fn) {
  const QString path = save ? askSavePath(this, title, *save, filter) : QFileDialog::getOpenFileName(this, title, QString(), filter);
  if (path.isEmpty()) return;
  fileNote_.clear();
  const Result<void> ok = fn(path);
  showError(!ok ? qs(ok.error().message)
                : fileNote_.isEmpty() ? tr("%1: %2").arg(title, path) : tr("%1: %2, %3").arg(title, path, fileNote_));
}

void MainWindow::saveSettings(QSettings& s) const {
  s.setValue(QStringLiteral("window/geometry"), saveGeometry());
  s.setValue(QStringLiteral("window/state"), saveState());
  s.setValue(QStringLiteral("window/theme"), themeName(theme_));
  // Never a password on disk: the URL without it (the password comes from
  // --redis-password-file or $REDISCLI_AUTH, or is typed again).
  // The next start reconnects to this Redis; a managed server stops with the window, so it is not kept.
  if (controller_.isManagedServerUrl(connection_->url()))
    s.remove(QStringLiteral("redis/url"));
  else
    s.setValue(QStringLiteral("redis/url"), qs(withoutPassword(connection_->url().toStdString())));
  s.setValue(QStringLiteral("inspector/prefix"), inspector_->prefix());
  auto spec = storm_->spec();
  if (spec) spec->redisUrl.clear();
  if (spec) s.setValue(QStringLiteral("storm/scenario"), qs(dumpJson(specToJson(*spec))));
}

void MainWindow::restoreSettings(const QSettings& s) {
  restoreGeometry(s.value(QStringLiteral("window/geometry")).toByteArray());
  docksSized_ = restoreState(s.value(QStringLiteral("window/state")).toByteArray());
  setTheme(parseTheme(s.value(QStringLiteral("window/theme")).toString()));
  const QString url = s.value(QStringLiteral("redis/url")).toString();
  if (!url.isEmpty()) connection_->setUrl(url);
  const QString prefix = s.value(QStringLiteral("inspector/prefix")).toString();
  if (!prefix.isEmpty()) inspector_->setPrefix(prefix);
  const auto doc = parseJson(s.value(QStringLiteral("storm/scenario")).toString().toStdString());
  if (!doc) return;
  if (auto spec = specFromJson(*doc); spec) {
    storm_->setSpec(*spec);
    connection_->setPolicy(spec->resilience.onRedisError);
  }
}

void MainWindow::showEvent(QShowEvent* event) {
  QMainWindow::showEvent(event);
  if (docksSized_) return;
  docksSized_ = true;
  QTimer::singleShot(0, this, [this] {  // after the first layout: sizes are known
    const auto d = [this](const char* name) { return findChild<QDockWidget*>(QLatin1String(name)); };
    const int storm = storm_->minimumSizeHint().width() + style()->pixelMetric(QStyle::PM_ScrollBarExtent) + 12;
    resizeDocks({d("connectionDock"), d("stormDock")}, {std::max(500, storm), std::max(500, storm)}, Qt::Horizontal);
    resizeDocks({d("connectionDock"), d("stormDock")}, {190, height()}, Qt::Vertical);
    resizeDocks({d("summaryDock")}, {height() / 5}, Qt::Vertical);
  });
}

void MainWindow::closeEvent(QCloseEvent* event) {
  QSettings settings;
  saveSettings(settings);
  controller_.stopStorm();
  event->accept();
}

}  // namespace rl::ui
