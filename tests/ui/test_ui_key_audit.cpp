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

#include <QJsonArray>

#include "redis/redis_connection.hpp"
#include "redis/redis_link.hpp"
#include "support/cli_process.hpp"
#include "support/report_page.hpp"
#include "support/redis_test_cluster.hpp"
#include "support/redis_test_server.hpp"
#include "ui/main_window.hpp"
#include "ui/panels/connection_panel.hpp"
#include "ui/panels/key_audit_view.hpp"
#include "ui/panels/key_inspector_panel.hpp"
#include "ui/panels/key_live_view.hpp"
#include "ui/workers/worker_controller.hpp"
#include "support/checked.hpp"

using namespace rl;
using namespace rl::ui;

namespace {
/// `v` without its "pttl_ms" members: a TTL moves between two reads of the same key.
QJsonValue withoutPttl(const QJsonValue& v) {
  if (v.isArray()) {
    QJsonArray out;
    for (const QJsonValue& e : v.toArray()) out.append(withoutPttl(e));
    return out;
  }
  if (!v.isObject()) return v;
  QJsonObject out;
  const QJsonObject o = v.toObject();
  for (auto it = o.begin(); it != o.end(); ++it)
    if (it.key() != QLatin1String("pttl_ms")) out.insert(it.key(), withoutPttl(it.value()));
  return out;
}
}  // namespace

class UiKeyAuditTest : public QObject {
  Q_OBJECT
 private slots:
  void init();
  void cleanup();
  void auditTabNamesTheBadKeys();
  void auditTabCoversEveryClusterMaster();
  void windowPaintsDuringALargeAudit();
  void liveDrawsACounterRising();

 private:
  void redisDo(const std::vector<std::string>& argv);
  void connectWindow(const QString& url = {});
  void runAudit();
  void shoot(const QString& name);
  KeyInspectorPanel* inspector() const { return window_->keyInspectorPanel(); }
  std::unique_ptr<test::RedisTestServer> redis_;
  std::optional<RedisConnection> conn_;
  std::unique_ptr<WorkerController> controller_;
  std::unique_ptr<MainWindow> window_;
};

void UiKeyAuditTest::init() {
  redis_ = std::make_unique<test::RedisTestServer>();
  RL_REQUIRE_REDIS(*redis_);
  auto c = redis_->connect();
  QVERIFY(c);
  conn_.emplace(std::move(c).value());
  controller_ = std::make_unique<WorkerController>();
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

void UiKeyAuditTest::connectWindow(const QString& url) {
  QSignalSpy pages(controller_.get(), &WorkerController::keysReady);
  window_->connectionPanel()->setUrl(url.isEmpty() ? QStringLiteral("redis://127.0.0.1:%1").arg(redis_->endpoint().port) : url);
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
    // The inspector dock at 3/5 of the window's height, as someone reading an audit drags it.
    window_->resizeDocks({window_->findChild<QDockWidget*>(QStringLiteral("inspectorDock"))}, {size.height() * 3 / 5}, Qt::Vertical);
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

  // Export report: the page the CLI writes, with the document `keys --audit --json` prints for the
  // same server and the window's checks (every one of them), equal but for the TTLs that moved.
  QTemporaryDir dir;
  QVERIFY(!view->exportReport(dir.filePath("audit.txt")));  // a wrong extension is refused
  QVERIFY(!QFileInfo::exists(dir.filePath("audit.txt")));
  const QString page = dir.filePath("audit.html");
  const auto ok = view->exportReport(page);
  QVERIFY2(ok, ok ? "" : ok.error().message.c_str());
  const QJsonObject embedded = test::embeddedDocument(test::readReport(page));
  const auto cli = test::runCli({"keys", "--audit", "--prefix", "", "--require", "ttl-bound,known,eviction", "--json",
                                 "--redis", QStringLiteral("redis://127.0.0.1:%1").arg(redis_->endpoint().port)});
  QCOMPARE(cli.exitCode, 1);
  QCOMPARE(withoutPttl(embedded), withoutPttl(cli.json()));
  QCOMPARE(embedded["audit"].toObject()["verdict"].toString(), QStringLiteral("fail"));
  QCOMPARE(embedded["keys"].toArray().size(), 2);  // the two bad keys, named
  QTemporaryDir profile;
  RL_CHECKED(dom, test::headlessChromium(profile, {"--dump-dom", QUrl::fromLocalFile(page).toString()}));
  QVERIFY(dom.contains("<td>LIMITER/stuck/10/1/minute</td><td>limits (Python)</td><td>no TTL: it never expires</td>"));
  QCOMPARE(dom.count("<svg class=\"chart bars\""), 3);  // limits, rate-limit-redis, @fastify/rate-limit
}

void UiKeyAuditTest::auditTabCoversEveryClusterMaster() {
  test::RedisTestCluster cluster;
  RL_REQUIRE_CLUSTER(cluster);
  auto link = RedisLink::connect(cluster.endpoint());
  QVERIFY(link);
  const auto set = [&](const std::string& key, std::vector<std::string> argv) {
    auto ok = link->onKey(key, [&](RedisConnection& c) { return c.command(argv); });
    QVERIFY2(ok && !ok->isError(), key.c_str());
  };
  for (int i = 0; i < 30; ++i) {  // 30 clients: their keys spread over the three masters
    const std::string key = "rl:client" + std::to_string(i);
    set(key, {"SET", key, "1", "PX", "60000"});
  }
  set("rl:stuck", {"SET", "rl:stuck", "5"});
  set("LIMITER/daylong/10/1/minute", {"SET", "LIMITER/daylong/10/1/minute", "1", "EX", "86400"});
  connectWindow(QString::fromStdString(cluster.endpoint().toString()));
  inspector()->setPrefix(QString());
  runAudit();
  KeyAuditView* view = inspector()->auditView();
  QVERIFY2(view->statusText().startsWith(QStringLiteral("32 key(s) read, 32 limiter key(s): fail")), qPrintable(view->statusText()));
  QCOMPARE(view->groups()->topLevelItemCount(), 2);
  QCOMPARE(view->groups()->topLevelItem(0)->text(0), QStringLiteral("rl:"));
  QCOMPARE(view->groups()->topLevelItem(0)->text(2), QStringLiteral("31"));
  QCOMPARE(view->groups()->topLevelItem(0)->text(3), QStringLiteral("1"));  // rl:stuck, on whichever master holds it
  const QString findings = view->findingsText();
  QVERIFY2(findings.contains(QStringLiteral("No TTL: rl:stuck (rate-limit-redis) never expires")), qPrintable(findings));
  QVERIFY2(findings.contains(QStringLiteral("TTL far beyond its window: LIMITER/daylong/10/1/minute")), qPrintable(findings));
  // The report's servers: the three masters, whose keys add up to every key.
  QTemporaryDir dir;
  QVERIFY(view->exportReport(dir.filePath("cluster.html")));
  const QJsonArray servers = test::embeddedDocument(test::readReport(dir.filePath("cluster.html")))["audit"].toObject()["servers"].toArray();
  QCOMPARE(servers.size(), 3);
  int keys = 0;
  for (const QJsonValue& m : servers) keys += m.toObject()["keys"].toInt();
  QCOMPARE(keys, 32);
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
