// The window's parts for other libraries' limiters: the inspector's Library
// column and detail pane (a real scan of keys written by RateLab and shaped like
// rate-limiter-flexible's, through the controller's Redis worker), and the
// storm panel's "Custom script" backend with its templates, and a script storm
// in the window with RateLab's algorithm beside it.

#include <QtTest>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <QCheckBox>
#include <QComboBox>
#include <QJsonArray>
#include <QJsonObject>
#include <QTableWidget>
#include <QLineEdit>
#include <QTreeWidget>

#include "support/redis_test_server.hpp"
#include "ui/charts/chart_lane.hpp"
#include "ui/panels/lanes_panel.hpp"
#include "ui/main_window.hpp"
#include "ui/panels/connection_panel.hpp"
#include "ui/panels/key_inspector_panel.hpp"
#include "ui/panels/summary_panel.hpp"
#include "ui/workers/worker_controller.hpp"
#include "ui/panels/storm_panel.hpp"

using namespace rl;
using namespace rl::ui;

class ForeignUiTest : public QObject {
  Q_OBJECT
 private slots:
  void inspectorNamesTheLibraryAndExplains();
  void customScriptBackendInTheStormPanel();
  void scriptStandsBesideTheBuiltIns();
};

void ForeignUiTest::inspectorNamesTheLibraryAndExplains() {
  test::RedisTestServer redis;
  RL_REQUIRE_REDIS(redis);
  auto conn = redis.connect();
  QVERIFY(conn);
  QVERIFY(conn->command({"SET", "rlflx:alice", "7", "PX", "40000"}));
  QVERIFY(conn->command({"SET", "rlflx:note", "hello", "PX", "40000"}));
  WorkerController controller;
  controller.connectRedis(QString("redis://127.0.0.1:%1").arg(redis.endpoint().port));
  KeyInspectorPanel panel(controller);
  connect(&panel, &KeyInspectorPanel::scanRequested, &controller, &WorkerController::scanKeys);
  connect(&controller, &WorkerController::keysReady, &panel, &KeyInspectorPanel::showPage);
  QSignalSpy pages(&controller, &WorkerController::keysReady);
  panel.setPrefix("rlflx:");
  panel.assume()->setText("limit=10");
  panel.refresh();
  QVERIFY(pages.wait(10'000));
  QCOMPARE(panel.keyCount(), 2);
  QTreeWidgetItem* counter = nullptr;
  QTreeWidgetItem* other = nullptr;
  for (int i = 0; i < panel.tree()->topLevelItemCount(); ++i) {
    QTreeWidgetItem* it = panel.tree()->topLevelItem(i);
    (it->text(0) == "rlflx:alice" ? counter : other) = it;
  }
  QVERIFY(counter && other);
  QCOMPARE(panel.tree()->headerItem()->text(3), QString("Library"));
  QCOMPARE(counter->text(3), QString("rate-limiter-flexible"));
  QCOMPARE(other->text(3), QString("-"));  // not a counter: type, PTTL and value only
  counter->setSelected(true);
  const QString detail = panel.detailText();
  QVERIFY2(detail.startsWith("rate-limiter-flexible · fixed-window\nrate-limiter-flexible counter: 7 of 10 used, resets in"),
           qPrintable(detail));
  QVERIFY2(detail.contains("limit 10 · used 7 · resets in "), qPrintable(detail));
  QVERIFY2(detail.contains("Raw (string, TTL ") && detail.contains(" s):\n7\n\nRead at "), qPrintable(detail));
  counter->setSelected(false);
  other->setSelected(true);
  QVERIFY(panel.detailText().startsWith("Not a limiter key RateLab recognises"));
}

void ForeignUiTest::customScriptBackendInTheStormPanel() {
  StormPanel panel;
  auto* backend = panel.findChild<QComboBox*>("backend");
  auto* file = panel.findChild<QLineEdit*>("scriptFile");
  QVERIFY(backend && file);
  const int index = backend->findData(static_cast<int>(Backend::RedisScript));
  QCOMPARE(backend->itemText(index), QString("Custom script (redis-script)"));
  backend->setCurrentIndex(index);
  auto missing = panel.spec();
  QVERIFY(!missing);
  QCOMPARE(QString::fromStdString(missing.error().message),
           QString("Script is required by Backend redis-script: allowed a readable Lua file"));
  file->setText(RATELAB_SOURCE_DIR "/resources/examples/seed_token_bucket.lua");
  panel.findChild<QLineEdit*>("scriptArgv")->setText("{limit} {refill_rate} {now_s} {cost}");
  panel.findChild<QLineEdit*>("scriptReply")->setText("allowed,tokens");
  auto s = panel.spec();
  QVERIFY2(s, s ? "" : s.error().message.c_str());
  QCOMPARE(s->backend, Backend::RedisScript);
  QCOMPARE(QString::fromStdString(s->script.keys), QString("{prefix}{client}"));
  QCOMPARE(QString::fromStdString(s->script.reply), QString("allowed,tokens"));
  StormSpec back = *s;
  back.script.argv = "{now_ms}";
  panel.setSpec(back);
  QCOMPARE(panel.findChild<QLineEdit*>("scriptArgv")->text(), QString("{now_ms}"));
}

void ForeignUiTest::scriptStandsBesideTheBuiltIns() {
  // The seed scenario in the window: the team's script in one lane, RateLab's
  // token_bucket on redis-lua beside it, same storm, both named in the lanes
  // and the summary. Both admit 109 of 200 (the CLI's figure for this file).
  test::RedisTestServer redis;
  RL_REQUIRE_REDIS(redis);
  WorkerController controller;
  MainWindow window(controller);
  window.resize(1366, 768);
  window.show();
  QVERIFY(QTest::qWaitForWindowExposed(&window));
  const QString url = QStringLiteral("redis://127.0.0.1:%1").arg(redis.endpoint().port);
  QSignalSpy status(&controller, &WorkerController::redisStatus);
  window.connectionPanel()->setUrl(url);
  controller.connectRedis(url);
  QVERIFY(status.wait(10'000));
  auto loaded = window.loadScenario(RATELAB_SOURCE_DIR "/resources/scenarios/seed_vs_token_bucket.json");
  QVERIFY2(loaded, loaded ? "" : loaded.error().message.c_str());
  QVERIFY(window.stormPanel()->findChild<QCheckBox*>("scriptBeside")->isChecked());
  QSignalSpy done(&window, &MainWindow::stormDone);
  QVERIFY(window.startStorm());
  QVERIFY(done.wait(60'000));
  const auto& lanes = window.lanesPanel()->lanes();
  QCOMPARE(lanes.size(), 2);
  QCOMPARE(lanes[0]->label(), QString("seed_token_bucket.lua"));
  QCOMPARE(lanes[1]->label(), QString::fromUtf8("token_bucket \u00b7 redis-lua"));
  QTableWidget* t = window.summaryPanel()->table();
  QCOMPARE(t->rowCount(), 2);
  QCOMPARE(t->item(0, 0)->text(), QString("seed_token_bucket.lua"));
  QCOMPARE(t->item(0, 2)->text(), QString("109"));
  QCOMPARE(t->item(1, 0)->text(), QString::fromUtf8("token_bucket \u00b7 redis-lua"));
  QCOMPARE(t->item(1, 2)->text(), QString("109"));
  const QJsonArray runs = QJsonDocument::fromJson(window.runDocumentText()).object()["runs"].toArray();
  QCOMPARE(runs[0].toObject()["backend"].toString(), QString("redis-script"));
  QCOMPARE(runs[0].toObject()["script"].toString(), QString("seed_token_bucket.lua"));
  QCOMPARE(runs[1].toObject()["backend"].toString(), QString("redis-lua"));
  QCOMPARE(controller.model().size(), std::size_t{400});
}

QTEST_MAIN(ForeignUiTest)
#include "test_foreign_ui.moc"
