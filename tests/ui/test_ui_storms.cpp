// The window against a real redis-server (its own, on a free port): a preset
// storm fills the lanes and the summary with exact numbers, the inspector
// lists the keys it created with PTTL > 0, the race lab shows naive above the
// limit and lua at it, live tuning is applied and marked, and the outage
// preset stops and restarts the window's managed server mid-storm while the
// same storm runs once per failure policy, side by side.

#include <QtTest>

#include <atomic>
#include <thread>

#include <QComboBox>
#include <QJsonArray>
#include <QJsonObject>
#include <QDoubleSpinBox>
#include <QPushButton>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTreeWidget>

#include "http/http_client.hpp"
#include "storm/fault_schedule.hpp"
#include "support/redis_test_server.hpp"
#include "support/report_page.hpp"
#include "support/window_serving.hpp"
#include "ui/charts/chart_lane.hpp"
#include "ui/panels/connection_panel.hpp"
#include "ui/panels/key_inspector_panel.hpp"
#include "ui/panels/lanes_panel.hpp"
#include "ui/main_window.hpp"
#include "ui/panels/race_lab_panel.hpp"
#include "ui/workers/worker_controller.hpp"
#include "ui/panels/storm_panel.hpp"
#include "ui/panels/summary_panel.hpp"
#include "ui/charts/ttl_chart.hpp"
#include "support/checked.hpp"

using namespace rl;
using namespace rl::ui;

namespace {
constexpr int kStormTimeoutMs = 60'000;

QString cell(QTableWidget* t, int row, int column) {
  auto* item = t->item(row, column);
  return item ? item->text() : QString();
}

/// Most admitted samples of `lane` in any window (t - w, t] with t >= from.
std::int64_t maxAdmittedInWindowAfter(const std::vector<LaneSample>& s, std::int64_t from, std::int64_t w) {
  std::int64_t best = 0;
  std::size_t lo = 0;
  std::int64_t count = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    count += s[i].allowed;
    while (s[lo].t <= s[i].t - w) count -= s[lo++].allowed;
    if (s[i].t >= from) best = std::max(best, count);
  }
  return best;
}
}  // namespace

class UiStormsTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase();
  void init();
  void cleanup();
  void boundaryPresetFillsLanesAndSummary();
  void inspectorListsTheStormKeysWithPttl();
  void inspectorDeletesWithinThePrefixOnly();
  void csvExportWritesEveryDecision();
  void exportsQueuedAtCloseStillFinish();
  void raceLabShowsNaiveAboveTheLimitAndLuaAtIt();
  void racePresetDrawsEachStoreAsALane();
  void liveTuningAppliesToNextDecisionsAndIsMarked();
  void outagePresetComparesThePoliciesSideBySide();
  void servingOverHttpFeedsTheLanes();
  void faultScheduleRunsOnTheManagedServer();

 private:
  void connectTo(const QString& url);
  void runBoundaryPreset();
  std::unique_ptr<test::RedisTestServer> redis_;
  std::unique_ptr<WorkerController> controller_;
  std::unique_ptr<MainWindow> window_;
  QString url_;
};

void UiStormsTest::initTestCase() {
  QStandardPaths::setTestModeEnabled(true);
  redis_ = std::make_unique<test::RedisTestServer>();
  RL_REQUIRE_REDIS(*redis_);
  url_ = QStringLiteral("redis://127.0.0.1:%1").arg(redis_->endpoint().port);
}

void UiStormsTest::init() {
  controller_ = std::make_unique<WorkerController>();
  window_ = std::make_unique<MainWindow>(*controller_);
  window_->resize(1400, 900);
  window_->show();
  QVERIFY(QTest::qWaitForWindowExposed(window_.get()));
}

void UiStormsTest::cleanup() {
  window_.reset();
  controller_.reset();
}

void UiStormsTest::connectTo(const QString& url) {
  QSignalSpy status(controller_.get(), &WorkerController::redisStatus);
  window_->connectionPanel()->setUrl(url);
  controller_->connectRedis(url);
  QVERIFY(status.wait(10'000));
  QVERIFY2(window_->connectionPanel()->statusText().startsWith(QStringLiteral("connected to")),
           qPrintable(window_->connectionPanel()->statusText()));
}

void UiStormsTest::runBoundaryPreset() {
  connectTo(url_);
  window_->applyPreset(*findPreset(QStringLiteral("boundary")));  // boundary.json: memory, 6 algorithms
  auto* backend = window_->stormPanel()->findChild<QComboBox*>(QStringLiteral("backend"));
  backend->setCurrentIndex(backend->findData(int(Backend::RedisLua)));  // the user picks Redis
  QSignalSpy done(window_.get(), &MainWindow::stormDone);
  QVERIFY(window_->startStorm());
  QVERIFY(done.wait(kStormTimeoutMs));
}

void UiStormsTest::boundaryPresetFillsLanesAndSummary() {
  runBoundaryPreset();
  if (QTest::currentTestFailed()) return;
  // 400 requests x 6 algorithms, 100 per 60 s, two bursts of 200 straddling a window edge.
  QCOMPARE(controller_->model().size(), std::size_t{2400});
  QTableWidget* t = window_->summaryPanel()->table();
  QCOMPARE(cell(t, 0, 0), QStringLiteral("fixed_window"));
  QCOMPARE(cell(t, 0, 2), QStringLiteral("200"));
  QCOMPARE(cell(t, 0, 5), QStringLiteral("200"));    // twice the limit in one sliding window...
  QCOMPARE(cell(t, 0, 6), QStringLiteral("1.00x"));  // ...but never more than 100 in an aligned one
  QCOMPARE(cell(t, 1, 0), QStringLiteral("sliding_log"));
  QCOMPARE(cell(t, 1, 2), QStringLiteral("100"));
  QCOMPARE(cell(t, 1, 6), QStringLiteral("1.00x"));
  const auto& lanes = window_->lanesPanel()->lanes();
  QCOMPARE(lanes.size(), 6);
  QCOMPARE(lanes[0]->overLimitSpans(), 0);  // fixed window: it kept its own promise
  QCOMPARE(lanes[1]->overLimitSpans(), 0);  // sliding log: never
  QVERIFY(lanes[0]->admittedPoints() > 0);
  // The TTL chart samples the keys on its own connection during and after the
  // storm, on the wall clock: this virtual-clock storm's samples come after the
  // run, and sampling stops by itself once every key expired (<= 2 windows).
  TtlChart* ttl = window_->lanesPanel()->ttlChart();
  QCOMPARE(ttl->source(), TtlSource::VirtualClock);
  // The whole sentence is the tooltip; the title is that sentence, or its short form when the chart is narrow.
  QVERIFY2(ttl->toolTip().contains(QStringLiteral("virtual-clock storm runs faster than real time")), qPrintable(ttl->toolTip()));
  QVERIFY2(ttl->titleShown() == ttl->toolTip() || ttl->titleShown() == QStringLiteral("PTTL after the run"),
           qPrintable(ttl->titleShown()));
  QVERIFY(ttl->runEndSeconds() >= 0);
  QTRY_VERIFY_WITH_TIMEOUT(ttl->points(1) > 0, 10'000);
  QTRY_VERIFY_WITH_TIMEOUT(!controller_->ttlSampling(), 10'000);
}

void UiStormsTest::inspectorListsTheStormKeysWithPttl() {
  runBoundaryPreset();
  if (QTest::currentTestFailed()) return;
  const std::string tag = controller_->spec().runTag;
  QSignalSpy keys(controller_.get(), &WorkerController::keysReady);
  window_->keyInspectorPanel()->setPrefix(QStringLiteral("ratelab:"));
  window_->keyInspectorPanel()->refresh();
  QVERIFY(keys.wait(10'000));
  QTreeWidget* tree = window_->keyInspectorPanel()->tree();
  // This storm's keys: fixed window (two windows), sliding log (one string), sliding
  // counter (two windows). The fixed window's first key lives only until its
  // window ends, tens of ms after the storm (keys expire in real time under the
  // virtual clock): it may be gone, or expire between SCAN and PTTL (-2). The
  // other four live about a window. None may lack a TTL (-1).
  int living = 0;
  for (int i = 0; i < tree->topLevelItemCount(); ++i) {
    QTreeWidgetItem* item = tree->topLevelItem(i);
    if (!item->text(0).contains(QString::fromStdString(tag))) continue;
    const qint64 pttl = item->data(2, Qt::UserRole + 1).toLongLong();
    QVERIFY2(pttl != -1, qPrintable(item->text(0)));
    living += pttl > 0;
    if (item->text(0).contains(QLatin1String("{sliding_log:")))  // decoded: entries, oldest, newest
      QCOMPARE(item->childCount(), 3);
  }
  QVERIFY2(living >= 4, qPrintable(QString::number(living)));
}

void UiStormsTest::inspectorDeletesWithinThePrefixOnly() {
  connectTo(url_);
  auto conn = redis_->connect();
  QVERIFY(conn.ok());
  QVERIFY(conn->command({"SET", "other:keep", "1"}).ok());
  QVERIFY(conn->command({"SET", "gui-del:a", "1", "PX", "60000"}).ok());
  QVERIFY(conn->command({"SET", "gui-del:b", "2", "PX", "60000"}).ok());
  KeyInspectorPanel* inspector = window_->keyInspectorPanel();
  QStringList asked;
  inspector->setConfirm([&](const QString& text) {
    asked << text;
    return true;
  });
  inspector->setPrefix(QStringLiteral("gui-del:"));
  QSignalSpy keys(controller_.get(), &WorkerController::keysReady);
  inspector->refresh();
  QTRY_COMPARE_WITH_TIMEOUT(inspector->keyCount(), 2, 10'000);  // (the scan on connect listed ratelab: first)
  // Delete one selected key, then the whole prefix; each asks first.
  inspector->tree()->topLevelItem(0)->setSelected(true);
  QSignalSpy deleted(controller_.get(), &WorkerController::keysDeleted);
  inspector->findChild<QPushButton*>(QStringLiteral("deleteKey"))->click();
  QVERIFY(deleted.wait(10'000));
  QCOMPARE(deleted.takeFirst().at(0).toLongLong(), 1);
  QTRY_COMPARE_WITH_TIMEOUT(inspector->keyCount(), 1, 10'000);
  inspector->findChild<QPushButton*>(QStringLiteral("deletePrefix"))->click();
  QVERIFY(deleted.wait(10'000));
  QCOMPARE(deleted.takeFirst().at(0).toLongLong(), 1);
  QCOMPARE(asked.size(), 2);
  QVERIFY(asked[1].contains(QStringLiteral("gui-del:")));
  QCOMPARE(conn->command({"EXISTS", "gui-del:a", "gui-del:b"})->integer(), 0);
  QCOMPARE(conn->command({"EXISTS", "other:keep"})->integer(), 1);  // outside the prefix: untouched
}

void UiStormsTest::csvExportWritesEveryDecision() {
  runBoundaryPreset();
  if (QTest::currentTestFailed()) return;
  QTemporaryDir dir;
  const QString path = dir.filePath(QStringLiteral("decisions.csv"));
  window_->exportCsv(path);  // written off the GUI thread
  QTRY_VERIFY_WITH_TIMEOUT(QFileInfo(path).size() > 0, 20'000);
  QFile f(path);
  QVERIFY(f.open(QIODevice::ReadOnly));
  const QList<QByteArray> lines = f.readAll().split('\n');
  QCOMPARE(lines.front(), QByteArray("intended_us,actual_us,replica,client,algorithm,allowed,remaining,retry_after_us,latency_us,error,late,level"));
  QCOMPARE(lines.size(), 1 + 2400 + 1);  // header, 2400 decisions, final newline
  int fixedAdmitted = 0;
  for (const QByteArray& line : lines) {
    const auto cells = line.split(',');
    if (cells.size() == 12 && cells[4] == "fixed_window" && cells[5] == "1") ++fixedAdmitted;
  }
  QCOMPARE(fixedAdmitted, 200);
}

void UiStormsTest::exportsQueuedAtCloseStillFinish() {
  // Exports run on the controller's files thread, in order; closing (the destructor) waits for all of
  // them, the running one and the ones queued behind it, and none reaches a receiver that is gone.
  auto controller = std::make_unique<WorkerController>();
  auto receiver = std::make_unique<QObject>();
  std::atomic<int> ran{0};
  QStringList told;
  QThread* filesThread = nullptr;
  for (int i = 0; i < 3; ++i)
    controller->inBackground([&ran, &filesThread, i] {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));  // an export that takes a while
      filesThread = QThread::currentThread();
      return QString::number(ran.fetch_add(1) == i ? i : -1);  // -1: out of order
    }, receiver.get(), [&told](const QString& t) { told << t; });
  QTRY_COMPARE_WITH_TIMEOUT(told.size(), 1, 10'000);  // the first is told on this thread
  QCOMPARE(told.front(), QStringLiteral("0"));
  QVERIFY(filesThread != QThread::currentThread());
  QCOMPARE(filesThread->objectName(), QStringLiteral("ratelab-files"));
  receiver.reset();
  controller.reset();  // two more queued: both run before the threads are joined
  QCOMPARE(ran.load(), 3);
  QCoreApplication::processEvents();
  QCOMPARE(told, QStringList{QStringLiteral("0")});  // the receiver is gone: nobody is told of 1 and 2
}

void UiStormsTest::raceLabShowsNaiveAboveTheLimitAndLuaAtIt() {
  connectTo(url_);
  QSignalSpy done(window_.get(), &MainWindow::raceDone);
  QTest::mouseClick(window_->raceLabPanel()->runButton(), Qt::LeftButton);  // capacity 10, 20 connections released together, 20 rounds (core's race)
  QVERIFY(done.wait(kStormTimeoutMs));
  QTableWidget* t = window_->raceLabPanel()->table();
  QCOMPARE(cell(t, 0, 0), QStringLiteral("naive"));
  QVERIFY2(cell(t, 0, 2).toInt() > 10, qPrintable(cell(t, 0, 2)));  // the race lets more than the capacity through
  QCOMPARE(cell(t, 1, 0), QStringLiteral("watch"));
  QCOMPARE(cell(t, 1, 1), QStringLiteral("10"));
  QCOMPARE(cell(t, 1, 2), QStringLiteral("10"));
  QCOMPARE(cell(t, 2, 0), QStringLiteral("lua"));
  QCOMPARE(cell(t, 2, 1), QStringLiteral("10"));
  QCOMPARE(cell(t, 2, 2), QStringLiteral("10"));
  QCOMPARE(cell(t, 2, 3), QStringLiteral("0"));
  // File > Export race report: ratelab-cli race --report's page, with the table's numbers, drawn by a real browser.
  QTemporaryDir dir;
  const QString path = dir.filePath(QStringLiteral("race.html"));
  QVERIFY2(window_->exportRaceReport(path), "export race report");
  const QByteArray html = test::readReport(path);
  const QJsonArray variants = test::embeddedDocument(html)[QStringLiteral("variants")].toArray();
  QCOMPARE(variants.size(), 3);
  for (int row = 0; row < 3; ++row) {
    const QJsonObject v = variants[row].toObject();
    QCOMPARE(v[QStringLiteral("name")].toString(), cell(t, row, 0));
    QCOMPARE(QString::number(v[QStringLiteral("admitted_min")].toInteger()), cell(t, row, 1));
    QCOMPARE(QString::number(v[QStringLiteral("admitted_max")].toInteger()), cell(t, row, 2));
    QCOMPARE(QString::number(v[QStringLiteral("over_limit_rounds")].toInteger()), cell(t, row, 3));
  }
  QVERIFY(html.contains("Race lab: check-then-increment against its atomic fixes"));
  RL_CHECKED(dom, test::headlessChromium(dir, {"--dump-dom", QUrl::fromLocalFile(path).toString()}));
  QVERIFY(html.count("<svg class=\"chart\"") > 0);
  QCOMPARE(dom.count("<svg class=\"chart\""), html.count("<svg class=\"chart\""));
  QVERIFY(!window_->exportRaceReport(dir.filePath(QStringLiteral("race.txt"))));  // not .html: refused
  // A second race in the same window gets fresh keys: its windows (one hour
  // long) are not the first race's, which are still full.
  QTest::mouseClick(window_->raceLabPanel()->runButton(), Qt::LeftButton);
  QVERIFY(done.wait(kStormTimeoutMs));
  QCOMPARE(cell(t, 2, 1), QStringLiteral("10"));
  QCOMPARE(cell(t, 2, 2), QStringLiteral("10"));
}

void UiStormsTest::racePresetDrawsEachStoreAsALane() {
  // race.json: one burst of 20 at capacity 10 through naive, then (compare_backend) WATCH/MULTI and Lua,
  // each its own lane in the big area; the race lab repeats it in rounds beside them.
  connectTo(url_);
  window_->applyPreset(*findPreset(QStringLiteral("race")));
  QSignalSpy done(window_.get(), &MainWindow::stormDone);
  QVERIFY(window_->startStorm());
  QVERIFY(done.wait(kStormTimeoutMs));
  QTRY_VERIFY_WITH_TIMEOUT(!controller_->raceRunning(), kStormTimeoutMs);
  const auto lanes = window_->lanesPanel()->lanes();
  QCOMPARE(lanes.size(), 3);
  const QStringList stores{QStringLiteral("redis-naive"), QStringLiteral("redis-watch"), QStringLiteral("redis-lua")};
  for (int i = 0; i < 3; ++i) {
    QVERIFY2(lanes[i]->heading().contains(stores[i]), qPrintable(lanes[i]->heading()));
    const LanePoints& p = lanes[i]->shownPoints();
    QCOMPARE(p.admitted + p.denied, std::int64_t(20));
    QCOMPARE(p.limit.back().y(), 10.0);
    if (i == 0)
      QVERIFY2(p.admitted >= 10, qPrintable(lanes[i]->title()));  // naive never denies while it reads tokens
    else
      QCOMPARE(p.admitted, std::int64_t(10));  // the atomic stores hold the capacity exactly
  }
  QCOMPARE(cell(window_->summaryPanel()->table(), 2, 2), QStringLiteral("10"));  // the Summary's lua row agrees
}

void UiStormsTest::liveTuningAppliesToNextDecisionsAndIsMarked() {
  connectTo(url_);
  StormSpec spec;
  spec.algorithms = {Algorithm::SlidingLog};
  spec.backend = Backend::RedisLua;
  spec.quota = Quota::perWindow(50, kSecond);
  spec.pattern = Pattern::Constant;
  spec.rate = 200;
  spec.duration = Micros{2'500'000};
  spec.clock = ClockMode::Client;  // the limiter's clock is the one the lanes time decisions on
  window_->stormPanel()->setSpec(spec);
  QSignalSpy done(window_.get(), &MainWindow::stormDone);
  QVERIFY(window_->startStorm());
  QTRY_VERIFY_WITH_TIMEOUT(controller_->model().lastTime() > 0 || controller_->model().size() > 0, 10'000);
  window_->stormPanel()->findChild<QDoubleSpinBox*>(QStringLiteral("limit"))->setValue(10);  // while it runs
  QVERIFY(done.wait(kStormTimeoutMs));
  const auto marks = controller_->model().quotaMarks();
  QCOMPARE(marks.size(), std::size_t{2});
  QCOMPARE(marks[1].quota.limit, 10);
  QCOMPARE(window_->lanesPanel()->lanes()[0]->markPoints(), 1);
  // One full window after the change, the new limit holds. The client clock
  // decides on this machine's time, which the lanes record too (a few us
  // apart); windows 10 ms shorter than the limiter's absorb that and the
  // concurrent sends' order. Admissions come in bursts of 10 once a second,
  // so a window still sees 10. (Under Redis TIME a loaded machine delays the
  // scripts by tens of ms after the recorded send time: the window would drift.)
  const auto& samples = controller_->model().samples(0);
  QVERIFY(samples.back().t > marks[1].t + 1'000'000);
  QCOMPARE(maxAdmittedInWindowAfter(samples, marks[1].t + 1'000'000, 990'000), 10);
}

void UiStormsTest::outagePresetComparesThePoliciesSideBySide() {
  // outage.json: the managed server stops at 1 s and restarts at 2 s while the same storm
  // runs once per policy (open, closed, local), each with its own keys: one lane each.
  QSignalSpy server(controller_.get(), &WorkerController::serverChanged);
  QSignalSpy status(controller_.get(), &WorkerController::redisStatus);
  controller_->startServer();  // the window's own managed server: the preset stops and restarts it
  QVERIFY(status.wait(15'000));
  QVERIFY(!server.isEmpty());
  QVERIFY(window_->connectionPanel()->url().startsWith(QStringLiteral("redis://127.0.0.1:")));
  window_->applyPreset(*findPreset(QStringLiteral("outage")));
  QSignalSpy done(window_.get(), &MainWindow::stormDone);
  QSignalSpy message(controller_.get(), &WorkerController::message);
  QVERIFY(window_->startStorm());
  QVERIFY(done.wait(kStormTimeoutMs));
  // The experiment's fault schedule (kill@1000,restart@2000) was done to the managed server.
  QTRY_VERIFY_WITH_TIMEOUT(std::any_of(message.begin(), message.end(), [](const QList<QVariant>& m) {
                             return m.at(0).toString().startsWith(QStringLiteral("Faults done: kill@1000 at"));
                           }), 15'000);
  const QList<LaneChart*> lanes = window_->lanesPanel()->lanes();
  QCOMPARE(lanes.size(), 3);
  const FailurePolicy order[] = {FailurePolicy::Open, FailurePolicy::Closed, FailurePolicy::Local};
  QTableWidget* t = window_->summaryPanel()->table();
  QCOMPARE(t->rowCount(), 3);
  for (int i = 0; i < 3; ++i) {
    const QString policy = QString::fromUtf8(failurePolicyName(order[i]).data());
    const QString label = QStringLiteral("sliding_log \u00b7 ") + (i == 2 ? QStringLiteral("local") : QStringLiteral("fail-") + policy);
    QCOMPARE(lanes[i]->policy(), order[i]);
    // The title names algorithm, backend and variant.
    const QString heading = QStringLiteral("sliding_log \u00b7 redis-lua \u00b7 ") + label.section(QStringLiteral(" \u00b7 "), 1);
    QCOMPARE(lanes[i]->heading(), heading);
    QVERIFY2(lanes[i]->chart()->title().startsWith(heading), qPrintable(lanes[i]->chart()->title()));
    QCOMPARE(cell(t, i, 0), label);
    const int offered = cell(t, i, 1).toInt();
    const int errors = cell(t, i, 4).toInt();
    QCOMPARE(offered, 525);  // 150 per second for 3.5 s, in every lane
    QVERIFY2(errors > 0 && errors < offered, qPrintable(QStringLiteral("%1: %2 errors").arg(policy).arg(errors)));
    QCOMPARE(cell(t, i, 2).toInt() + cell(t, i, 3).toInt(), offered);
    const LanePoints lane = controller_->model().build(i, 1000, controller_->spanUs());
    QCOMPARE(lane.errors, errors);
    qInfo("%s: %d errors, the policy admitted %lld and denied %lld; admitted %s, overshoot %s", qPrintable(policy),
          errors, static_cast<long long>(lane.openErrors), static_cast<long long>(lane.closedErrors),
          qPrintable(cell(t, i, 2)), qPrintable(cell(t, i, 6)));
  }
  // Open admits every store error, closed denies every one: one band each, named for its policy.
  QCOMPARE(controller_->model().build(0, 1000, controller_->spanUs()).closedErrors, 0);
  QCOMPARE(controller_->model().build(1, 1000, controller_->spanUs()).openErrors, 0);
  QVERIFY(lanes[0]->openErrorPoints() > 0 && lanes[0]->closedErrorPoints() == 0);
  QVERIFY(lanes[1]->closedErrorPoints() > 0 && lanes[1]->openErrorPoints() == 0);
  QCOMPARE(lanes[0]->bandName(true), QStringLiteral("admitted by fail-open (store error)"));
  QCOMPARE(lanes[1]->bandName(false), QStringLiteral("denied by fail-closed (store error)"));
  // Local decides with each replica's memory limiter: it admits and denies, and is never
  // labelled fail-open or fail-closed. One client at 150/s, sliding_log 5 per second on 2
  // replicas: at most 2 x 5 in any 1 s of the outage.
  const LanePoints local = controller_->model().build(2, 1000, controller_->spanUs());
  std::int64_t first = -1, last = -1;
  for (const LaneSample& x : controller_->model().samples(2))
    if (x.error) {
      if (first < 0) first = x.t;
      last = x.t;
    }
  const std::int64_t windows = (last - first) / 1'000'000 + 2;
  QVERIFY(local.openErrors > 0 && local.closedErrors > 0);
  QVERIFY2(local.openErrors <= 2 * 5 * windows,
           qPrintable(QStringLiteral("%1 admitted over %2 windows").arg(local.openErrors).arg(windows)));
  QCOMPARE(lanes[2]->bandName(true), QStringLiteral("admitted by the local limiter (store error)"));
  QCOMPARE(lanes[2]->bandName(false), QStringLiteral("denied by the local limiter (store error)"));
  QVERIFY2(lanes[2]->chart()->title().contains(QStringLiteral("the local limiter admitted")),
           qPrintable(lanes[2]->chart()->title()));
  QVERIFY(!lanes[2]->chart()->title().contains(QStringLiteral("fail-")));
}

void UiStormsTest::servingOverHttpFeedsTheLanes() {
  // Token bucket, capacity 5, refill 0.01/s, two memory replicas: each replica
  // keeps its own bucket, so ten requests of one client get 5 + 5 = 10 x 200,
  // the next ones 429; the lanes hold one sample per HTTP decision.
  window_->stormPanel()->setSpec(test::servedBucket(Backend::Memory));
  // The front is the user's choice; nginx (a child process) is what a real deployment puts there.
  auto* front = window_->stormPanel()->findChild<QComboBox*>(QStringLiteral("serveFront"));
  QVERIFY(front != nullptr);
  QCOMPARE(front->count(), 3);
  const QString frontUrl = test::serveFromWindow(*window_, *controller_, QStringLiteral("nginx"));
  QVERIFY2(frontUrl.startsWith(QStringLiteral("http://127.0.0.1:")), qPrintable(frontUrl));
  QVERIFY(window_->stormPanel()->serveButton()->isChecked());
  QVERIFY(!window_->stormPanel()->startButton()->isEnabled());
  auto target = parseHttpUrl(frontUrl.toStdString());
  QVERIFY(target.ok());
  HttpClient client(*target);
  int ok = 0, limited = 0;
  for (int i = 0; i < 14; ++i) {
    const int status = test::pingAs(client, "gui-test");
    QVERIFY2(status > 0, "no answer");
    ok += status == 200;
    limited += status == 429;
  }
  QCOMPARE(ok, 10);
  QCOMPARE(limited, 4);
  QTRY_COMPARE_WITH_TIMEOUT(controller_->model().size(), std::size_t{14}, 10'000);
  QTRY_VERIFY_WITH_TIMEOUT(window_->lanesPanel()->lanes().front()->admittedPoints() > 0, 10'000);
  QCOMPARE(window_->lanesPanel()->lanes().size(), 1);
  QSignalSpy serving(controller_.get(), &WorkerController::servingChanged);
  QTest::mouseClick(window_->stormPanel()->serveButton(), Qt::LeftButton);  // stop
  QVERIFY(serving.wait(10'000));
  QVERIFY(!serving.takeFirst().at(0).toBool());
  QVERIFY(window_->stormPanel()->startButton()->isEnabled());
}

void UiStormsTest::faultScheduleRunsOnTheManagedServer() {
  // A scenario's fault schedule in the window: oom from 300 to 900 ms on the
  // window's managed server, 200 requests/s for 1.5 s, fail-closed. Every write
  // in the window fails with OOM and is denied by the policy; before and after,
  // Redis decides (the limit is far away: all admitted).
  QSignalSpy status(controller_.get(), &WorkerController::redisStatus);
  controller_->startServer();
  QVERIFY(status.wait(15'000));
  StormSpec spec;
  spec.algorithms = {Algorithm::FixedWindow};
  spec.backend = Backend::RedisLua;
  spec.quota = Quota::perWindow(100'000, 60 * kSecond);
  spec.pattern = Pattern::Constant;
  spec.rate = 200;
  spec.requests = 300;
  spec.clock = ClockMode::Client;
  spec.faults = parseFaultSchedule("oom@300:900").value();
  spec.redisUrl = window_->connectionPanel()->url().toStdString();  // the storm runs on the managed server
  QTRY_VERIFY_WITH_TIMEOUT(controller_->faultRefusal(spec).isEmpty(), 10'000);  // knows its server runs
  window_->stormPanel()->setSpec(spec);
  window_->connectionPanel()->setPolicy(FailurePolicy::Closed);
  QSignalSpy done(window_.get(), &MainWindow::stormDone);
  QSignalSpy message(controller_.get(), &WorkerController::message);
  QVERIFY(window_->startStorm());
  QVERIFY(done.wait(kStormTimeoutMs));
  QTableWidget* t = window_->summaryPanel()->table();
  const int admitted = cell(t, 0, 2).toInt();
  const int denied = cell(t, 0, 3).toInt();
  const int errors = cell(t, 0, 4).toInt();
  QCOMPARE(admitted + denied, 300);
  QCOMPARE(denied, errors);  // only the policy denied: each one a store error in the fault
  QVERIFY2(errors >= 60 && errors <= 180, qPrintable(QStringLiteral("%1 errors in a 600 ms oom at 200/s").arg(errors)));
  QTRY_VERIFY_WITH_TIMEOUT(std::any_of(message.begin(), message.end(), [](const QList<QVariant>& m) {
                             return m.at(0).toString().startsWith(QStringLiteral("Faults done: oom@300:900 begin at"));
                           }), 10'000);
}

QTEST_MAIN(UiStormsTest)
#include "test_ui_storms.moc"
