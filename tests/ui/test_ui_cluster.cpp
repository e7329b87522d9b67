// The window on a Redis Cluster, offscreen with real widgets: the word
// `cluster` in the Connection panel starts a private 3 masters + 3 replicas
// cluster on the Redis worker's thread (free loopback ports, temp dirs) and
// puts its seed URL in the URL field; a virtual-clock storm on redis-lua with
// 12 clients admits exactly what the in-memory store admits; the inspector
// lists every key with the master that holds it and counts keys per master
// (equal to DBSIZE on each); the TTL chart samples; delete prefix empties
// every master; the race lab holds its limit; HTTP replicas served from the
// window share one bucket per client; a second `cluster` reuses the
// running one, and closing the window stops the nodes and removes their dirs.

#include <QtTest>

#include <QLineEdit>
#include <QPushButton>
#include <QTableWidget>
#include <QTreeWidget>
#include <map>

#include "redis/cluster/key_slot.hpp"
#include "redis/cluster/slot_map.hpp"
#include "redis/redis_connection.hpp"
#include "redis/redis_url.hpp"
#include "support/window_serving.hpp"
#include "ui/panels/lanes_panel.hpp"
#include "ui/charts/ttl_chart.hpp"
#include "ui/main_window.hpp"
#include "ui/panels/connection_panel.hpp"
#include "ui/panels/key_inspector_panel.hpp"
#include "ui/panels/race_lab_panel.hpp"
#include "ui/panels/storm_panel.hpp"
#include "ui/workers/worker_controller.hpp"

using namespace rl;
using namespace rl::ui;

namespace {
constexpr int kWaitMs = 60'000;
constexpr int kClients = 12;          ///< 36 base keys: every master gets some (a miss: 3 x (2/3)^36)
constexpr int kPerClient = 25;        ///< requests per client, all in one burst
constexpr std::int64_t kLimit = 10;   ///< per client per minute: nothing expires during the test

QString cell(QTableWidget* t, int row, int column) {
  auto* item = t->item(row, column);
  return item ? item->text() : QString();
}

StormSpec clusterStorm(Backend backend) {
  StormSpec spec;
  spec.algorithms = {Algorithm::TokenBucket, Algorithm::SlidingLog, Algorithm::Gcra};
  spec.backend = backend;
  spec.quota = Quota::perWindow(kLimit, 60 * kSecond);
  spec.pattern = Pattern::Burst;
  spec.clients = kClients;
  spec.requests = kClients * kPerClient;
  spec.concurrency = 4;
  spec.clock = ClockMode::Virtual;
  return spec;
}

/// "Per master: a:1: 4 keys, b:2: 1 key" -> {a:1: 4, b:2: 1}.
std::map<std::string, std::int64_t> perMaster(const QString& line) {
  std::map<std::string, std::int64_t> out;
  static const QRegularExpression part(QStringLiteral("(\\d+\\.\\d+\\.\\d+\\.\\d+:\\d+): (\\d+) keys?"));
  for (auto it = part.globalMatch(line); it.hasNext();) {
    const auto m = it.next();
    out[m.captured(1).toStdString()] = m.captured(2).toLongLong();
  }
  return out;
}
}  // namespace

class UiClusterTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase();
  void clusterWordStartsAPrivateCluster();
  void stormOnTheClusterAdmitsWhatMemoryAdmits();
  void inspectorShowsEveryKeyOnItsMaster();
  void deletePrefixEmptiesEveryMaster();
  void raceLabHoldsItsLimitOnTheCluster();
  void servingOverHttpSharesTheLimitOnTheCluster();
  void unreachableClusterIsOneSentenceAndTheWordReusesTheRunningOne();
  void cleanupTestCase();

 private:
  void runStorm(Backend backend);
  void scan();
  /// DBSIZE of every master (host:port -> keys).
  std::map<std::string, std::int64_t> dbsizes();
  std::unique_ptr<WorkerController> controller_;
  std::unique_ptr<MainWindow> window_;
  QString url_;                                    ///< the private cluster's seed URL
  std::vector<std::int64_t> memoryAdmitted_;       ///< per algorithm, the in-memory run
};

void UiClusterTest::initTestCase() {
  QStandardPaths::setTestModeEnabled(true);
  controller_ = std::make_unique<WorkerController>();
  window_ = std::make_unique<MainWindow>(*controller_);
  window_->resize(1400, 900);
  window_->show();
  QVERIFY(QTest::qWaitForWindowExposed(window_.get()));
  window_->keyInspectorPanel()->setConfirm([](const QString&) { return true; });
}

void UiClusterTest::clusterWordStartsAPrivateCluster() {
  QSignalSpy status(controller_.get(), &WorkerController::redisStatus);
  QSignalSpy server(controller_.get(), &WorkerController::serverChanged);
  ConnectionPanel* panel = window_->connectionPanel();
  QVERIFY(panel->findChild<QLineEdit*>(QStringLiteral("redisUrl"))->toolTip().contains(QStringLiteral("cluster:")));
  panel->setUrl(QStringLiteral("cluster"));
  panel->findChild<QPushButton*>(QStringLiteral("connectRedis"))->click();
  QTRY_VERIFY_WITH_TIMEOUT(!status.isEmpty() && !status.back().front().value<RedisStatus>().starting, kWaitMs);
  QVERIFY2(panel->statusText().startsWith(QStringLiteral("connected to a Redis Cluster of 3 masters")),
           qPrintable(panel->statusText()));
  // While it formed, the status said so (the worker's thread formed it, the GUI thread went on).
  QVERIFY(status.size() >= 2);
  const auto first = status.front().front().value<RedisStatus>();
  QVERIFY(first.starting);
  QVERIFY2(first.error.startsWith(QStringLiteral("starting a private Redis Cluster")), qPrintable(first.error));
  // The seed URL replaced the word: every node is a seed.
  QCOMPARE(server.size(), 1);
  url_ = panel->url();
  QVERIFY2(url_.startsWith(QStringLiteral("redis+cluster://127.0.0.1:")), qPrintable(url_));
  QCOMPARE(url_.count(QLatin1Char(',')), 5);
  QCOMPARE(server.front().front().value<ServerState>().url, url_);
  QCOMPARE(status.back().front().value<RedisStatus>().masters, 3);
}

void UiClusterTest::runStorm(Backend backend) {
  window_->stormPanel()->setSpec(clusterStorm(backend));
  QSignalSpy done(window_.get(), &MainWindow::stormDone);
  QSignalSpy errors(controller_.get(), &WorkerController::errorOccurred);
  QVERIFY2(window_->startStorm(), qPrintable(window_->stormPanel()->errorText()));
  QVERIFY(done.wait(kWaitMs));
  QVERIFY2(errors.isEmpty(), qPrintable(errors.isEmpty() ? QString() : errors.front().front().toString()));
}

void UiClusterTest::stormOnTheClusterAdmitsWhatMemoryAdmits() {
  QVERIFY(!url_.isEmpty());
  runStorm(Backend::Memory);
  if (QTest::currentTestFailed()) return;
  for (const AlgorithmResult& r : controller_->lastResult().algorithms) memoryAdmitted_.push_back(r.admitted);
  QCOMPARE(memoryAdmitted_.size(), std::size_t{3});
  QCOMPARE(memoryAdmitted_[1], kClients * kLimit);  // sliding_log: exactly the limit per client
  runStorm(Backend::RedisLua);
  if (QTest::currentTestFailed()) return;
  const StormResult& r = controller_->lastResult();
  QCOMPARE(r.algorithms.size(), std::size_t{3});
  for (std::size_t i = 0; i < r.algorithms.size(); ++i) {
    QCOMPARE(r.algorithms[i].errors, 0);
    QCOMPARE(r.algorithms[i].offered, kClients * kPerClient);
    QCOMPARE(r.algorithms[i].admitted, memoryAdmitted_[i]);
  }
  // A fault schedule is done to the managed single server only: refused on the cluster, in one sentence.
  StormSpec faulty = clusterStorm(Backend::RedisLua);
  faulty.redisUrl = url_.toStdString();
  FaultEvent kill;
  kill.at = Micros{100'000};
  faulty.faults = {kill};
  QVERIFY2(controller_->faultRefusal(faulty).contains(QStringLiteral("would run on a Redis Cluster")),
           qPrintable(controller_->faultRefusal(faulty)));
  // The TTL chart sampled client-0's keys, each on the master of its slot.
  TtlChart* ttl = window_->lanesPanel()->ttlChart();
  QTRY_VERIFY_WITH_TIMEOUT(ttl->points(0) > 0 && ttl->points(1) > 0 && ttl->points(2) > 0, 10'000);
}

void UiClusterTest::scan() {
  QSignalSpy keys(controller_.get(), &WorkerController::keysReady);
  window_->keyInspectorPanel()->refresh();
  QVERIFY(keys.wait(10'000));
}

std::map<std::string, std::int64_t> UiClusterTest::dbsizes() {
  std::map<std::string, std::int64_t> out;
  const auto ep = parseRedisUrl(url_.toStdString());
  if (!ep) return out;
  auto map = fetchSlotMap(*ep);
  if (!map) return out;
  for (const ClusterNode& m : map->masters()) {
    auto conn = RedisConnection::connect(ep->node(m.host, m.port));
    if (!conn) continue;
    if (auto n = conn->command({"DBSIZE"})) out[m.address()] = n->integer();
  }
  return out;
}

void UiClusterTest::inspectorShowsEveryKeyOnItsMaster() {
  QVERIFY(!memoryAdmitted_.empty());
  KeyInspectorPanel* inspector = window_->keyInspectorPanel();
  inspector->setPrefix(QStringLiteral("ratelab:"));
  scan();
  if (QTest::currentTestFailed()) return;
  QCOMPARE(inspector->keyCount(), 3 * kClients);  // one key per algorithm and client
  QTreeWidget* tree = inspector->tree();
  QVERIFY(!tree->isColumnHidden(4));
  QCOMPARE(tree->headerItem()->text(4), QStringLiteral("node"));
  QCOMPARE(tree->headerItem()->text(5), QStringLiteral("slot"));
  const auto ep = parseRedisUrl(url_.toStdString());
  QVERIFY(ep.ok());
  auto map = fetchSlotMap(*ep);
  QVERIFY(map.ok());
  const std::string tag = controller_->spec().runTag;
  std::map<std::string, std::int64_t> listed;
  for (int i = 0; i < tree->topLevelItemCount(); ++i) {
    QTreeWidgetItem* item = tree->topLevelItem(i);
    const std::string name = item->text(0).toStdString();
    QVERIFY2(name.find(tag) != std::string::npos, name.c_str());  // this storm's keys only
    const int slot = keySlot(name);
    QCOMPARE(item->text(5).toInt(), slot);
    QCOMPARE(item->text(4).toStdString(), map->masters()[static_cast<std::size_t>(map->masterOf(slot))].address());
    QVERIFY(item->data(2, Qt::UserRole + 1).toLongLong() > 0);  // a living key with a TTL
    ++listed[item->text(4).toStdString()];
  }
  // The count line: every master, its count equal to what the tree lists and to DBSIZE there.
  const auto counted = perMaster(inspector->mastersText());
  QCOMPARE(counted.size(), std::size_t{3});
  QCOMPARE(listed.size(), std::size_t{3});  // the keys landed on all three masters
  std::int64_t sum = 0;
  for (const auto& [node, n] : counted) {
    QVERIFY2(n > 0, node.c_str());
    QCOMPARE(n, listed[node]);
    sum += n;
  }
  QCOMPARE(sum, std::int64_t{inspector->keyCount()});
  QCOMPARE(dbsizes(), counted);
}

void UiClusterTest::deletePrefixEmptiesEveryMaster() {
  KeyInspectorPanel* inspector = window_->keyInspectorPanel();
  QVERIFY(inspector->keyCount() > 0);
  QSignalSpy deleted(controller_.get(), &WorkerController::keysDeleted);
  QSignalSpy keys(controller_.get(), &WorkerController::keysReady);
  inspector->findChild<QPushButton*>(QStringLiteral("deletePrefix"))->click();
  QVERIFY(deleted.wait(10'000));
  QCOMPARE(deleted.front().front().toLongLong(), 3 * kClients);
  QVERIFY(keys.wait(10'000));  // the rescan after a deletion
  QCOMPARE(inspector->keyCount(), 0);
  const auto counted = perMaster(inspector->mastersText());
  QCOMPARE(counted.size(), std::size_t{3});
  for (const auto& [node, n] : counted) QCOMPARE(n, 0);
  const auto sizes = dbsizes();
  QCOMPARE(sizes.size(), std::size_t{3});
  for (const auto& [node, n] : sizes) QCOMPARE(n, 0);
}

void UiClusterTest::raceLabHoldsItsLimitOnTheCluster() {
  QSignalSpy done(window_.get(), &MainWindow::raceDone);
  QTest::mouseClick(window_->raceLabPanel()->runButton(), Qt::LeftButton);  // capacity 10, 20 connections, on the cluster URL
  QVERIFY(done.wait(kWaitMs));
  QTableWidget* t = window_->raceLabPanel()->table();
  // The atomic variants (rows 1 and 2): fewest and most admitted per round both exactly the capacity.
  const QStringList atomic{QStringLiteral("watch"), QStringLiteral("lua")};
  for (int row = 1; row <= 2; ++row) {
    QCOMPARE(cell(t, row, 0), atomic[row - 1]);
    QCOMPARE(cell(t, row, 1).toInt(), 10);
    QCOMPARE(cell(t, row, 2).toInt(), 10);
  }
  QCOMPARE(cell(t, 2, 3), QStringLiteral("0"));  // lua: no round over the limit
}

void UiClusterTest::servingOverHttpSharesTheLimitOnTheCluster() {
  // Token bucket, capacity 5, two replicas on the cluster URL: one bucket per
  // client shared by both replicas, so 8 requests of each of 3 clients get 5 x 200.
  window_->stormPanel()->setSpec(test::servedBucket(Backend::RedisLua));
  const QString front = test::serveFromWindow(*window_, *controller_, QStringLiteral("builtin"));
  auto target = parseHttpUrl(front.toStdString());
  QVERIFY2(target.ok(), qPrintable(front));
  HttpClient client(*target);
  for (const std::string key : {"alice", "bob", "carol"}) {
    int ok = 0;
    for (int i = 0; i < 8; ++i) {
      const int status = test::pingAs(client, key);
      QVERIFY2(status == 200 || status == 429, qPrintable(QString::number(status)));
      ok += status == 200;
    }
    QCOMPARE(ok, 5);
  }
  QSignalSpy serving(controller_.get(), &WorkerController::servingChanged);
  QTest::mouseClick(window_->stormPanel()->serveButton(), Qt::LeftButton);  // stop
  QVERIFY(serving.wait(10'000));
}

void UiClusterTest::unreachableClusterIsOneSentenceAndTheWordReusesTheRunningOne() {
  ConnectionPanel* panel = window_->connectionPanel();
  QSignalSpy status(controller_.get(), &WorkerController::redisStatus);
  controller_->connectRedis(QStringLiteral("redis+cluster://127.0.0.1:1"));
  QVERIFY(status.wait(10'000));
  QVERIFY2(panel->statusText().startsWith(QStringLiteral("not connected: ")), qPrintable(panel->statusText()));
  QVERIFY2(panel->statusText().contains(QStringLiteral("127.0.0.1:1")), qPrintable(panel->statusText()));
  // The word again: the running cluster, at once (no "starting" status), same seed URL.
  status.clear();
  QSignalSpy server(controller_.get(), &WorkerController::serverChanged);
  controller_->connectRedis(QStringLiteral("cluster"));
  QVERIFY(status.wait(10'000));
  QCOMPARE(status.size(), 1);
  QVERIFY(!status.front().front().value<RedisStatus>().starting);
  QCOMPARE(server.size(), 1);
  QCOMPARE(server.front().front().value<ServerState>().url, url_);
  QCOMPARE(panel->url(), url_);
  QVERIFY2(panel->statusText().startsWith(QStringLiteral("connected to a Redis Cluster of 3 masters")),
           qPrintable(panel->statusText()));
}

void UiClusterTest::cleanupTestCase() {
  // Closing the window destroys the Redis worker: every node stops and its dir goes.
  std::vector<std::pair<RedisEndpoint, QString>> nodes;
  if (const auto ep = parseRedisUrl(url_.toStdString()); ep) {
    for (const RedisEndpoint& seed : clusterSeeds(*ep)) {
      auto conn = RedisConnection::connect(seed);
      QVERIFY(conn.ok());
      auto dir = conn->command({"CONFIG", "GET", "dir"});
      QVERIFY(dir.ok());
      nodes.emplace_back(seed, QString::fromStdString(std::string((*dir)[1].str())));
    }
  }
  QCOMPARE(nodes.size(), std::size_t{6});
  window_.reset();
  controller_.reset();
  for (const auto& [seed, dir] : nodes) {
    QVERIFY2(!QFileInfo::exists(dir), qPrintable(dir));
    QVERIFY2(!RedisConnection::connect(seed).ok(), seed.address().c_str());
  }
}

QTEST_MAIN(UiClusterTest)
#include "test_ui_cluster.moc"
