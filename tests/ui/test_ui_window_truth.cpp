// The window tells the truth in the small things: loading a preset clears the
// previous storm's lanes and Summary, a running storm's Summary shows its own
// counts live, the tab that matters is raised, and Space in a number field
// starts the storm instead of blanking the field; the sliders stop at round
// values and a storm tuned live saves as a scenario that replays the tuning.

#include <QtTest>

#include <QCheckBox>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QSettings>
#include <QSlider>
#include <QSpinBox>
#include <QTableWidget>

#include "support/cli_process.hpp"
#include "ui/charts/chart_lane.hpp"
#include "ui/panels/lanes_panel.hpp"
#include "ui/main_window.hpp"
#include "ui/panels/labeled_slider.hpp"
#include "ui/panels/race_lab_panel.hpp"
#include "ui/panels/storm_panel.hpp"
#include "ui/panels/summary_panel.hpp"
#include "ui/presets.hpp"
#include "ui/workers/worker_controller.hpp"

using namespace rl;
using namespace rl::ui;

namespace {
// A real-clock storm of 3 s on memory: one client at 200/s, `limit` per second.
StormSpec threeSecondStorm(Algorithm algorithm, std::int64_t limit) {
  StormSpec spec;
  spec.backend = Backend::Memory;
  spec.algorithms = {algorithm};
  spec.quota = Quota::perWindow(limit, kSecond);
  spec.clock = ClockMode::Client;
  spec.pattern = Pattern::Constant;
  spec.rate = 200;
  spec.requests = 600;
  return spec;
}
}  // namespace

class UiWindowTruthTest : public QObject {
  Q_OBJECT
 private slots:
  void init();
  void cleanup();
  void presetClearsTheLastStorm();
  void summaryFollowsTheRunLive();
  void presetRaisesItsTab();
  void spaceInANumberFieldStartsTheStorm();
  void hintNamesWhatAStormWouldFireAt();
  void liveTuningIsSavedInTheScenario();

 private:
  std::unique_ptr<WorkerController> controller_;
  std::unique_ptr<MainWindow> window_;
};

void UiWindowTruthTest::init() {
  QStandardPaths::setTestModeEnabled(true);
  QSettings().clear();  // the default layout: Summary, Race lab, inspector and Tune tabbed
  controller_ = std::make_unique<WorkerController>();
  window_ = std::make_unique<MainWindow>(*controller_);
  window_->resize(1400, 900);
  window_->show();
  QVERIFY(QTest::qWaitForWindowExposed(window_.get()));
}

void UiWindowTruthTest::cleanup() {
  window_.reset();
  controller_.reset();
}

void UiWindowTruthTest::presetClearsTheLastStorm() {
  window_->applyPreset(*findPreset(QStringLiteral("burst_tolerance")));  // memory, two algorithms
  QSignalSpy done(window_.get(), &MainWindow::stormDone);
  QVERIFY(window_->startStorm());
  QVERIFY(done.wait(30'000));
  QCOMPARE(window_->summaryPanel()->table()->rowCount(), 2);
  window_->applyPreset(*findPreset(QStringLiteral("boundary")));  // six algorithms, not run yet
  QCOMPARE(window_->summaryPanel()->table()->rowCount(), 0);
  QVERIFY2(window_->summaryPanel()->caption()->text().contains(QStringLiteral("press Space")),
           qPrintable(window_->summaryPanel()->caption()->text()));
  const auto& lanes = window_->lanesPanel()->lanes();
  QCOMPARE(lanes.size(), 6);
  QCOMPARE(lanes[0]->label(), QStringLiteral("fixed_window"));
  QCOMPARE(lanes[0]->admittedPoints(), 0);
}

void UiWindowTruthTest::summaryFollowsTheRunLive() {
  // A real-clock storm of 3 s: while it runs, the Summary shows its rows with counts
  // that grow, and nothing of a previous run.
  window_->stormPanel()->setSpec(threeSecondStorm(Algorithm::SlidingLog, 50));
  QSignalSpy done(window_.get(), &MainWindow::stormDone);
  QVERIFY(window_->startStorm());
  QTableWidget* t = window_->summaryPanel()->table();
  QTRY_VERIFY_WITH_TIMEOUT(t->rowCount() == 1 && t->item(0, 2) && t->item(0, 2)->text().toInt() > 0, 10'000);
  QVERIFY2(window_->summaryPanel()->caption()->text().startsWith(QStringLiteral("Running")),
           qPrintable(window_->summaryPanel()->caption()->text()));
  QCOMPARE(t->item(0, 6)->text(), QStringLiteral("\u2026"));  // the overshoot comes at the end
  const int early = t->item(0, 1)->text().toInt();
  QTRY_VERIFY_WITH_TIMEOUT(t->item(0, 1)->text().toInt() > early, 10'000);
  QVERIFY(done.wait(30'000));
  const int offered = t->item(0, 1)->text().toInt();
  QVERIFY2(offered > 500, qPrintable(QString::number(offered)));  // the final row, about 600 offered
  QVERIFY(window_->summaryPanel()->caption()->text().startsWith(QStringLiteral("Run took")));
}

void UiWindowTruthTest::presetRaisesItsTab() {
  // Summary, Race lab, Key inspector and Tune share one tab group: the raised one is the
  // one on screen (Qt keeps the others "visible", covered).
  const auto shown = [this](const char* dock) {
    return !window_->findChild<QDockWidget*>(QLatin1String(dock))->widget()->visibleRegion().isEmpty();
  };
  window_->applyPreset(*findPreset(QStringLiteral("race")));  // shows the Race lab
  QTRY_VERIFY(shown("raceDock"));
  QVERIFY(!shown("summaryDock"));
  window_->applyPreset(*findPreset(QStringLiteral("boundary")));
  QTRY_VERIFY(shown("summaryDock"));  // the Summary is on top again
  QVERIFY(!shown("raceDock"));
}

void UiWindowTruthTest::spaceInANumberFieldStartsTheStorm() {
  window_->applyPreset(*findPreset(QStringLiteral("burst_tolerance")));
  QSpinBox* box = window_->stormPanel()->findChildren<QSpinBox*>().first();
  QVERIFY(box->isEnabled());
  const int before = box->value();
  window_->activateWindow();
  box->setFocus();
  QTRY_VERIFY(box->hasFocus());
  QSignalSpy done(window_.get(), &MainWindow::stormDone);
  QTest::keyClick(box, Qt::Key_Space);
  QVERIFY(done.wait(30'000));  // the storm ran
  QCOMPARE(box->value(), before);
  QCOMPARE(box->text(), QString::number(before));  // not blanked
}

void UiWindowTruthTest::hintNamesWhatAStormWouldFireAt() {
  // Before any storm the lanes' hint says what Space fires at, and follows the form.
  QLabel* hint = window_->lanesPanel()->hint();
  for (const char* name : {"sliding_log", "gcra"})
    window_->stormPanel()->findChild<QCheckBox*>(QLatin1String(name))->setChecked(true);
  QVERIFY2(hint->text().contains(QStringLiteral("sliding_log")) && hint->text().contains(QStringLiteral("gcra")),
           qPrintable(hint->text()));
  QVERIFY(hint->text().contains(QStringLiteral("the in-memory store")));
  window_->stormPanel()->findChild<QCheckBox*>(QStringLiteral("gcra"))->setChecked(false);
  QVERIFY2(!hint->text().contains(QStringLiteral("gcra")), qPrintable(hint->text()));
}

void UiWindowTruthTest::liveTuningIsSavedInTheScenario() {
  // A storm tuned live (one slider step: limit 20 -> 25, a round stop) saves as the
  // quota it started with plus the change at the time it was made; ratelab-cli
  // runs that file with the same schedule.
  window_->stormPanel()->setSpec(threeSecondStorm(Algorithm::TokenBucket, 20));
  auto* limitBox = window_->stormPanel()->findChild<QDoubleSpinBox*>(QStringLiteral("limit"));
  auto* limit = qobject_cast<LabeledSlider*>(limitBox->parentWidget());
  QVERIFY(limit);
  QSignalSpy done(window_.get(), &MainWindow::stormDone);
  QSignalSpy tuned(controller_.get(), &WorkerController::quotaTuned);
  QVERIFY(window_->startStorm());
  QTableWidget* t = window_->summaryPanel()->table();
  QTRY_VERIFY_WITH_TIMEOUT(t->rowCount() == 1 && t->item(0, 1) && t->item(0, 1)->text().toInt() > 100, 10'000);
  limit->slider()->triggerAction(QAbstractSlider::SliderSingleStepAdd);
  QCOMPARE(limitBox->value(), 25.0);  // the next round stop, not 20 -> 2377
  QTRY_COMPARE(tuned.count(), 1);
  QVERIFY(done.wait(30'000));
  QTemporaryDir dir;
  const QString path = dir.filePath(QStringLiteral("tuned.json"));
  QVERIFY(window_->saveScenario(path));
  QFile f(path);
  QVERIFY(f.open(QIODevice::ReadOnly));
  const QJsonObject saved = QJsonDocument::fromJson(f.readAll()).object();
  QCOMPARE(saved["limit"].toInt(), 20);  // the quota it started with
  const QJsonArray changes = saved["quota_changes"].toArray();
  QCOMPARE(changes.size(), 1);
  const QStringList parts = changes[0].toString().split(':');
  QCOMPARE(parts.size(), 2);
  const int atMs = parts[0].toInt();
  QVERIFY2(atMs > 400 && atMs < 3000, qPrintable(changes[0].toString()));  // after > 100 of 200/s were offered
  QVERIFY2(parts[1].startsWith(QStringLiteral("limit=25,window_ms=1000")), qPrintable(parts[1]));
  const auto cli = test::runCli({"run", "--scenario", path, "--json"});
  QCOMPARE(cli.exitCode, 0);
  const QJsonObject run = cli.json()["runs"].toArray()[0].toObject();
  QCOMPARE(run["limit"].toInt(), 20);
  QCOMPARE(run["quota_changes"].toArray(), changes);
}

QTEST_MAIN(UiWindowTruthTest)
#include "test_ui_window_truth.moc"
