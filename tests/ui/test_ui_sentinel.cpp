// The window on Sentinel, offscreen with real widgets: the word `sentinel` in
// the Connection panel starts a private set (1 master, 2 replicas, 3
// Sentinels) on the Redis worker's thread and puts its redis+sentinel:// URL in
// the URL field; the key inspector names the master the Sentinels named and
// both replicas with their lag; a redis-lua storm through it admits exactly its limit; closing
// the window stops every process of the set and removes every dir.

#include <QtTest>

#include <QCheckBox>
#include <QLineEdit>
#include <QPushButton>
#include <QRegularExpression>

#include "support/sentinel_processes.hpp"
#include "ui/main_window.hpp"
#include "ui/panels/connection_panel.hpp"
#include "ui/panels/key_inspector_panel.hpp"
#include "ui/panels/storm_panel.hpp"
#include "ui/workers/worker_controller.hpp"

using namespace rl;
using namespace rl::ui;

class UiSentinelTest : public QObject {
  Q_OBJECT
 private slots:
  void sentinelWordStartsAPrivateSetAndClosingRemovesIt();
};

void UiSentinelTest::sentinelWordStartsAPrivateSetAndClosingRemovesIt() {
  QStandardPaths::setTestModeEnabled(true);
  auto controller = std::make_unique<WorkerController>();
  auto window = std::make_unique<MainWindow>(*controller);
  window->show();
  QVERIFY(QTest::qWaitForWindowExposed(window.get()));
  QSignalSpy status(controller.get(), &WorkerController::redisStatus);
  ConnectionPanel* panel = window->connectionPanel();
  QVERIFY(panel->findChild<QLineEdit*>(QStringLiteral("redisUrl"))->toolTip().contains(QStringLiteral("sentinel:")));
  panel->setUrl(QStringLiteral("sentinel"));
  panel->findChild<QPushButton*>(QStringLiteral("connectRedis"))->click();
  QTRY_VERIFY_WITH_TIMEOUT(!status.isEmpty() && !status.back().front().value<RedisStatus>().starting, 60'000);
  QVERIFY2(status.front().front().value<RedisStatus>().error.startsWith(QStringLiteral("starting a private Sentinel set")),
           qPrintable(status.front().front().value<RedisStatus>().error));
  const QString url = panel->url();
  const auto m = QRegularExpression(QStringLiteral(
                     "^redis\\+sentinel://127\\.0\\.0\\.1:(\\d+),127\\.0\\.0\\.1:(\\d+),127\\.0\\.0\\.1:(\\d+)/ratelab/0$"))
                     .match(url);
  QVERIFY2(m.hasMatch(), qPrintable(url));
  QVERIFY2(panel->statusText().startsWith(QStringLiteral("connected")), qPrintable(panel->statusText()));
  const test::SentinelProcesses procs =
      test::sentinelProcesses({m.captured(1).toInt(), m.captured(2).toInt(), m.captured(3).toInt()});
  QVERIFY2(procs.error.empty(), procs.error.c_str());
  QCOMPARE(procs.pids.size(), std::size_t{6});

  // The inspector's replication line: the master the Sentinels name, then both replicas they list.
  const int sentinel = m.captured(1).toInt();
  auto named = test::detail::askPort(sentinel, {"SENTINEL", "get-master-addr-by-name", "ratelab"});
  auto replicaPorts = test::sentinelReplicaPorts(sentinel);
  QVERIFY(named && replicaPorts);
  QCOMPARE(replicaPorts->size(), std::size_t{2});
  KeyInspectorPanel* inspector = window->keyInspectorPanel();
  inspector->autoRefresh()->setChecked(true);  // rescans every second until both replicas are online
  auto namesAll = [&] {
    const QString line = inspector->replicationText();
    bool all = line.startsWith(QStringLiteral("master 127.0.0.1:%1 (named by the Sentinels for service ratelab); replicas: ")
                                   .arg(*(*named)[1].toInt()));
    for (int port : *replicaPorts) all = all && line.contains(QStringLiteral("127.0.0.1:%1 online, lag ").arg(port));
    return all;
  };
  QTRY_VERIFY2_WITH_TIMEOUT(namesAll(), qPrintable(inspector->replicationText()), 20'000);
  qInfo("%s", qPrintable(inspector->replicationText()));
  inspector->autoRefresh()->setChecked(false);

  StormSpec spec;
  spec.algorithms = {Algorithm::SlidingLog};
  spec.backend = Backend::RedisLua;
  spec.quota = Quota::perWindow(10, 60 * kSecond);
  spec.requests = 25;
  window->stormPanel()->setSpec(spec);
  QSignalSpy done(window.get(), &MainWindow::stormDone);
  QVERIFY2(window->startStorm(), qPrintable(window->stormPanel()->errorText()));
  QVERIFY(done.wait(60'000));
  const StormResult& result = controller->lastResult();
  QCOMPARE(result.algorithms.size(), std::size_t{1});
  QCOMPARE(result.algorithms[0].admitted, std::int64_t{10});
  QCOMPARE(result.algorithms[0].errors, std::int64_t{0});
  QCOMPARE(result.algorithms[0].offered, std::int64_t{25});

  window.reset();
  controller.reset();  // the Redis worker's thread ends: the set stops, its dirs go
  QVERIFY2(procs.allGone(), "closing the window stops every process of the set and removes its dirs");
}

QTEST_MAIN(UiSentinelTest)
#include "test_ui_sentinel.moc"
