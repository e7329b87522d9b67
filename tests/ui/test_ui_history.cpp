// The run history (History tab): each finished storm is kept; Show draws a past
// run again (lanes, Summary, exports), Compare draws it under the latest lane by
// lane, each judged by its own quota. The story it exists for: the replica leak
// preset on memory (400 of 400 pass, 4x), then on redis-lua (100 of 400, 1x),
// side by side. A private redis-server; the window offscreen.

#include <QtTest>

#include <QComboBox>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>

#include "support/redis_test_server.hpp"
#include "ui/charts/chart_lane.hpp"
#include "ui/panels/lanes_panel.hpp"
#include "ui/main_window.hpp"
#include "ui/panels/connection_panel.hpp"
#include "ui/panels/history_panel.hpp"
#include "ui/panels/storm_panel.hpp"
#include "ui/panels/summary_panel.hpp"
#include "ui/presets.hpp"
#include "ui/run_history.hpp"
#include "ui/workers/worker_controller.hpp"

using namespace rl;
using namespace rl::ui;

namespace {
constexpr int kStormTimeoutMs = 60'000;

QString cell(QTableWidget* t, int row, int column) {
  const QTableWidgetItem* item = t->item(row, column);
  return item ? item->text() : QString();
}

// The backend of the first run in the window's run document (what File > Export writes).
QString documentBackend(const MainWindow& w) {
  const QJsonObject doc = QJsonDocument::fromJson(w.runDocumentText()).object();
  return doc[QStringLiteral("runs")].toArray().first().toObject()[QStringLiteral("backend")].toString();
}
}  // namespace

class UiHistoryTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase();
  void replicaLeakOnMemoryBesideRedis();
  void historyKeepsTheLastRuns();

 private:
  void runStorm(MainWindow& window);
  std::unique_ptr<test::RedisTestServer> redis_;
};

void UiHistoryTest::initTestCase() {
  QStandardPaths::setTestModeEnabled(true);
  qRegisterMetaType<StormResult>();
  redis_ = std::make_unique<test::RedisTestServer>();
  RL_REQUIRE_REDIS(*redis_);
}

void UiHistoryTest::runStorm(MainWindow& window) {
  QSignalSpy done(&window, &MainWindow::stormDone);
  QVERIFY(window.startStorm());
  // While it runs, nothing past can be drawn.
  QVERIFY(!window.historyPanel()->latestButton()->isEnabled() && !window.historyPanel()->compareButton()->isEnabled());
  QVERIFY(done.wait(kStormTimeoutMs));
}

void UiHistoryTest::replicaLeakOnMemoryBesideRedis() {
  WorkerController controller;
  MainWindow window(controller);
  window.resize(1400, 900);
  window.show();
  QVERIFY(QTest::qWaitForWindowExposed(&window));
  const QString url = QStringLiteral("redis://127.0.0.1:%1").arg(redis_->endpoint().port);
  QSignalSpy status(&controller, &WorkerController::redisStatus);
  window.connectionPanel()->setUrl(url);
  controller.connectRedis(url);
  QVERIFY(status.wait(10'000));

  HistoryPanel* history = window.historyPanel();
  QCOMPARE(history->table()->rowCount(), 0);
  window.applyPreset(*findPreset(QStringLiteral("replica_leak")));  // memory, 4 replicas, 100 per minute
  auto* backend = window.stormPanel()->findChild<QComboBox*>(QStringLiteral("backend"));
  backend->setCurrentIndex(backend->findData(int(Backend::Memory)));
  runStorm(window);
  if (QTest::currentTestFailed()) return;
  QCOMPARE(history->table()->rowCount(), 1);
  QCOMPARE(cell(history->table(), 0, 0), QStringLiteral("#1"));
  QCOMPARE(cell(history->table(), 0, 2), QStringLiteral("Replica leak (memory 4x)"));
  QCOMPARE(cell(history->table(), 0, 3), QStringLiteral("fixed_window \u00b7 memory 400/400, 4.00x"));
  QCOMPARE(cell(history->table(), 0, 4), QStringLiteral("400"));

  backend->setCurrentIndex(backend->findData(int(Backend::RedisLua)));  // the shared state holds the limit
  runStorm(window);
  if (QTest::currentTestFailed()) return;
  QCOMPARE(history->table()->rowCount(), 2);
  QCOMPARE(cell(history->table(), 0, 0), QStringLiteral("#2"));  // newest on top
  QCOMPARE(cell(history->table(), 0, 3), QStringLiteral("fixed_window \u00b7 redis-lua 100/400, 1.00x"));
  QCOMPARE(history->showing()->text(), QStringLiteral("The lanes show the latest run, #2."));

  // View > Compare with previous run: #2 (redis-lua) above #1 (memory), each judged by its own quota.
  window.compareWithPrevious();
  const QList<LaneChart*> lanes = window.lanesPanel()->lanes();
  QCOMPARE(lanes.size(), 2);
  QCOMPARE(lanes[0]->label(), QStringLiteral("#2 fixed_window \u00b7 redis-lua"));
  QCOMPARE(lanes[1]->label(), QStringLiteral("#1 fixed_window \u00b7 memory"));
  QCOMPARE(lanes[0]->shownPoints().admitted, 100);
  QCOMPARE(lanes[1]->shownPoints().admitted, 400);
  QCOMPARE(lanes[0]->shownPoints().overAdmittedAll, 0);
  QCOMPARE(lanes[1]->shownPoints().overAdmittedAll, 300);  // 4 replicas x 100: 300 over the limit
  QCOMPARE(lanes[1]->overLimitSpans() > 0, true);
  QCOMPARE(lanes[0]->overLimitSpans(), 0);
  QTableWidget* summary = window.summaryPanel()->table();
  QCOMPARE(summary->rowCount(), 2);
  QCOMPARE(cell(summary, 0, 0), QStringLiteral("#2 fixed_window"));
  QCOMPARE(cell(summary, 0, 2), QStringLiteral("100"));
  QCOMPARE(cell(summary, 1, 0), QStringLiteral("#1 fixed_window"));
  QCOMPARE(cell(summary, 1, 2), QStringLiteral("400"));
  QVERIFY2(history->showing()->text().contains(QStringLiteral("latest run #2 above run #1, lane by lane")),
           qPrintable(history->showing()->text()));
  QCOMPARE(documentBackend(window), QStringLiteral("redis-lua"));  // a comparison exports the latest

  // Show #1 again: its lane, its Summary, and the exports write it.
  history->select(1);
  QVERIFY(history->showButton()->isEnabled());
  history->showButton()->click();
  QCOMPARE(window.lanesPanel()->lanes().size(), 1);
  QCOMPARE(window.lanesPanel()->lanes()[0]->shownPoints().admitted, 400);
  QCOMPARE(cell(summary, 0, 2), QStringLiteral("400"));
  QCOMPARE(cell(summary, 0, 6), QStringLiteral("4.00x"));
  QCOMPARE(documentBackend(window), QStringLiteral("memory"));
  QVERIFY(!history->showButton()->isEnabled());  // it is what is shown

  // Latest goes back to #2.
  QVERIFY(history->latestButton()->isEnabled());
  history->latestButton()->click();
  QCOMPARE(window.lanesPanel()->lanes().size(), 1);
  QCOMPARE(window.lanesPanel()->lanes()[0]->shownPoints().admitted, 100);
  QCOMPARE(cell(summary, 0, 2), QStringLiteral("100"));
  QCOMPARE(documentBackend(window), QStringLiteral("redis-lua"));

  // From a past run, a new storm draws live again and becomes #3.
  history->select(1);
  history->showButton()->click();
  runStorm(window);
  if (QTest::currentTestFailed()) return;
  QCOMPARE(history->table()->rowCount(), 3);
  QCOMPARE(window.lanesPanel()->lanes()[0]->shownPoints().admitted, 100);
  QCOMPARE(documentBackend(window), QStringLiteral("redis-lua"));
  QCOMPARE(window.runHistory().latest()->number, 3);
}

void UiHistoryTest::historyKeepsTheLastRuns() {
  RunHistory h;
  QVERIFY(!h.latest() && !h.previous());
  for (int i = 0; i < 12; ++i) h.add(PastRun{});
  QCOMPARE(h.runs().size(), RunHistory::kKept);
  QCOMPARE(h.runs().front().number, 3);  // the two oldest went
  QCOMPARE(h.latest()->number, 12);
  QCOMPARE(h.previous()->number, 11);
  QVERIFY(!h.find(2) && h.find(3));
}

QTEST_MAIN(UiHistoryTest)
#include "test_ui_history.moc"
