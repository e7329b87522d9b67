// The outage preset (its fault schedule kill@1000,restart@2000) acts on the server the storm uses: connected to a Redis
// the window did not start (a redis-server started here stands for the user's
// own), it is refused with one sentence and nothing is stopped; on the
// window's managed server it stops and restarts that server, the storm sees
// the errors, and the URL field and the Status line name that server
// throughout. A URL typed but not connected is marked as not checked.

#include <QtTest>

#include <QPushButton>
#include <QTableWidget>

#include "support/redis_test_server.hpp"
#include "ui/main_window.hpp"
#include "ui/panels/connection_panel.hpp"
#include "ui/panels/storm_panel.hpp"
#include "ui/panels/summary_panel.hpp"
#include "ui/workers/worker_controller.hpp"

using namespace rl;
using namespace rl::ui;

class UiOutageTargetTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }
  void outageOnTheUsersRedisIsRefused();

 private:
  void waitStatus(WorkerController& c);
};

void UiOutageTargetTest::waitStatus(WorkerController& c) {
  QSignalSpy status(&c, &WorkerController::redisStatus);
  QVERIFY(status.wait(15'000));
}

void UiOutageTargetTest::outageOnTheUsersRedisIsRefused() {
  test::RedisTestServer own;  // "the user's own Redis": the window did not start it
  RL_REQUIRE_REDIS(own);
  const QString ownUrl = QStringLiteral("redis://127.0.0.1:%1").arg(own.endpoint().port);
  WorkerController controller;
  MainWindow window(controller);
  window.resize(1400, 900);
  window.show();
  QVERIFY(QTest::qWaitForWindowExposed(&window));
  ConnectionPanel* connection = window.connectionPanel();
  QSignalSpy server(&controller, &WorkerController::serverChanged);
  controller.startServer();  // the managed server runs ...
  waitStatus(controller);
  const QString managedUrl = connection->url();
  QVERIFY(managedUrl.startsWith(QStringLiteral("redis://127.0.0.1:")) && managedUrl != ownUrl);
  const int managedPort = server.back().front().value<ServerState>().port;
  connection->setUrl(ownUrl);  // ... but the user connects to their own
  QCOMPARE(connection->statusText(),
           QStringLiteral("%1 is not checked yet: press Connect to use it (storms use the URL field)").arg(ownUrl));
  QTest::mouseClick(connection->findChild<QPushButton*>(QStringLiteral("connectRedis")), Qt::LeftButton);
  waitStatus(controller);
  QVERIFY2(connection->statusText().startsWith(QStringLiteral("connected to %1/0, Redis ").arg(ownUrl)),
           qPrintable(connection->statusText()));

  window.applyPreset(*findPreset(QStringLiteral("outage")));
  QVERIFY(!window.startStorm());
  QCOMPARE(window.stormPanel()->errorText(),
           QStringLiteral("This scenario has a fault schedule (kill@1000,restart@2000): it is done to the window's "
                          "managed redis-server only (127.0.0.1:%1), but "
                          "this storm would run on %2, which RateLab did not start and never stops: press Start server "
                          "in the Connection panel to run it on the managed server")
               .arg(managedPort)
               .arg(ownUrl));
  QVERIFY(!controller.stormRunning());
  QCOMPARE(connection->url(), ownUrl);  // nothing changed the URL field

  // Start server: the window talks to its managed server again; the outage runs on it.
  server.clear();
  QTest::mouseClick(connection->findChild<QPushButton*>(QStringLiteral("startServer")), Qt::LeftButton);
  waitStatus(controller);
  QCOMPARE(connection->url(), managedUrl);
  QVERIFY2(connection->statusText().startsWith(QStringLiteral("connected to %1, ").arg(managedUrl)),
           qPrintable(connection->statusText()));
  QSignalSpy done(&window, &MainWindow::stormDone);
  QSignalSpy message(&controller, &WorkerController::message);
  QVERIFY(window.startStorm());
  QVERIFY(done.wait(60'000));
  // The experiment's fault schedule killed and restarted the managed server, as ratelab-cli run --scenario does.
  QTRY_VERIFY_WITH_TIMEOUT(std::any_of(message.begin(), message.end(), [](const QList<QVariant>& m) {
                             const QString t = m.at(0).toString();
                             return t.startsWith(QStringLiteral("Faults done: kill@1000 at")) && t.contains(QStringLiteral("restart@2000 at"));
                           }), 10'000);
  QTableWidget* t = window.summaryPanel()->table();
  QCOMPARE(t->rowCount(), 3);
  for (int i = 0; i < 3; ++i) {
    QCOMPARE(t->item(i, 1)->text().toInt(), 525);
    QVERIFY2(t->item(i, 4)->text().toInt() > 0, qPrintable(t->item(i, 0)->text()));  // the outage reached this storm
  }
  // After the restart the URL field and the Status line still name the managed server.
  QTRY_VERIFY_WITH_TIMEOUT(connection->statusText().startsWith(QStringLiteral("connected to %1, ").arg(managedUrl)), 10'000);
  QCOMPARE(connection->url(), managedUrl);
  auto ownConn = own.connect();  // the user's Redis was never stopped and holds none of the storm's keys
  QVERIFY(ownConn);
  auto keys = ownConn->command({"DBSIZE"});
  QVERIFY(keys);
  QCOMPARE(keys->integer(), 0);
}

QTEST_MAIN(UiOutageTargetTest)
#include "test_ui_outage_target.moc"
