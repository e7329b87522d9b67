// One definition of over limit, shown the same in the window and the CLI
// (docs/over-limit.md): the burst-tolerance preset's token bucket is not over
// its limit; a leaking 20-client storm is judged per client, the lanes show the
// worst client and say so, a picked client is drawn on its own, and the
// Summary's figures equal `ratelab-cli run --json` for the same storm.

#include <QtTest>

#include <QLabel>
#include <QSpinBox>
#include <QTableWidget>

#include "support/cli_process.hpp"
#include "ui/charts/chart_lane.hpp"
#include "ui/panels/lanes_panel.hpp"
#include "ui/main_window.hpp"
#include "ui/panels/storm_panel.hpp"
#include "ui/panels/summary_panel.hpp"
#include "ui/presets.hpp"
#include "ui/workers/worker_controller.hpp"

using namespace rl;
using namespace rl::ui;

namespace {
constexpr int kStormTimeoutMs = 60'000;

QJsonObject runOf(const test::CliRun& c, const QString& algorithm) {
  for (const QJsonValue v : c.json()["runs"].toArray())
    if (v.toObject()["algorithm"].toString() == algorithm) return v.toObject();
  return {};
}

int rowOf(QTableWidget* t, const QString& algorithm) {
  for (int r = 0; r < t->rowCount(); ++r)
    if (t->item(r, 0) && t->item(r, 0)->text() == algorithm) return r;
  return -1;
}
}  // namespace

class UiOverLimitTest : public QObject {
  Q_OBJECT
 private slots:
  void init();
  void cleanup();
  void burstTolerancePresetIsNotOverItsLimit();
  void leakIsJudgedPerClientAndTheLanesSayWhich();

 private:
  void runStorm();
  std::unique_ptr<WorkerController> controller_;
  std::unique_ptr<MainWindow> window_;
};

void UiOverLimitTest::init() {
  QStandardPaths::setTestModeEnabled(true);
  controller_ = std::make_unique<WorkerController>();
  window_ = std::make_unique<MainWindow>(*controller_);
  window_->resize(1400, 900);
  window_->show();
  QVERIFY(QTest::qWaitForWindowExposed(window_.get()));
}

void UiOverLimitTest::cleanup() {
  window_.reset();
  controller_.reset();
}

void UiOverLimitTest::runStorm() {
  QSignalSpy done(window_.get(), &MainWindow::stormDone);
  QVERIFY(window_->startStorm());
  QVERIFY(done.wait(kStormTimeoutMs));
}

void UiOverLimitTest::burstTolerancePresetIsNotOverItsLimit() {
  // A bucket of 10 refilling 10/s admits 19 in its worst second: its promise, not a leak.
  const auto* preset = findPreset(QStringLiteral("burst_tolerance"));
  QVERIFY(preset);
  window_->applyPreset(*preset);
  runStorm();
  if (QTest::currentTestFailed()) return;
  const test::CliRun c = test::runCli({"run", "--scenario", "resources/scenarios/burst_tolerance.json", "--json"});
  QVERIFY2(c.exitCode == 0, c.err.constData());
  QTableWidget* t = window_->summaryPanel()->table();
  const int row = rowOf(t, QStringLiteral("token_bucket"));
  QVERIFY(row >= 0);
  QCOMPARE(t->item(row, 5)->text(), QStringLiteral("19"));
  QCOMPARE(t->item(row, 6)->text(), QString::number(runOf(c, "token_bucket")["overshoot"].toDouble(), 'f', 2) + "x");
  QVERIFY(runOf(c, "token_bucket")["overshoot"].toDouble() <= 1.0);
  QVERIFY(t->item(row, 6)->toolTip().contains(QStringLiteral("at most 10 + 10/s x T in any T")));
  QVERIFY(!window_->summaryPanel()->caption()->text().contains(QStringLiteral("over its limit")));
  for (LaneChart* lane : window_->lanesPanel()->lanes()) QCOMPARE(lane->overLimitSpans(), 0);
}

void UiOverLimitTest::leakIsJudgedPerClientAndTheLanesSayWhich() {
  // 20 clients, 30 requests each, round-robin over 3 replicas that each keep their own
  // memory limiter of 5 per minute: each client gets 15 admitted, 10 of them over.
  StormSpec spec;
  spec.backend = Backend::Memory;
  spec.algorithms = {Algorithm::FixedWindow};
  spec.quota = Quota::perWindow(5, Micros{60'000'000});
  spec.clients = 20;
  spec.replicas = 3;
  spec.requests = 600;
  window_->stormPanel()->setSpec(spec);
  runStorm();
  if (QTest::currentTestFailed()) return;
  const test::CliRun c = test::runCli({"run", "--backend", "memory", "--algorithm", "fixed_window", "--limit", "5",
                                       "--window-ms", "60000", "--clients", "20", "--replicas", "3", "--requests",
                                       "600", "--json"});
  QVERIFY2(c.exitCode == 0, c.err.constData());
  const QJsonObject cli = runOf(c, "fixed_window")["over_limit"].toObject();
  QCOMPARE(cli["admitted"].toInt(), 200);
  const int worst = cli["worst_client"].toInt();
  const QString caption = window_->summaryPanel()->caption()->text();
  QVERIFY2(caption.contains(QStringLiteral("fixed_window: 200 admission(s) over its limit (at most 5 in each aligned "
                                           "60 s window); the worst: client %1 at").arg(worst)),
           qPrintable(caption));
  QCOMPARE(window_->summaryPanel()->table()->item(0, 6)->text(), QStringLiteral("3.00x"));
  LaneChart* lane = window_->lanesPanel()->lanes().at(0);
  const QString title = lane->chart()->title();
  QVERIFY2(title.contains(QStringLiteral("client %1 (worst of 20)").arg(worst)), qPrintable(title));
  QVERIFY2(title.contains(QStringLiteral("admitted 15  denied 15")), qPrintable(title));  // that client's own
  QVERIFY2(title.contains(QStringLiteral("over limit 10 (all 200)")), qPrintable(title));
  QVERIFY(lane->overLimitSpans() >= 1);
  // The user picks client 3: drawn on its own.
  QSpinBox* picker = window_->lanesPanel()->clientPicker();
  QVERIFY(picker->isVisibleTo(window_.get()));
  QCOMPARE(picker->maximum(), 19);
  picker->setValue(3);
  QVERIFY2(lane->chart()->title().contains(QStringLiteral("client 3 of 20")), qPrintable(lane->chart()->title()));
  QVERIFY(lane->chart()->title().contains(QStringLiteral("admitted 15  denied 15")));
}

QTEST_MAIN(UiOverLimitTest)
#include "test_ui_over_limit.moc"
