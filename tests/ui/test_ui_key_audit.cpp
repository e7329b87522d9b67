// The inspector's Audit and Live tabs in the real window, offscreen, against a
// private redis-server: the audit names the key without a TTL and the one with
// a TTL far beyond its window, per library, with the TTL histogram; the window
// keeps painting while a 60,000-key audit runs on the worker thread; Live draws
// a counter rising as someone else INCRs it. With RATELAB_SHOT_DIR set, the
// window is saved at 1024x700 and 1600x1000 with each tab raised.

#include <QtTest>

#include <QDockWidget>
#include <QLineEdit>
#include <QPushButton>
#include <QTabWidget>
#include <QTreeWidget>

#include "redis/redis_connection.hpp"
#include "support/redis_test_server.hpp"
#include "ui/main_window.hpp"
#include "ui/panels/connection_panel.hpp"
#include "ui/panels/key_audit_view.hpp"
#include "ui/panels/key_inspector_panel.hpp"
#include "ui/panels/key_live_view.hpp"
#include "ui/workers/storm_controller.hpp"

using namespace rl;
using namespace rl::ui;

class UiKeyAuditTest : public QObject {
  Q_OBJECT
 private slots:
  void init();
  void cleanup();
  void auditTabNamesTheBadKeys();
  void windowPaintsDuringALargeAudit();
  void liveDrawsACounterRising();

 private:
  void redisDo(const std::vector<std::string>& argv);
  void connectWindow();
  void runAudit();
  void shoot(const QString& name);
  KeyInspectorPanel* inspector() const { return window_->keyInspectorPanel(); }
  std::unique_ptr<test::RedisTestServer> redis_;
  std::optional<RedisConnection> conn_;
  std::unique_ptr<StormController> controller_;
  std::unique_ptr<MainWindow> window_;
};

void UiKeyAuditTest::init() {
  redis_ = std::make_unique<test::RedisTestServer>();
  RL_REQUIRE_REDIS(*redis_);
  auto c = redis_->connect();
  QVERIFY(c);
  conn_.emplace(std::move(c).value());
  controller_ = std::make_unique<StormController>();
  window_ = std::make_unique<MainWindow>(*controller_);
  window_->resize(1400, 900);
  window_->show();
  QVERIFY(QTest::qWaitForWindowExposed(window_.get()));
  window_->findChild<QDockWidget*>(QStringLiteral("inspectorDock"))->raise();
}

void UiKeyAuditTest::cleanup() {
  window_.reset();
  controller_.reset();
  conn_.reset();
  redis_.reset();
}

void UiKeyAuditTest::redisDo(const std::vector<std::string>& argv) {
  auto r = conn_->command(argv);
  QVERIFY2(r && !r->isError(), argv.front().c_str());
}

void UiKeyAuditTest::connectWindow() {
  QSignalSpy pages(controller_.get(), &StormController::keysReady);
  window_->connectionPanel()->setUrl(QStringLiteral("redis://127.0.0.1:%1").arg(redis_->endpoint().port));
  QTest::mouseClick(window_->connectionPanel()->findChild<QPushButton*>(QStringLiteral("connectRedis")), Qt::LeftButton);
  QVERIFY(pages.wait(10'000));
}

void UiKeyAuditTest::runAudit() {
  inspector()->tabs()->setCurrentWidget(inspector()->auditView());
  QTest::mouseClick(inspector()->auditView()->findChild<QPushButton*>(QStringLiteral("auditKeys")), Qt::LeftButton);
  QTRY_VERIFY_WITH_TIMEOUT(inspector()->auditView()->statusText().contains(QStringLiteral("key(s) read")), 60'000);
}

void UiKeyAuditTest::shoot(const QString& name) {
  const QString dir = qEnvironmentVariable("RATELAB_SHOT_DIR");
  if (dir.isEmpty()) return;
  for (const QSize size : {QSize(1024, 700), QSize(1600, 1000)}) {
    window_->resize(size);
    QTest::qWait(200);  // layout and chart animations settle (a picture, not an assertion)
    QVERIFY(window_->grab().save(QStringLiteral("%1/%2-%3x%4.png").arg(dir, name).arg(size.width()).arg(size.height())));
  }
}

void UiKeyAuditTest::auditTabNamesTheBadKeys() {
  redisDo({"SET", "rl:10.0.0.1", "3", "PX", "60000"});
  redisDo({"SET", "rl:10.0.0.2", "7", "PX", "60000"});
  redisDo({"SET", "fastify-rate-limit-10.0.0.3", "2", "PX", "60000"});
  redisDo({"SET", "LIMITER/ok/10/1/minute", "4", "EX", "50"});
  redisDo({"SET", "LIMITER/stuck/10/1/minute", "10"});
  redisDo({"SET", "LIMITER/daylong/10/1/minute", "1", "EX", "86400"});
  connectWindow();
  inspector()->setPrefix(QString());  // every key
  runAudit();
  KeyAuditView* view = inspector()->auditView();
  QVERIFY2(view->statusText().startsWith(QStringLiteral("6 key(s) read, 6 limiter key(s): fail")), qPrintable(view->statusText()));
  QCOMPARE(view->groups()->topLevelItemCount(), 3);
  QCOMPARE(view->groups()->topLevelItem(0)->text(1), QStringLiteral("limits (Python)"));
  QCOMPARE(view->groups()->topLevelItem(0)->text(3), QStringLiteral("1"));  // no TTL
  QCOMPARE(view->groups()->topLevelItem(0)->text(4), QStringLiteral("1"));  // long TTL
  const QString findings = view->findingsText();
  QVERIFY2(findings.contains(QStringLiteral("No TTL: LIMITER/stuck/10/1/minute (limits (Python)) never expires")), qPrintable(findings));
  QVERIFY2(findings.contains(QStringLiteral("TTL far beyond its window: LIMITER/daylong/10/1/minute (limits (Python)): 1 d, "
                                            "expected at most 1 min")),
           qPrintable(findings));
  // Every limiter key: the limits one at 50 s of 60 (<= bound), 1 > 10 x bound, 1 without a TTL, 3 counters with no bound.
  QCOMPARE(view->histogram(), (QList<qreal>{0, 1, 0, 0, 1, 3, 1}));
  view->groups()->topLevelItem(0)->setSelected(true);  // the limits row only
  QCOMPARE(view->histogram(), (QList<qreal>{0, 1, 0, 0, 1, 0, 1}));
  shoot(QStringLiteral("inspector-audit"));
}

void UiKeyAuditTest::windowPaintsDuringALargeAudit() {
  for (int chunk = 0; chunk < 60; ++chunk) {  // 1,000 keys per MSET: each within the command timeout
    std::vector<std::string> mset{"MSET"};
    for (int i = chunk * 1000; i < (chunk + 1) * 1000; ++i) {
      mset.push_back("rl:c" + std::to_string(i));
      mset.push_back("1");
    }
    redisDo(mset);
  }
  connectWindow();
  inspector()->setPrefix(QStringLiteral("rl:"));
  inspector()->tabs()->setCurrentWidget(inspector()->auditView());
  QElapsedTimer gap;
  qint64 worst = 0;
  QTimer tick;
  tick.setInterval(10);
  connect(&tick, &QTimer::timeout, this, [&] {
    worst = std::max(worst, gap.restart());
  });
  QTest::mouseClick(inspector()->auditView()->findChild<QPushButton*>(QStringLiteral("auditKeys")), Qt::LeftButton);
  gap.start();
  tick.start();
  QTRY_VERIFY_WITH_TIMEOUT(inspector()->auditView()->statusText().contains(QStringLiteral("key(s) read")), 120'000);
  tick.stop();
  QVERIFY2(inspector()->auditView()->statusText().startsWith(QStringLiteral("60000 key(s) read")),
           qPrintable(inspector()->auditView()->statusText()));
  QVERIFY2(worst < 500, qPrintable(QStringLiteral("the GUI thread stalled %1 ms during the audit").arg(worst)));
  QCOMPARE(inspector()->auditView()->groups()->topLevelItem(0)->text(3), QStringLiteral("60000"));  // all without a TTL
}

void UiKeyAuditTest::liveDrawsACounterRising() {
  redisDo({"SET", "rl:live", "1", "PX", "60000"});
  connectWindow();
  inspector()->setPrefix(QStringLiteral("rl:"));
  inspector()->assume()->setText(QStringLiteral("limit=10"));
  KeyLiveView* live = inspector()->liveView();
  inspector()->tabs()->setCurrentWidget(live);
  live->setKeys({QStringLiteral("rl:live")});
  live->setRunning(true);
  for (int used = 2; used <= 5; ++used) {
    redisDo({"INCR", "rl:live"});
    QTRY_VERIFY_WITH_TIMEOUT(!live->usedPoints(QStringLiteral("rl:live")).isEmpty() &&
                                 qFuzzyCompare(live->usedPoints(QStringLiteral("rl:live")).last().y(), used / 10.0),
                             10'000);
  }
  const QList<QPointF> pts = live->usedPoints(QStringLiteral("rl:live"));
  for (int i = 1; i < pts.size(); ++i) QVERIFY(pts[i].y() >= pts[i - 1].y() && pts[i].x() > pts[i - 1].x());
  QVERIFY(live->ttlPoints(QStringLiteral("rl:live")).last().y() > 50);  // PX 60000, a few seconds in
  shoot(QStringLiteral("inspector-live"));
  live->setRunning(false);
}

QTEST_MAIN(UiKeyAuditTest)
#include "test_ui_key_audit.moc"
