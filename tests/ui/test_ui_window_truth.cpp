// The window tells the truth in the small things: loading a preset clears the
// previous storm's lanes and Summary, a running storm's Summary shows its own
// counts live, the tab that matters is raised, and Space in a number field
// starts the storm instead of blanking the field.

#include <QtTest>

#include <QCheckBox>
#include <QDockWidget>
#include <QLabel>
#include <QSettings>
#include <QSpinBox>
#include <QTableWidget>

#include "ui/charts/chart_lane.hpp"
#include "ui/charts/lanes_panel.hpp"
#include "ui/main_window.hpp"
#include "ui/panels/race_lab_panel.hpp"
#include "ui/panels/storm_panel.hpp"
#include "ui/panels/summary_panel.hpp"
#include "ui/presets.hpp"
#include "ui/workers/storm_controller.hpp"

using namespace rl;
using namespace rl::ui;

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

 private:
  std::unique_ptr<StormController> controller_;
  std::unique_ptr<MainWindow> window_;
};

void UiWindowTruthTest::init() {
  QStandardPaths::setTestModeEnabled(true);
  QSettings().clear();  // the default layout: Summary, Race lab, inspector and Tune tabbed
  controller_ = std::make_unique<StormController>();
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
  StormSpec spec;
  spec.backend = Backend::Memory;
  spec.algorithms = {Algorithm::SlidingLog};
  spec.quota = Quota::perWindow(50, kSecond);
  spec.clock = ClockMode::Client;
  spec.pattern = Pattern::Constant;
  spec.rate = 200;
  spec.requests = 600;  // 3 s
  window_->stormPanel()->setSpec(spec);
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

QTEST_MAIN(UiWindowTruthTest)
#include "test_ui_window_truth.moc"
