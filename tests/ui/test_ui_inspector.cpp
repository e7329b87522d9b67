// The key inspector in the window, against real redis-servers started here: it
// rescans when the window connects elsewhere, keeps the selected key and its
// explanation through auto-refreshes (and says when it is gone), warns about a
// key without a TTL, reads RateLab's keys of the window's own storm with that
// storm's quota, reads ZSET logs in ms and s and the seed script's hash, browses
// every key with an empty prefix in pages up to its cap, and shows TTLs in human
// units and no CLI flag anywhere.

#include <QtTest>

#include <QCheckBox>
#include <QLineEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QTreeWidget>

#include "redis/key_inspector.hpp"
#include "support/redis_test_server.hpp"
#include "ui/main_window.hpp"
#include "ui/panels/connection_panel.hpp"
#include "ui/panels/key_inspector_panel.hpp"
#include "ui/panels/storm_panel.hpp"
#include "ui/workers/worker_controller.hpp"

using namespace rl;
using namespace rl::ui;

namespace {
QString urlOf(const test::RedisTestServer& s) { return QStringLiteral("redis://127.0.0.1:%1").arg(s.endpoint().port); }

QTreeWidgetItem* row(KeyInspectorPanel* p, const QString& name) {
  for (int i = 0; i < p->tree()->topLevelItemCount(); ++i)
    if (p->tree()->topLevelItem(i)->text(0) == name) return p->tree()->topLevelItem(i);
  return nullptr;
}

QStringList names(KeyInspectorPanel* p) {
  QStringList out;
  for (int i = 0; i < p->tree()->topLevelItemCount(); ++i) out << p->tree()->topLevelItem(i)->text(0);
  out.sort();
  return out;
}

void command(const test::RedisTestServer& s, const std::vector<std::string>& argv) {
  auto c = s.connect();
  QVERIFY(c);
  auto r = c->command(argv);
  QVERIFY2(r, r ? "" : r.error().message.c_str());
}
}  // namespace

class UiInspectorTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }
  void init();
  void cleanup();
  void rescansOnConnect();
  void keepsTheWatchedKeyAcrossRefreshes();
  void keyWithoutTtlIsAWarning();
  void ownStormKeysReadWithTheirQuota();
  void zsetLogsAndTheSeedHash();
  void emptyPrefixBrowsesEveryKeyInPagesUpToTheCap();

 private:
  void connectTo(const QString& url);
  void scan(const QString& prefix);
  KeyInspectorPanel* inspector() const { return window_->keyInspectorPanel(); }
  std::unique_ptr<test::RedisTestServer> redis_;
  std::unique_ptr<WorkerController> controller_;
  std::unique_ptr<MainWindow> window_;
};

void UiInspectorTest::init() {
  redis_ = std::make_unique<test::RedisTestServer>();
  RL_REQUIRE_REDIS(*redis_);
  controller_ = std::make_unique<WorkerController>();
  window_ = std::make_unique<MainWindow>(*controller_);
  window_->resize(1400, 900);
  window_->show();
  QVERIFY(QTest::qWaitForWindowExposed(window_.get()));
}

void UiInspectorTest::cleanup() {
  window_.reset();
  controller_.reset();
  redis_.reset();
}

void UiInspectorTest::connectTo(const QString& url) {
  QSignalSpy pages(controller_.get(), &WorkerController::keysReady);
  window_->connectionPanel()->setUrl(url);
  QTest::mouseClick(window_->connectionPanel()->findChild<QPushButton*>(QStringLiteral("connectRedis")), Qt::LeftButton);
  QVERIFY(pages.wait(10'000));  // the inspector rescans on its own
  QVERIFY2(window_->connectionPanel()->statusText().startsWith(QStringLiteral("connected to ") + url),
           qPrintable(window_->connectionPanel()->statusText()));
}

void UiInspectorTest::scan(const QString& prefix) {
  QSignalSpy pages(controller_.get(), &WorkerController::keysReady);
  inspector()->setPrefix(prefix);
  inspector()->refresh();
  QVERIFY(pages.wait(10'000));
}

void UiInspectorTest::rescansOnConnect() {
  test::RedisTestServer other;
  RL_REQUIRE_REDIS(other);
  command(*redis_, {"SET", "ratelab:{fixed_window:first}", "1", "PX", "60000"});
  command(other, {"SET", "ratelab:{fixed_window:second}", "2", "PX", "60000"});
  connectTo(urlOf(*redis_));
  QCOMPARE(names(inspector()), QStringList{"ratelab:{fixed_window:first}"});
  QCOMPARE(inspector()->statusText(), QStringLiteral("1 key under ratelab:"));
  QSignalSpy status(controller_.get(), &WorkerController::redisStatus);
  connectTo(urlOf(other));
  QCOMPARE(names(inspector()), QStringList{"ratelab:{fixed_window:second}"});  // no key of the first server left
}

void UiInspectorTest::keepsTheWatchedKeyAcrossRefreshes() {
  command(*redis_, {"SET", "ratelab:{fixed_window:watched}", "4", "PX", "60000"});
  command(*redis_, {"SET", "ratelab:{fixed_window:other}", "1", "PX", "60000"});
  connectTo(urlOf(*redis_));
  QTreeWidgetItem* item = row(inspector(), "ratelab:{fixed_window:watched}");
  QVERIFY(item);
  item->setSelected(true);
  const QString detail = inspector()->detailText();
  QVERIFY2(detail.startsWith(QStringLiteral("RateLab · fixed_window\n4 used in this window; the key expires in ")),
           qPrintable(detail));
  command(*redis_, {"INCR", "ratelab:{fixed_window:watched}"});
  QSignalSpy pages(controller_.get(), &WorkerController::keysReady);
  inspector()->autoRefresh()->setChecked(true);
  QVERIFY(pages.wait(5'000));
  QVERIFY(pages.wait(5'000));  // two auto-refreshes: the selection and its explanation stay, up to date
  QVERIFY(row(inspector(), "ratelab:{fixed_window:watched}")->isSelected());
  QVERIFY2(inspector()->detailText().startsWith(QStringLiteral("RateLab · fixed_window\n5 used in this window; ")),
           qPrintable(inspector()->detailText()));
  command(*redis_, {"DEL", "ratelab:{fixed_window:watched}"});
  QVERIFY(pages.wait(5'000));
  QVERIFY2(inspector()->detailText().startsWith(QStringLiteral("ratelab:{fixed_window:watched} is gone (expired or "
                                                               "deleted) at the rescan of ")),
           qPrintable(inspector()->detailText()));
  QVERIFY(inspector()->detailText().contains(QStringLiteral("As last read:\n\nRateLab · fixed_window\n5 used")));
  inspector()->autoRefresh()->setChecked(false);
}

void UiInspectorTest::keyWithoutTtlIsAWarning() {
  command(*redis_, {"SET", "LIMITER/bob/10/1/minute", "3"});
  command(*redis_, {"SET", "LIMITER/amy/10/1/minute", "2", "PX", "192000"});
  connectTo(urlOf(*redis_));
  scan(QStringLiteral("LIMITER/"));
  QTreeWidgetItem* bob = row(inspector(), "LIMITER/bob/10/1/minute");
  QTreeWidgetItem* amy = row(inspector(), "LIMITER/amy/10/1/minute");
  QVERIFY(bob && amy);
  QCOMPARE(bob->text(2), QStringLiteral("no TTL"));
  QVERIFY(bob->toolTip(2).startsWith(QStringLiteral("No TTL: this key never expires")));
  QVERIFY2(QRegularExpression(QStringLiteral("^3 min 1[12] s$")).match(amy->text(2)).hasMatch(), qPrintable(amy->text(2)));
  bob->setSelected(true);
  QVERIFY(inspector()->detailText().endsWith(QStringLiteral(" (the PTTL column counts down from then).")));
  QCOMPARE(inspector()->detailText().section(QStringLiteral("\n\nRead at "), 0, 0),
           QStringLiteral("Warning: No TTL: this key never expires, so its count never resets and its client stays "
                          "locked out once it reaches the limit. Set the expiry in the same write (SET ... PX, or "
                          "PEXPIRE in the same script).\n"
                          "limits (Python) · fixed-window\n"
                          "limits fixed window (or fixed window with elastic expiry: same key), 10 per minute: 3 used, 7 "
                          "left; the window never resets: the key has no TTL.\n"
                          "limit 10 · used 3 · never resets (no TTL)\n\n"
                          "Raw (string, no TTL):\n3"));
}

void UiInspectorTest::ownStormKeysReadWithTheirQuota() {
  // Five requests at once, limit 10 per minute, on every algorithm: each key of this storm
  // reads "5 of 10" with the storm's quota, whatever the Assume field says.
  connectTo(urlOf(*redis_));
  StormSpec spec;
  spec.algorithms = {Algorithm::FixedWindow, Algorithm::SlidingLog, Algorithm::TokenBucket, Algorithm::LeakyBucket,
                     Algorithm::Gcra};
  spec.backend = Backend::RedisLua;
  spec.quota = Quota::perWindow(10, 60 * kSecond);
  spec.pattern = Pattern::Burst;
  spec.requests = 5;
  spec.clock = ClockMode::Server;
  window_->stormPanel()->setSpec(spec);
  QSignalSpy done(window_.get(), &MainWindow::stormDone);
  QSignalSpy pages(controller_.get(), &WorkerController::keysReady);
  QVERIFY(window_->startStorm());
  QVERIFY(done.wait(30'000));
  QTRY_VERIFY_WITH_TIMEOUT(!pages.isEmpty(), 10'000);  // the inspector rescans after a storm on Redis
  QCOMPARE(inspector()->keyCount(), 5);
  const QString quota = QString::fromStdString(controller_->spec().quota.toString());
  const QMap<QString, QString> words = {{"fixed_window", "5 of 10 used in this window; "},
                                        {"sliding_log", "5 of 10 requests logged; "},
                                        {"token_bucket", "5 tokens of 10, full in "},
                                        {"leaky_bucket", ": 5 of 10 places taken."},
                                        {"gcra", ": 5 of 10 of the burst used."}};
  for (int i = 0; i < inspector()->keyCount(); ++i) {
    QTreeWidgetItem* item = inspector()->tree()->topLevelItem(i);
    inspector()->tree()->clearSelection();
    item->setSelected(true);
    const QString detail = inspector()->detailText();
    const QString algorithm = item->text(0).section(QLatin1Char('{'), 1).section(QLatin1Char(':'), 0, 0);
    QVERIFY2(words.contains(algorithm), qPrintable(item->text(0)));
    QVERIFY2(detail.contains(words[algorithm]), qPrintable(detail));
    QVERIFY2(detail.contains(QStringLiteral("Read with the quota of the storm that wrote it: %1.").arg(quota)), qPrintable(detail));
    QVERIFY2(detail.contains(QStringLiteral("limit 10 · used 5 · resets in ")), qPrintable(detail));
    QVERIFY2(!detail.contains(QStringLiteral("--")) && !detail.contains(QStringLiteral("? tokens")), qPrintable(detail));
  }
  QVERIFY(!inspector()->assume()->toolTip().contains(QStringLiteral("--")));
  QVERIFY(!inspector()->assume()->placeholderText().contains(QStringLiteral("--")));
}

void UiInspectorTest::zsetLogsAndTheSeedHash() {
  auto conn = redis_->connect();
  QVERIFY(conn);
  auto now = serverTimeUs(*conn);
  QVERIFY(now);
  const std::int64_t ms = *now / 1000;
  command(*redis_, {"ZADD", "app:log:{eve}", std::to_string(ms), "m1"});
  command(*redis_, {"PEXPIRE", "app:log:{eve}", "60000"});
  command(*redis_, {"HSET", "app:bucket:{eve}", "tokens", "4", "last_refill", std::to_string(ms / 1000)});
  command(*redis_, {"EXPIRE", "app:bucket:{eve}", "20"});
  connectTo(urlOf(*redis_));
  scan(QStringLiteral("app:"));
  QTreeWidgetItem* log = row(inspector(), "app:log:{eve}");
  QTreeWidgetItem* bucket = row(inspector(), "app:bucket:{eve}");
  QVERIFY(log && bucket);
  QCOMPARE(log->text(3), QStringLiteral("sorted-set log (hand-written Lua)"));
  QCOMPARE(bucket->text(3), QStringLiteral("hash token bucket (seed script)"));
  QCOMPARE(log->childCount(), 1);
  const QString when = QDateTime::fromMSecsSinceEpoch(ms, Qt::UTC).toString(QStringLiteral("yyyy-MM-dd HH:mm:ss.zzz"));
  QCOMPARE(log->child(0)->text(6), QStringLiteral("%1 UTC (score %2 ms)").arg(when).arg(ms));  // not 1970
  bucket->setSelected(true);
  QVERIFY2(inspector()->detailText().contains(QStringLiteral(
               "The key does not hold everything: type limit=N rate=R/s in the Assume field (then Scan) to count it.")),
           qPrintable(inspector()->detailText()));
  inspector()->assume()->setText(QStringLiteral("limit=10 rate=1/s"));
  scan(QStringLiteral("app:"));
  QVERIFY2(inspector()->detailText().contains(QStringLiteral("limit 10 · used ")), qPrintable(inspector()->detailText()));
}

void UiInspectorTest::emptyPrefixBrowsesEveryKeyInPagesUpToTheCap() {
  // 2100 keys: page after page up to the cap of 2000, then the list says where it stopped.
  auto conn = redis_->connect();
  QVERIFY(conn);
  const int total = KeyInspectorPanel::kMaxListed + 100;
  for (int i = 0; i < total; i += 100) {
    std::vector<std::string> argv{"MSET"};
    for (int j = i; j < i + 100; ++j) {
      argv.push_back("bulk:" + std::to_string(j));
      argv.push_back(std::to_string(j));
    }
    QVERIFY(conn->command(argv));
  }
  connectTo(urlOf(*redis_));
  scan(QString());
  QVERIFY(inspector()->keyCount() > 0 && inspector()->keyCount() < total);
  QVERIFY2(inspector()->statusText().endsWith(QStringLiteral(" keys in the whole database (no prefix); more keys: Next page")),
           qPrintable(inspector()->statusText()));
  auto* next = inspector()->findChild<QPushButton*>(QStringLiteral("nextPage"));
  QVERIFY(next && next->isEnabled());
  for (int pages = 0; next->isEnabled() && pages < 100; ++pages) {
    QSignalSpy page(controller_.get(), &WorkerController::keysReady);
    QTest::mouseClick(next, Qt::LeftButton);
    QVERIFY(page.wait(10'000));
  }
  QCOMPARE(inspector()->keyCount(), KeyInspectorPanel::kMaxListed);
  QCOMPARE(inspector()->statusText(), QStringLiteral("2000 keys in the whole database (no prefix); the list stops at 2000 "
                                                     "keys: narrow the prefix or pattern to see the others"));
  // Deleting needs a prefix: an empty one never deletes anything.
  inspector()->setConfirm([](const QString&) { return true; });
  QTest::mouseClick(inspector()->findChild<QPushButton*>(QStringLiteral("deletePrefix")), Qt::LeftButton);
  QCOMPARE(inspector()->statusText(),
           QStringLiteral("The prefix is empty: RateLab never deletes every key; type the prefix to delete"));
  auto size = conn->command({"DBSIZE"});
  QVERIFY(size);
  QCOMPARE(size->integer(), total);
}

QTEST_MAIN(UiInspectorTest)
#include "test_ui_inspector.moc"
