// The window's "Failover loses writes" preset (resources/scenarios/failover.json):
// the storm runs without WAIT, then with WAIT 1, each on a fresh private Redis
// Cluster of 3 masters + 3 replicas the window starts and stops itself. The
// replica of the key's master is cut off, the master killed, the replica
// promoted. Without WAIT the lane over-admits by exactly the writes the
// failover lost; with WAIT 1 nothing is lost and the limit holds.

#include <QtTest>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <QJsonArray>
#include <QJsonObject>
#include <QLabel>
#include <QTableWidget>

#include "ui/charts/chart_lane.hpp"
#include "ui/panels/lanes_panel.hpp"
#include "ui/charts/ttl_chart.hpp"
#include "ui/panels/connection_panel.hpp"
#include "ui/panels/storm_panel.hpp"
#include "ui/main_window.hpp"
#include "ui/panels/summary_panel.hpp"
#include "ui/presets.hpp"
#include "ui/workers/worker_controller.hpp"

using namespace rl;
using namespace rl::ui;

class UiFailoverTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() { qRegisterMetaType<StormResult>(); }
  void presetShowsLostWritesBesideWait();
};

void UiFailoverTest::presetShowsLostWritesBesideWait() {
  WorkerController controller;
  MainWindow window(controller);
  window.show();
  const Preset* preset = findPreset(QStringLiteral("failover"));
  QVERIFY(preset);
  window.applyPreset(*preset);
  // The preset fails closed in its own runs; the Connection panel's choice stays for later storms.
  QCOMPARE(window.connectionPanel()->policy(), FailurePolicy::Open);
  QSignalSpy done(&window, &MainWindow::stormDone);
  QSignalSpy messages(&controller, &WorkerController::message);
  QVERIFY(window.startStorm());  // no Redis in the Connection panel: the failover makes its own clusters
  QCOMPARE(controller.spec().resilience.onRedisError, FailurePolicy::Closed);
  // While run 1 sends, the second lane says it waits for it (not "admitted 0 denied 0").
  QTRY_VERIFY_WITH_TIMEOUT(window.lanesPanel()->lanes()[0]->admittedPoints() > 0, 60'000);
  QCOMPARE(window.lanesPanel()->lanes()[1]->title(),
           QStringLiteral("sliding_log \u00b7 redis-lua \u00b7 WAIT 1   waiting for run 1 to finish (this run gets a fresh private Redis "
                          "Cluster)"));
  // The PTTL chart samples the key on run 1's own cluster.
  QTRY_VERIFY_WITH_TIMEOUT(window.lanesPanel()->ttlChart()->points(0) > 0, 30'000);
  QVERIFY(done.wait(90'000));

  const StormResult& result = controller.lastResult();
  QVERIFY(!result.cancelled);
  QCOMPARE(result.algorithms.size(), std::size_t{2});
  const std::int64_t limit = preset->spec.quota.limit;  // 300 per minute: the storm outlives no window
  const AlgorithmResult& plain = result.algorithms[0];
  const AlgorithmResult& waited = result.algorithms[1];
  QCOMPARE(plain.label, QStringLiteral("sliding_log \u00b7 no WAIT"));
  QCOMPARE(waited.label, QStringLiteral("sliding_log \u00b7 WAIT 1"));
  QVERIFY(plain.failover && waited.failover);
  qInfo("no WAIT: lost %lld, admitted %lld, errors %lld, unserved %lld ms; WAIT 1: lost %lld, admitted %lld, "
        "errors %lld, unserved %lld ms",
        (long long)plain.failover->lostWrites, (long long)plain.admitted, (long long)plain.failover->errorsDuringFailover,
        (long long)plain.failover->unserved.count() / 1000, (long long)waited.failover->lostWrites, (long long)waited.admitted,
        (long long)waited.failover->errorsDuringFailover, (long long)waited.failover->unserved.count() / 1000);

  // Without WAIT: the writes between the break and the kill are lost, and the
  // limiter admits exactly that many more than its limit.
  QVERIFY2(plain.failover->lostWrites > 0, "writes between the break and the kill must be lost");
  QCOMPARE(plain.admitted, limit + plain.failover->lostWrites);
  QCOMPARE(plain.maxAdmittedInWindow, plain.admitted);
  QVERIFY(plain.overshoot > 1.0);
  QVERIFY(plain.failover->errorsDuringFailover > 0);  // kill to promotion: fail-closed
  QVERIFY(plain.failover->unserved >= Micros{1'000} && plain.failover->unserved < Micros{2'000'000});  // whole ms: 1 to 1999
  // With WAIT 1 nothing is lost; a write WAIT timed out on before the kill may still have
  // reached the replica (lost < 0), never more of them than failed.
  QVERIFY(waited.failover->lostWrites <= 0);
  QVERIFY(-waited.failover->lostWrites <= waited.failover->errorsBeforeKill);
  QVERIFY(waited.admitted <= limit);
  QVERIFY(waited.failover->errorsDuringFailover > 0);
  // Each run was on its own cluster.
  QVERIFY(plain.failover->master != waited.failover->master || plain.failover->promoted != waited.failover->promoted);

  // Both lanes were drawn, named for their WAIT setting; the summary says what was lost.
  const QList<LaneChart*> lanes = window.lanesPanel()->lanes();
  QCOMPARE(lanes.size(), 2);
  QVERIFY(lanes[0]->label().startsWith(QStringLiteral("sliding_log \u00b7 no WAIT")));
  QVERIFY(lanes[0]->admittedPoints() > 0 && lanes[1]->admittedPoints() > 0);
  const QString caption = window.summaryPanel()->findChild<QLabel*>()->text();
  QVERIFY2(caption.contains(QStringLiteral("sliding_log \u00b7 no WAIT: %1 admitted writes lost").arg(plain.failover->lostWrites)),
           qPrintable(caption));
  // The same algorithm's two runs in consistent words: WAIT 1 lost nothing, counted, not "not countable".
  QVERIFY2(caption.contains(QStringLiteral("sliding_log \u00b7 WAIT 1: no admitted write lost (%1 admitted before the kill, "
                                           "the promoted replica held ")
                                .arg(waited.failover->admittedBeforeKill)),
           qPrintable(caption));
  QVERIFY2(!caption.contains(QStringLiteral("not countable")), qPrintable(caption));
  QCOMPARE(caption.count(QStringLiteral(" decided by fail-closed; ")), 2);
  QCOMPARE(lanes[1]->title().contains(QStringLiteral("waiting")), false);
  // Both runs drew their key's PTTL, each on its own cluster, on the lanes' clock (s since the run started).
  TtlChart* ttl = window.lanesPanel()->ttlChart();
  QVERIFY(ttl->points(0) > 0 && ttl->points(1) > 0);
  QVERIFY2(controller.runWallUs() > 3'500'000 && controller.runWallUs() < 6'000'000,
           qPrintable(QString::number(controller.runWallUs())));
  const QJsonArray runs = QJsonDocument::fromJson(window.runDocumentText()).object()[QStringLiteral("runs")].toArray();
  QCOMPARE(runs[0].toObject()[QStringLiteral("failover")].toObject()[QStringLiteral("lost_writes")].toInteger(),
           plain.failover->lostWrites);
  QCOMPARE(runs[1].toObject()[QStringLiteral("failover")].toObject()[QStringLiteral("wait_replicas")].toInt(), 1);
  bool toldCluster = false;
  for (const QList<QVariant>& m : messages) toldCluster = toldCluster || m[0].toString().contains(QStringLiteral("private Redis Cluster"));
  QVERIFY(toldCluster);
  // A later storm uses the Connection panel's policy again.
  StormSpec later;
  later.algorithms = {Algorithm::FixedWindow};
  later.quota = Quota::perWindow(5, kSecond);
  later.requests = 10;
  later.clock = ClockMode::Virtual;
  window.stormPanel()->setSpec(later);
  QVERIFY(window.startStorm());
  QCOMPARE(controller.spec().resilience.onRedisError, FailurePolicy::Open);
  QVERIFY(done.wait(30'000));
}

QTEST_MAIN(UiFailoverTest)
#include "test_ui_failover.moc"
