// The window's live marker of a natural failover, offscreen with real widgets:
// the preset "Sentinel failover: what a limiter loses" (a private Sentinel set,
// the master SIGKILLed at 2 s) draws a "no master (failover)" band in the lane
// while the storm runs, from the kill until the Sentinels name a successor, and
// when the storm is done the band is the run document's kill_ms..elected_ms.
// The Connection panel names that private set on its own line ("This run")
// while the URL field and the Status line keep naming the window's server.

#include <QtTest>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include "ui/charts/chart_lane.hpp"
#include "ui/panels/lanes_panel.hpp"
#include "ui/panels/connection_panel.hpp"
#include "ui/main_window.hpp"
#include "ui/presets.hpp"
#include "ui/workers/worker_controller.hpp"

using namespace rl;
using namespace rl::ui;

class UiFailoverMarkerTest : public QObject {
  Q_OBJECT
 private slots:
  void sentinelPresetDrawsTheTimeWithoutAMaster();
};

void UiFailoverMarkerTest::sentinelPresetDrawsTheTimeWithoutAMaster() {
  QStandardPaths::setTestModeEnabled(true);
  WorkerController controller;
  MainWindow w(controller);
  w.resize(1024, 700);
  w.show();
  w.applyPreset(*findPreset(QStringLiteral("sentinel_failover")));
  ConnectionPanel* connection = w.connectionPanel();
  const QString windowsUrl = connection->url();
  QVERIFY(connection->runServerText().isEmpty());  // no run yet: the line is hidden
  QSignalSpy done(&w, &MainWindow::stormDone);
  QVERIFY(w.startStorm());
  // The run's own Sentinel set is named while it runs; the URL field still names the window's.
  QTRY_VERIFY_WITH_TIMEOUT(!connection->runServerText().isEmpty(), 30'000);
  QVERIFY2(connection->runServerText().contains(QStringLiteral("its own private Sentinel set (started and stopped with it), "
                                                               "not the Redis above: redis+sentinel://127.0.0.1:")),
           qPrintable(connection->runServerText()));
  QCOMPARE(connection->url(), windowsUrl);
  LaneChart* lane = nullptr;
  // Live: the band appears while the storm still runs, open until the successor is seen.
  QTRY_VERIFY_WITH_TIMEOUT((lane = w.lanesPanel()->lanes().value(0)) && lane->withoutMasterBand() && done.isEmpty(), 40'000);
  QVERIFY2(lane->withoutMasterBand()->from >= 1.9 && lane->withoutMasterBand()->from <= 2.5,
           qPrintable(QString::number(lane->withoutMasterBand()->from)));
  QVERIFY(done.wait(60'000));
  QVERIFY2(connection->runServerText().startsWith(QStringLiteral("the last run used its own private Sentinel set, now stopped")),
           qPrintable(connection->runServerText()));
  QVERIFY(w.lanesPanel()->legend()->names().contains(QStringLiteral("no master (failover)")));
  const QJsonObject doc = QJsonDocument::fromJson(w.runDocumentText()).object();
  const QJsonObject failover = doc.value(QStringLiteral("failover")).toObject();
  QVERIFY2(!failover.isEmpty(), w.runDocumentText().left(2000).constData());
  const double killS = failover.value(QStringLiteral("kill_ms")).toDouble() / 1000;
  const double electedS = failover.value(QStringLiteral("elected_ms")).toDouble() / 1000;
  QVERIFY2(electedS > killS + 0.9, qPrintable(QStringLiteral("%1 %2").arg(killS).arg(electedS)));  // down-after 1000 ms
  const auto band = lane->withoutMasterBand();
  QVERIFY(band);
  QCOMPARE(qRound(band->from * 1000), qRound(killS * 1000));
  QCOMPARE(qRound(band->to * 1000), qRound(electedS * 1000));
}

QTEST_MAIN(UiFailoverMarkerTest)
#include "test_ui_failover_marker.moc"
