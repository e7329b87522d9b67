// The window without Redis: every panel builds, invalid input is refused with
// a visible message and starts nothing, presets, settings and scenarios
// round-trip, and a memory preset storm runs to completion into the lanes.

#include <QtTest>

#include <QDir>
#include <QFile>

#include <QCheckBox>
#include <QComboBox>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QLineEdit>
#include <QLineSeries>
#include <QPushButton>
#include <QRadioButton>
#include <QSettings>
#include <QTableWidget>
#include <QTemporaryDir>
#include <set>

#include "storm/storm_settings.hpp"
#include "ui/charts/chart_lane.hpp"
#include "ui/charts/series_chart.hpp"
#include "ui/panels/connection_panel.hpp"
#include "ui/panels/key_inspector_panel.hpp"
#include "ui/panels/lanes_panel.hpp"
#include "ui/main_window.hpp"
#include "ui/panels/race_lab_panel.hpp"
#include "ui/panels/run_toolbar.hpp"
#include "ui/workers/redis_types.hpp"
#include "ui/workers/worker_controller.hpp"
#include "ui/panels/storm_panel.hpp"
#include "ui/panels/summary_panel.hpp"
#include "ui/charts/ttl_chart.hpp"

using namespace rl;
using namespace rl::ui;

namespace {
std::string json(const StormSpec& s) { return dumpJson(specToJson(s)); }

QString cell(QTableWidget* t, int row, int column) {
  auto* item = t->item(row, column);
  return item ? item->text() : QString();
}

/// What a refused form shows and what it must not do.
enum class BadInput { NoAlgorithm, ZeroLimit, BadSkew, SkewCount, ZeroWindow, ZeroConcurrency, MissingRate };
}  // namespace
Q_DECLARE_METATYPE(BadInput)
Q_DECLARE_METATYPE(rl::ui::TtlSource)

class UiPanelsTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase();
  void everyPanelBuilds();
  void algorithmCheckboxesExplainThemselves();
  void stormFormRefusesInvalidInput_data();
  void stormFormRefusesInvalidInput();
  void windowStartsNothingOnInvalidInput();
  void redisBackendWithoutServerIsRefused();
  void presetsFillAValidForm_data();
  void presetsFillAValidForm();
  void presetsAreTheScenarioFiles();
  void firstRunShowsWhereToStart();
  void brokenPresetFilesAreNamed();
  void settingsRoundTrip();
  void settingsNeverHoldAPassword();
  void connectionPanelOffersThreePolicies();
  void scenarioRoundTrip();
  void badScenarioNamesTheKey();
  void faultScenarioIsNotRunWithoutItsFaults();
  void memoryPresetStormFillsLanesAndSummary();
  void inspectorPagesAndStopsAutoRefreshAboveTheLimit();
  void refreshBacksOffWhenItIsExpensive_data();
  void refreshBacksOffWhenItIsExpensive();
  void identicalLinesStayVisible();
  void ttlAxisIsWallClockAndSharedOnlyInRealTime_data();
  void ttlAxisIsWallClockAndSharedOnlyInRealTime();

 private:
  QTemporaryDir dir_;
};

void UiPanelsTest::initTestCase() {
  QVERIFY(dir_.isValid());
  QStandardPaths::setTestModeEnabled(true);
}

void UiPanelsTest::everyPanelBuilds() {
  WorkerController controller;
  MainWindow w(controller);
  w.show();
  QVERIFY(QTest::qWaitForWindowExposed(&w));
  QVERIFY(w.connectionPanel()->isVisible());
  QVERIFY(w.stormPanel()->isVisible());
  QVERIFY(w.lanesPanel()->isVisible());
  QVERIFY(w.summaryPanel() != nullptr);
  QVERIFY(w.raceLabPanel() != nullptr);
  QVERIFY(w.keyInspectorPanel() != nullptr);
  QCOMPARE(w.lanesPanel()->lanes().size(), 1);
  QCOMPARE(w.summaryPanel()->table()->columnCount(), 9);
  QCOMPARE(w.raceLabPanel()->table()->rowCount(), 3);
  w.setTheme(Theme::Dark);
  QCOMPARE(w.theme(), Theme::Dark);
  QCOMPARE(w.lanesPanel()->lanes().front()->chart()->theme(), QChart::ChartThemeDark);
}

void UiPanelsTest::algorithmCheckboxesExplainThemselves() {
  StormPanel panel;
  for (Algorithm a : kAllAlgorithms) {
    auto* box = panel.findChild<QCheckBox*>(QString::fromUtf8(algorithmName(a).data()));
    QVERIFY(box);
    QCOMPARE(box->toolTip(), QString::fromUtf8(algorithmSummary(a).data()));
  }
}

void UiPanelsTest::stormFormRefusesInvalidInput_data() {
  QTest::addColumn<BadInput>("bad");
  QTest::addColumn<QString>("message");
  QTest::newRow("no algorithm") << BadInput::NoAlgorithm << "check at least one";
  // In the form's words: its field labels, not ratelab-cli's flags.
  QTest::newRow("limit 0") << BadInput::ZeroLimit << "Limit: limit 0 is out of range: allowed 1 to";
  QTest::newRow("skew text") << BadInput::BadSkew << "skew: 'abc' is not a whole number of milliseconds";
  QTest::newRow("skew count") << BadInput::SkewCount << "Skew has 2 values: allowed one per replica (1)";
  QTest::newRow("window 0") << BadInput::ZeroWindow << "Window: window 0 ms is out of range";
  QTest::newRow("concurrency 0") << BadInput::ZeroConcurrency << "Concurrency 0 is out of range: allowed 1 to 512";
  QTest::newRow("rate missing") << BadInput::MissingRate << "Rate is required by Pattern constant";
}

void UiPanelsTest::stormFormRefusesInvalidInput() {
  QFETCH(BadInput, bad);
  QFETCH(QString, message);
  StormPanel panel;
  StormSpec spec;
  spec.requests = 100;
  spec.clock = ClockMode::Client;
  panel.setSpec(spec);
  panel.show();
  switch (bad) {
    case BadInput::NoAlgorithm: panel.findChild<QCheckBox*>(QStringLiteral("fixed_window"))->setChecked(false); break;
    case BadInput::ZeroLimit: panel.findChild<QDoubleSpinBox*>(QStringLiteral("limit"))->setValue(0); break;
    case BadInput::BadSkew: panel.findChild<QLineEdit*>(QStringLiteral("skew"))->setText(QStringLiteral("0,abc")); break;
    case BadInput::SkewCount: panel.findChild<QLineEdit*>(QStringLiteral("skew"))->setText(QStringLiteral("0,100")); break;
    case BadInput::ZeroWindow: panel.findChild<QDoubleSpinBox*>(QStringLiteral("windowMs"))->setValue(0); break;
    case BadInput::ZeroConcurrency: panel.findChild<QSpinBox*>(QStringLiteral("concurrency"))->setValue(0); break;
    case BadInput::MissingRate: {
      spec.pattern = Pattern::Constant;
      panel.setSpec(spec);
      break;
    }
  }
  QSignalSpy started(&panel, &StormPanel::startRequested);
  QTest::mouseClick(panel.startButton(), Qt::LeftButton);
  QCOMPARE(started.count(), 0);
  QVERIFY2(panel.errorText().contains(message), qPrintable(panel.errorText()));
  QVERIFY2(!panel.errorText().contains(QStringLiteral("--")), qPrintable(panel.errorText()));
  QVERIFY(panel.findChild<QLabel*>(QStringLiteral("stormError"))->isVisible());
}

void UiPanelsTest::windowStartsNothingOnInvalidInput() {
  WorkerController controller;
  MainWindow w(controller);
  w.show();
  QVERIFY(QTest::qWaitForWindowExposed(&w));
  w.stormPanel()->findChild<QDoubleSpinBox*>(QStringLiteral("limit"))->setValue(0);
  QSignalSpy started(&controller, &WorkerController::stormStarted);
  QTest::keyClick(&w, Qt::Key_Space);  // the Start/Stop shortcut
  QCOMPARE(started.count(), 0);
  QVERIFY(!controller.stormRunning());
  QVERIFY(w.stormPanel()->errorText().startsWith(QStringLiteral("Limit: limit 0 is out of range")));
  QVERIFY(!w.startStorm());
}

void UiPanelsTest::redisBackendWithoutServerIsRefused() {
  WorkerController controller;
  MainWindow w(controller);
  StormSpec spec;
  spec.backend = Backend::RedisLua;
  spec.requests = 10;
  w.stormPanel()->setSpec(spec);
  QVERIFY(!w.startStorm());
  QVERIFY(!controller.stormRunning());
  QVERIFY2(w.stormPanel()->errorText().startsWith(QStringLiteral("Redis: no server to use")), qPrintable(w.stormPanel()->errorText()));
}

void UiPanelsTest::presetsFillAValidForm_data() {
  QTest::addColumn<QString>("id");
  for (const Preset& p : presets()) QTest::newRow(qPrintable(p.id)) << p.id;
}

void UiPanelsTest::presetsFillAValidForm() {
  QFETCH(QString, id);
  const Preset* p = findPreset(id);
  QVERIFY(p);
  QVERIFY(!p->explanation.isEmpty());
  WorkerController controller;
  MainWindow w(controller);
  w.applyPreset(*p);
  auto spec = w.stormPanel()->spec();
  QVERIFY2(spec.ok(), spec.ok() ? "" : spec.error().message.c_str());
  StormSpec expected = p->spec;
  expected.redisUrl.clear();  // the Redis is the Connection panel's (failover's "cluster": it makes its own)
  QCOMPARE(QString::fromStdString(json(*spec)), QString::fromStdString(json(expected)));
  // The preset's own on_redis_error is for its runs: the Connection panel's choice is never flipped.
  QCOMPARE(w.connectionPanel()->policy(), FailurePolicy::Open);
}

void UiPanelsTest::presetsAreTheScenarioFiles() {
  // Every scenario file with a "window" key is a preset, and the preset runs exactly the file's storm.
  const QDir dir(QStringLiteral(RATELAB_SOURCE_DIR "/resources/scenarios"));
  QStringList withWindow;
  for (const QString& f : dir.entryList({QStringLiteral("*.json")}, QDir::Files)) {
    QFile file(dir.filePath(f));
    QVERIFY(file.open(QIODevice::ReadOnly));
    if (file.readAll().contains("\"window\"")) withWindow << f.chopped(5);
  }
  QCOMPARE(withWindow.size(), 9);
  QCOMPARE(presetIds(), (QStringList{"boundary", "replica_leak", "race", "clock_skew", "outage", "burst_tolerance",
                                     "failover", "gcra_rate_raise", "sentinel_failover"}));
  for (const QString& id : withWindow) {
    const Preset* p = findPreset(id);
    QVERIFY2(p, qPrintable(id));
    const auto fromFile = loadScenario(dir.filePath(id + QStringLiteral(".json")).toStdString());
    QVERIFY2(fromFile.ok(), fromFile.ok() ? "" : fromFile.error().message.c_str());
    QCOMPARE(QString::fromStdString(json(p->spec)), QString::fromStdString(json(*fromFile)));
  }
  QVERIFY(findPreset(QStringLiteral("race"))->runRace);
  QCOMPARE(findPreset(QStringLiteral("race"))->show, QStringLiteral("raceDock"));
  // The outage and the variants are the experiment's own keys, run the same way by ratelab-cli.
  QCOMPARE(QString::fromStdString(faultScheduleText(findPreset(QStringLiteral("outage"))->spec.faults)),
           QStringLiteral("kill@1000,restart@2000"));
  QVERIFY(findPreset(QStringLiteral("outage"))->spec.comparePolicies ==
          (std::vector<FailurePolicy>{FailurePolicy::Open, FailurePolicy::Closed, FailurePolicy::Local}));
  QVERIFY(findPreset(QStringLiteral("boundary"))->spec.comparePolicies.empty());
  QVERIFY(findPreset(QStringLiteral("failover"))->spec.compareWaitReplicas == (std::vector<int>{0, 1}));
  QVERIFY(findPreset(QStringLiteral("failover"))->spec.failover.has_value());
  QVERIFY(findPreset(QStringLiteral("boundary"))->spec.compareWaitReplicas.empty());
  auto badWait = presetFromScenario(QStringLiteral("w"), R"({"limit": 5, "compare_wait_replicas": [0, -1], "window": {"title": "T", "explanation": "E"}})");
  QVERIFY(!badWait.ok());
  QCOMPARE(QString::fromStdString(badWait.error().message),
           QStringLiteral("scenario 'w': scenario key 'compare_wait_replicas': '-1' is not valid: allowed comma-separated replica counts 0 to 100"));
  auto bad = presetFromScenario(QStringLiteral("z"), R"({"limit": 5, "compare_policies": ["open", "lax"], "window": {"title": "T", "explanation": "E"}})");
  QVERIFY(!bad.ok());
  QCOMPARE(QString::fromStdString(bad.error().message),
           QStringLiteral("scenario 'z': scenario key 'compare_policies': 'lax' is not valid: allowed comma-separated failure policies: open, closed or local"));
  auto moved = presetFromScenario(QStringLiteral("m"), R"({"limit": 5, "window": {"title": "T", "explanation": "E", "outage": {"stop_at_ms": 1, "restart_at_ms": 2}}})");
  QVERIFY(!moved.ok());
  QVERIFY2(QString::fromStdString(moved.error().message).contains(QStringLiteral("'window.outage' is no longer read")),
           moved.error().message.c_str());
}

void UiPanelsTest::firstRunShowsWhereToStart() {
  WorkerController controller;
  MainWindow w(controller);
  w.show();
  auto* bar = w.findChild<RunToolBar*>(QStringLiteral("runToolBar"));
  QVERIFY(bar);
  QCOMPARE(bar->startAction()->shortcut(), QKeySequence(Qt::Key_Space));
  QCOMPARE(bar->presetBox()->count(), 1 + static_cast<int>(presets().size()));
  QVERIFY(w.lanesPanel()->hint()->isVisible());
  QVERIFY(!w.lanesPanel()->lanes().front()->isVisible());
  QVERIFY2(w.lanesPanel()->hint()->text().contains(QStringLiteral("press Space to fire 1,000 requests at fixed_window")),
           qPrintable(w.lanesPanel()->hint()->text()));
  QCOMPARE(w.stormPanel()->backend(), Backend::Memory);
  // Redis answers: the form moves to redis-lua, and the hint says so.
  emit controller.redisStatus(RedisStatus{true, QStringLiteral("redis://127.0.0.1:1"), QStringLiteral("7.0"), 0, 0, false, {}});
  QCOMPARE(w.stormPanel()->backend(), Backend::RedisLua);
  QVERIFY2(w.lanesPanel()->hint()->text().contains(QStringLiteral("on Redis (redis-lua)")), qPrintable(w.lanesPanel()->hint()->text()));
  // A preset picked in the toolbar fills the form and keeps its own backend.
  const int replicaLeak = bar->presetBox()->findData(QStringLiteral("replica_leak"));
  bar->presetBox()->setCurrentIndex(replicaLeak);
  emit bar->presetBox()->activated(replicaLeak);
  QCOMPARE(w.stormPanel()->spec()->replicas, 4);
  emit controller.redisStatus(RedisStatus{true, QStringLiteral("redis://127.0.0.1:1"), QStringLiteral("7.0"), 0, 0, false, {}});
  QCOMPARE(w.stormPanel()->backend(), Backend::Memory);
  // Reset: the first-run form again, on Redis since it answers.
  w.findChild<QAction*>(QStringLiteral("resetAction"))->trigger();
  QCOMPARE(w.stormPanel()->spec()->requests, 1000);
  QCOMPARE(w.stormPanel()->backend(), Backend::RedisLua);
  QCOMPARE(bar->presetBox()->currentIndex(), 0);
}

void UiPanelsTest::brokenPresetFilesAreNamed() {
  auto p = presetFromScenario(QStringLiteral("x"), R"({"limit": 5, "window": {"title": "T"}})");
  QVERIFY(!p.ok());
  QCOMPARE(QString::fromStdString(p.error().message),
           QStringLiteral("scenario 'x' 'window.explanation' is missing: allowed a non-empty string"));
  p = presetFromScenario(QStringLiteral("y"), R"({"limit": 5, "window": {"title": "T", "explanation": "E", "outage": {"stop_at_ms": 5}}})");
  QVERIFY(!p.ok());
  QVERIFY(p.error().message.starts_with("scenario 'y' 'window.outage' is no longer read"));
  p = presetFromScenario(QStringLiteral("z"), R"({"limit": "x", "window": {"title": "T", "explanation": "E"}})");
  QVERIFY(!p.ok());
  QVERIFY(p.error().message.starts_with("scenario 'z': scenario key 'limit'"));
  QVERIFY(!presetFromScenario(QStringLiteral("w"), R"({"limit": 5})").ok());
}

void UiPanelsTest::settingsRoundTrip() {
  const QString path = dir_.filePath(QStringLiteral("settings.ini"));
  std::string saved;
  {
    WorkerController controller;
    MainWindow w(controller);
    w.applyPreset(*findPreset(QStringLiteral("clock_skew")));
    w.stormPanel()->findChild<QDoubleSpinBox*>(QStringLiteral("limit"))->setValue(77);
    w.connectionPanel()->setUrl(QStringLiteral("redis://127.0.0.1:6400/2"));
    w.setTheme(Theme::Dark);
    w.resize(1234, 777);
    w.findChild<QDockWidget*>(QStringLiteral("raceDock"))->setFloating(true);  // a dock layout change
    QSettings settings(path, QSettings::IniFormat);
    w.saveSettings(settings);
    saved = json(*w.stormPanel()->spec());
  }
  WorkerController controller;
  MainWindow w(controller);
  QSettings settings(path, QSettings::IniFormat);
  w.restoreSettings(settings);
  QCOMPARE(json(*w.stormPanel()->spec()), saved);
  QCOMPARE(w.stormPanel()->spec()->quota.limit, 77);
  QCOMPARE(w.connectionPanel()->url(), QStringLiteral("redis://127.0.0.1:6400/2"));
  QCOMPARE(w.theme(), Theme::Dark);
  QCOMPARE(w.size(), QSize(1234, 777));
  QVERIFY(w.findChild<QDockWidget*>(QStringLiteral("raceDock"))->isFloating());
  w.setTheme(Theme::Light);
}

void UiPanelsTest::settingsNeverHoldAPassword() {
  const QString path = dir_.filePath(QStringLiteral("pw-settings.ini"));
  {
    WorkerController controller;
    MainWindow w(controller);
    w.connectionPanel()->setUrl(QStringLiteral("redis://alice:Sup3rSecret@127.0.0.1:6400/2"));
    QSettings settings(path, QSettings::IniFormat);
    w.saveSettings(settings);
  }
  QFile raw(path);
  QVERIFY(raw.open(QIODevice::ReadOnly));
  const QByteArray text = raw.readAll();
  QVERIFY2(!text.contains("Sup3rSecret"), text.constData());  // not in any key, not the scenario either
  WorkerController controller;
  MainWindow w(controller);
  QSettings settings(path, QSettings::IniFormat);
  w.restoreSettings(settings);
  QCOMPARE(w.connectionPanel()->url(), QStringLiteral("redis://alice@127.0.0.1:6400/2"));
}

void UiPanelsTest::connectionPanelOffersThreePolicies() {
  ConnectionPanel panel;
  QSignalSpy changed(&panel, &ConnectionPanel::policyChanged);
  auto* local = panel.findChild<QRadioButton*>(QStringLiteral("policyLocal"));
  QVERIFY(local);
  local->click();
  QCOMPARE(panel.policy(), FailurePolicy::Local);
  QCOMPARE(changed.count(), 1);
  panel.setPolicy(FailurePolicy::Closed);
  QCOMPARE(panel.policy(), FailurePolicy::Closed);
  panel.setPolicy(FailurePolicy::Local);
  QVERIFY(local->isChecked());
}

void UiPanelsTest::scenarioRoundTrip() {
  const QString path = dir_.filePath(QStringLiteral("burst.json"));
  WorkerController controller;
  MainWindow a(controller);
  a.applyPreset(*findPreset(QStringLiteral("burst_tolerance")));
  QVERIFY(a.saveScenario(path).ok());
  MainWindow b(controller);
  auto ok = b.loadScenario(path);
  QVERIFY2(ok.ok(), ok.ok() ? "" : ok.error().message.c_str());
  QCOMPARE(json(*b.stormPanel()->spec()), json(findPreset(QStringLiteral("burst_tolerance"))->spec));
}

void UiPanelsTest::badScenarioNamesTheKey() {
  const QString path = dir_.filePath(QStringLiteral("bad.json"));
  QFile f(path);
  QVERIFY(f.open(QIODevice::WriteOnly));
  f.write(R"({"algorithm": "fixed_window", "limitt": 5})");
  f.close();
  WorkerController controller;
  MainWindow w(controller);
  const std::string before = json(*w.stormPanel()->spec());
  auto ok = w.loadScenario(path);
  QVERIFY(!ok.ok());
  QVERIFY2(QString::fromStdString(ok.error().message).contains(QStringLiteral("limitt")), ok.error().message.c_str());
  QCOMPARE(json(*w.stormPanel()->spec()), before);  // nothing changed
}

void UiPanelsTest::faultScenarioIsNotRunWithoutItsFaults() {
  // A scenario with "fault" loads; without the window's managed server there is
  // nothing to do the faults to: it says so, never runs it plain.
  const QString path = dir_.filePath(QStringLiteral("faults.json"));
  QFile f(path);
  QVERIFY(f.open(QIODevice::WriteOnly));
  f.write(R"({"backend": "redis-lua", "clock": "client", "pattern": "constant", "rate": 100, "requests": 300,
              "fault": "pause@100:200"})");
  f.close();
  WorkerController controller;
  MainWindow w(controller);
  QVERIFY(w.loadScenario(path).ok());
  w.connectionPanel()->setUrl(QStringLiteral("redis://127.0.0.1:1"));
  QVERIFY(!w.startStorm());
  QVERIFY(!controller.stormRunning());
  QVERIFY2(w.stormPanel()->errorText().startsWith(QStringLiteral("This scenario has a fault schedule (pause@100:200): "
                                                                 "it is done to the window's managed redis-server only")),
           qPrintable(w.stormPanel()->errorText()));
}

void UiPanelsTest::memoryPresetStormFillsLanesAndSummary() {
  // Replica leak (resources/scenarios/replica_leak.json): 4 memory replicas, 100 per minute each: all 400 pass (4x).
  WorkerController controller;
  MainWindow w(controller);
  w.show();
  w.applyPreset(*findPreset(QStringLiteral("replica_leak")));
  QSignalSpy done(&w, &MainWindow::stormDone);
  QVERIFY(w.startStorm());
  QVERIFY(done.wait(60'000));
  QCOMPARE(controller.model().size(), std::size_t{400});
  QCOMPARE(w.lanesPanel()->lanes().size(), 1);
  QVERIFY(w.lanesPanel()->lanes()[0]->admittedPoints() > 0);  // one burst at t = 0 on the virtual clock
  QCOMPARE(w.lanesPanel()->lanes()[0]->overLimitSpans(), 1);
  QVERIFY(w.lanesPanel()->levelChart()->points(0) > 0);
  QVERIFY(!w.lanesPanel()->hint()->isVisible());  // the first storm replaced the hint
  QTableWidget* t = w.summaryPanel()->table();
  QCOMPARE(cell(t, 0, 0), QStringLiteral("fixed_window"));
  QCOMPARE(cell(t, 0, 1), QStringLiteral("400"));
  QCOMPARE(cell(t, 0, 2), QStringLiteral("400"));   // 4 replicas x 100
  QCOMPARE(cell(t, 0, 5), QStringLiteral("400"));   // worst window
  QCOMPARE(cell(t, 0, 6), QStringLiteral("4.00x"));
  QVERIFY(!controller.stormRunning());
  QVERIFY(w.stormPanel()->startButton()->text().contains(QStringLiteral("Start")));
  // The JSON summary carries the CLI's field names.
  const QString path = dir_.filePath(QStringLiteral("summary.json"));
  QVERIFY(w.exportJson(path).ok());
  QFile f(path);
  QVERIFY(f.open(QIODevice::ReadOnly));
  const auto runs = QJsonDocument::fromJson(f.readAll()).object().value(QStringLiteral("runs")).toArray();
  QCOMPARE(runs.size(), 1);
  QCOMPARE(runs[0].toObject().value(QStringLiteral("max_admitted_in_window")).toInt(), 400);
  QVERIFY(w.exportPng(dir_.filePath(QStringLiteral("lanes.png"))).ok());
  QVERIFY(QImage(dir_.filePath(QStringLiteral("lanes.png"))).width() > 100);
}

namespace {
InspectedKey stringKey(const QString& name) {  // a string key with 1 s left, value 1
  InspectedKey k;
  k.name = name;
  k.type = QStringLiteral("string");
  k.pttlMs = 1000;
  k.value = QStringLiteral("1");
  return k;
}
}  // namespace

void UiPanelsTest::inspectorPagesAndStopsAutoRefreshAboveTheLimit() {
  WorkerController workers;  // runs the panel's worker
  KeyInspectorPanel panel(workers);
  QSignalSpy scans(&panel, &KeyInspectorPanel::scanRequested);
  panel.autoRefresh()->setChecked(true);
  KeyPageResult page;
  page.prefix = QStringLiteral("ratelab:");  // what the panel asks for
  page.nextCursor = 42;
  for (int i = 0; i < KeyInspectorPanel::kAutoRefreshMaxKeys; ++i)
    page.keys.append(stringKey(QStringLiteral("ratelab:{gcra:c%1}").arg(i)));
  panel.showPage(page);
  QCOMPARE(panel.keyCount(), 500);
  QVERIFY(panel.autoRefresh()->isChecked());  // at the limit: still on
  auto* next = panel.findChild<QPushButton*>(QStringLiteral("nextPage"));
  QCOMPARE(next->text(), QStringLiteral("Next page"));
  QVERIFY(next->isEnabled());
  next->click();
  QCOMPARE(scans.count(), 1);
  QCOMPARE(scans.takeFirst().at(2).toULongLong(), 42ULL);  // continues the scan at the cursor
  KeyPageResult more;
  more.prefix = QStringLiteral("ratelab:");
  more.firstPage = false;
  more.keys.append(stringKey(QStringLiteral("ratelab:{gcra:last}")));
  panel.showPage(more);
  QCOMPARE(panel.keyCount(), 501);
  KeyPageResult stale = more;  // a page of an earlier question (another prefix) is not shown
  stale.prefix = QStringLiteral("other:");
  panel.showPage(stale);
  QCOMPARE(panel.keyCount(), 501);
  QVERIFY(!panel.autoRefresh()->isChecked());  // above the limit: switched itself off
  QVERIFY2(panel.statusText().contains(QStringLiteral("auto-refresh off above 500 keys")), qPrintable(panel.statusText()));
  QVERIFY(!next->isEnabled());  // the scan is complete
}

void UiPanelsTest::refreshBacksOffWhenItIsExpensive_data() {
  QTest::addColumn<double>("costMs");
  QTest::addColumn<int>("intervalMs");
  QTest::newRow("cheap") << 2.0 << 33;
  QTest::newRow("20 ms") << 20.0 << 60;
  QTest::newRow("huge") << 900.0 << 1000;
}

void UiPanelsTest::refreshBacksOffWhenItIsExpensive() {
  QFETCH(double, costMs);
  QFETCH(int, intervalMs);
  WorkerController controller;
  controller.noteRefreshCost(costMs);
  QCOMPARE(controller.refreshIntervalMs(), intervalMs);
}

void UiPanelsTest::identicalLinesStayVisible() {
  // Token bucket and GCRA draw identical levels: each algorithm has its own
  // dash pattern, and a line drawn earlier is wider, so the later one's gaps
  // and the earlier one's edges both show.
  SeriesChart chart(QStringLiteral("level"), QStringLiteral("level"), QString());
  chart.setAlgorithms(std::vector<Algorithm>(kAllAlgorithms.begin(), kAllAlgorithms.end()));
  std::set<std::pair<QList<qreal>, int>> looks;
  for (int i = 0; i < 6; ++i) {
    const QPen pen = chart.pen(i);
    looks.insert({pen.style() == Qt::SolidLine ? QList<qreal>() : pen.dashPattern(), pen.color().rgb()});
    if (i > 0) QVERIFY(pen.widthF() <= chart.pen(i - 1).widthF());
  }
  QCOMPARE(looks.size(), std::size_t{6});
  const int bucket = 3, gcra = 5;  // kAllAlgorithms order
  QCOMPARE(chart.pen(bucket).style(), Qt::SolidLine);
  QCOMPARE(chart.pen(gcra).style(), Qt::CustomDashLine);
  QVERIFY(chart.pen(bucket).widthF() > chart.pen(gcra).widthF());
  // The same two in the other order: GCRA (dotted) below is wider than the bucket's solid line on top.
  chart.setAlgorithms({Algorithm::Gcra, Algorithm::TokenBucket});
  QVERIFY(chart.pen(0).widthF() > chart.pen(1).widthF());
  QCOMPARE(chart.pen(0).style(), Qt::CustomDashLine);
}

void UiPanelsTest::ttlAxisIsWallClockAndSharedOnlyInRealTime_data() {
  QTest::addColumn<TtlSource>("source");
  QTest::addColumn<double>("xMax");
  QTest::addColumn<QString>("title");
  // Lanes span 6 s; TTL samples at 0.1, 0.2 and 0.3 s of wall time; the run ended at 20 ms.
  QTest::newRow("virtual clock: its own 0.3 s") << TtlSource::VirtualClock << 0.3
                                                << QStringLiteral("PTTL after the run: a virtual-clock storm runs faster than real time, so its keys "
                                                                  "are read once it ends");
  QTest::newRow("real time: shares the lanes' 6 s") << TtlSource::WallClock << 6.0
                                                    << QStringLiteral("PTTL of the limiter keys, during and after the run");
}

void UiPanelsTest::ttlAxisIsWallClockAndSharedOnlyInRealTime() {
  QFETCH(TtlSource, source);
  QFETCH(double, xMax);
  QFETCH(QString, title);
  TtlChart chart;
  chart.reset({Algorithm::FixedWindow, Algorithm::SlidingLog}, source);
  chart.setLanesSpan(6.0);
  chart.addSample(100'000, {900, 950});
  chart.addSample(200'000, {800, -2});  // no key (Redis down, or expired): a gap, not a zero
  chart.addSample(300'000, {-2, 700});  // back: a new piece, no line drawn across the gap
  chart.markRunEnd(20'000);
  QCOMPARE(chart.points(0), 2);
  QCOMPARE(chart.segments(0), 1);
  QCOMPARE(chart.points(1), 2);
  QCOMPARE(chart.segments(1), 2);
  QCOMPARE(chart.xAxisMax(), xMax);
  QCOMPARE(chart.chart()->title(), title);
  QLineSeries* end = nullptr;
  for (QAbstractSeries* s : chart.chart()->series())
    if (s->name() == QLatin1String("storm ended")) end = qobject_cast<QLineSeries*>(s);
  QVERIFY(end);
  QCOMPARE(end->points(), QList<QPointF>({{0.02, 0}, {0.02, 950 * 1.1}}));
  chart.reset({Algorithm::FixedWindow}, source);  // a new storm: nothing left over
  QCOMPARE(chart.points(0), 0);
  QCOMPARE(chart.segments(0), 0);
  QCOMPARE(chart.chart()->series().size(), 2);  // the reference line and one line
  QCOMPARE(end->count(), 0);
  QVERIFY(chart.runEndSeconds() < 0);
  chart.reset({Algorithm::FixedWindow}, TtlSource::NoKeys);  // memory backend: no end line, the lanes' span
  chart.setLanesSpan(3.0);
  chart.markRunEnd(57'000);
  QVERIFY(chart.runEndSeconds() < 0);
  QCOMPARE(end->count(), 0);
  QCOMPARE(chart.xAxisMax(), 3.0);
}

QTEST_MAIN(UiPanelsTest)
#include "test_ui_panels.moc"
