// The window goes on with the Redis it used last: the saved URL is used when
// it answers, and only when it does not does the embedded default start a
// private server (saying why). A managed server's URL is not saved: it stops
// with the window.
#include <QtTest>

#include <QSettings>

#include "../support/redis_test_server.hpp"
#include "ui/main_window.hpp"
#include "ui/panels/connection_panel.hpp"
#include "ui/workers/worker_controller.hpp"

using namespace rl;
using namespace rl::ui;

class UiSavedRedisTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    qRegisterMetaType<rl::ui::RedisStatus>();
    qRegisterMetaType<rl::ui::ServerState>();
  }
  void savedUrlThatAnswersIsUsed();
  void savedUrlThatIsDownFallsBackAndSaysSo();
  void managedServerUrlIsNotSaved();
};

void UiSavedRedisTest::savedUrlThatAnswersIsUsed() {
  test::RedisTestServer redis;
  RL_REQUIRE_REDIS(redis);
  const QString url = QStringLiteral("redis://127.0.0.1:%1").arg(redis.endpoint().port);
  WorkerController controller;
  QSignalSpy status(&controller, &WorkerController::redisStatus);
  QSignalSpy server(&controller, &WorkerController::serverChanged);
  controller.useSavedRedis(url, 0);  // probe port 0: never :6379
  QVERIFY(status.wait(10'000));
  const auto st = status.last().at(0).value<RedisStatus>();
  QVERIFY2(st.ok, qPrintable(st.error));
  QVERIFY2(st.url.startsWith(url), qPrintable(st.url));
  QVERIFY(server.isEmpty());  // no private server was started
}

void UiSavedRedisTest::savedUrlThatIsDownFallsBackAndSaysSo() {
  WorkerController controller;
  QSignalSpy server(&controller, &WorkerController::serverChanged);
  QSignalSpy status(&controller, &WorkerController::redisStatus);
  controller.useSavedRedis(QStringLiteral("redis://127.0.0.1:1"), 0);  // nobody listens on port 1
  QTRY_VERIFY_WITH_TIMEOUT(server.size() >= 2, 20'000);
  QVERIFY2(server.at(0).at(0).value<ServerState>().message.contains(QStringLiteral("the saved Redis redis://127.0.0.1:1 does not answer")),
           qPrintable(server.at(0).at(0).value<ServerState>().message));
  const auto started = server.at(1).at(0).value<ServerState>();
  QVERIFY2(started.running && started.port > 0 && started.port != 6379, qPrintable(started.message));
  QTRY_VERIFY_WITH_TIMEOUT(!status.isEmpty() && status.last().at(0).value<RedisStatus>().ok, 10'000);
}

void UiSavedRedisTest::managedServerUrlIsNotSaved() {
  WorkerController controller;
  MainWindow window(controller);
  QSignalSpy status(&controller, &WorkerController::redisStatus);
  controller.startServer();
  QVERIFY(status.wait(20'000));
  QTRY_VERIFY_WITH_TIMEOUT(controller.isManagedServerUrl(window.connectionPanel()->url()), 10'000);
  QSettings s;
  s.setValue(QStringLiteral("redis/url"), QStringLiteral("redis://127.0.0.1:6400/2"));
  window.saveSettings(s);
  QVERIFY(!s.contains(QStringLiteral("redis/url")));  // the next start does not look for a server that is gone
  window.connectionPanel()->setUrl(QStringLiteral("redis://127.0.0.1:6401/3"));
  window.saveSettings(s);
  QCOMPARE(s.value(QStringLiteral("redis/url")).toString(), QStringLiteral("redis://127.0.0.1:6401/3"));
}

QTEST_MAIN(UiSavedRedisTest)
#include "test_ui_saved_redis.moc"
