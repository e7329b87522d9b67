// One experiment, one document: every scenario of resources/scenarios run by the
// window (offscreen, real widgets, File > Export summary's document) and by
// `ratelab-cli run --scenario --json` gives the same keys and, on the virtual
// clock, the same numbers. The window also storms a real nginx limit_req through
// the http backend, as the CLI does.
#include <QtTest>

#include <QDir>
#include <QLabel>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>

#include "../support/cli_process.hpp"
#include "../support/nginx_limit_req.hpp"
#include "../support/redis_test_server.hpp"
#include "ui/main_window.hpp"
#include "ui/panels/connection_panel.hpp"
#include "ui/panels/storm_panel.hpp"
#include "ui/panels/summary_panel.hpp"
#include "ui/workers/worker_controller.hpp"

using namespace rl;
using namespace rl::ui;

namespace {
// Figures of the wall clock: they differ between any two runs, on any clock.
const QStringList kTimings = {"duration_ms", "throughput_rps", "latency_us"};

// Keys of `a` and `b` equal, recursively; numbers equal unless `numbers` is false or
// the key is a timing. The first difference is written to `why`.
bool sameDocument(const QJsonValue& a, const QJsonValue& b, bool numbers, const QString& at, QString& why) {
  if (a.type() != b.type()) return why = at + ": " + QString::number(a.type()) + " vs " + QString::number(b.type()), false;
  if (a.isObject()) {
    QJsonObject x = a.toObject(), y = b.toObject();
    if (!numbers)  // a foreign limiter's own clock: whether anything was admitted (and so a worst one) may differ
      for (QJsonObject* o : {&x, &y})
        for (const char* k : {"worst_client", "worst_at_ms"}) o->remove(k);
    if (x.keys() != y.keys())
      return why = at + ": keys " + x.keys().join(',') + " vs " + y.keys().join(','), false;
    for (const QString& k : x.keys())
      if (!kTimings.contains(k) && !sameDocument(x[k], y[k], numbers, at + "." + k, why)) return false;
    return true;
  }
  if (a.isArray()) {
    const QJsonArray x = a.toArray(), y = b.toArray();
    if (x.size() != y.size()) return why = at + ": " + QString::number(x.size()) + " vs " + QString::number(y.size()) + " items", false;
    for (int i = 0; i < x.size(); ++i)
      if (!sameDocument(x[i], y[i], numbers, at + "[" + QString::number(i) + "]", why)) return false;
    return true;
  }
  if (a.isDouble() && !numbers) return true;
  if (a != b) return why = at + ": " + a.toVariant().toString() + " vs " + b.toVariant().toString(), false;
  return true;
}
}  // namespace

class WindowCliParityTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase();
  void sameDocument_data();
  void sameDocument();
  void windowStormsNginxThroughHttp();

 private:
  /// The scenario as both sides run it here: on this test's Redis (and nginx), on the virtual clock.
  QString preparedScenario(const QString& name, bool* exact);
  QByteArray runInWindow(const QString& scenario, QString* summary = nullptr);
  std::unique_ptr<test::RedisTestServer> redis_;
  std::unique_ptr<test::NginxLimitReq> nginx_;
  QTemporaryDir dir_;
  QString url_;
};

void WindowCliParityTest::initTestCase() {
  QStandardPaths::setTestModeEnabled(true);
  redis_ = std::make_unique<test::RedisTestServer>();
  RL_REQUIRE_REDIS(*redis_);
  url_ = QStringLiteral("redis://127.0.0.1:%1").arg(redis_->endpoint().port);
  nginx_ = std::make_unique<test::NginxLimitReq>(QStringLiteral("10r/s"), 5);
  QVERIFY2(nginx_->ok(), qPrintable(nginx_->error()));
}

QString WindowCliParityTest::preparedScenario(const QString& name, bool* exact) {
  QFile in(QStringLiteral(RATELAB_SOURCE_DIR "/resources/scenarios/") + name);
  if (!in.open(QIODevice::ReadOnly)) return {};
  QJsonObject s = QJsonDocument::fromJson(in.readAll()).object();
  // The virtual clock decides at the planned times: both runs are the same run.
  // Faults and failovers happen on the wall clock (and start private clusters):
  // their own tests cover them; here the experiment keeps its variants.
  s[QStringLiteral("clock")] = QStringLiteral("virtual");
  for (const char* wallOnly : {"fault", "failover", "compare_wait_replicas", "redis", "speed"}) s.remove(wallOnly);
  if (s.contains(QStringLiteral("script")))  // relative to the scenario's folder
    s[QStringLiteral("script")] = QStringLiteral(RATELAB_SOURCE_DIR "/resources/scenarios/") + s[QStringLiteral("script")].toString();
  *exact = s[QStringLiteral("backend")].toString() != QStringLiteral("http");  // nginx decides on its own clock
  if (!*exact) s[QStringLiteral("http_target")] = nginx_->url();
  const QString path = dir_.filePath(name);
  QFile out(path);
  if (!out.open(QIODevice::WriteOnly)) return {};
  out.write(QJsonDocument(s).toJson());
  return path;
}

QByteArray WindowCliParityTest::runInWindow(const QString& scenario, QString* summary) {
  WorkerController controller;
  MainWindow window(controller);
  QSignalSpy status(&controller, &WorkerController::redisStatus);
  window.connectionPanel()->setUrl(url_);
  controller.connectRedis(url_);
  if (!status.wait(10'000)) return {};
  if (auto ok = window.loadScenario(scenario); !ok) {
    qWarning("loadScenario: %s", ok.error().message.c_str());
    return {};
  }
  QSignalSpy done(&window, &MainWindow::stormDone);
  if (!window.startStorm()) {
    qWarning("startStorm refused: %s", qPrintable(window.stormPanel()->errorText()));
    return {};
  }
  if (!done.wait(120'000)) return {};
  if (summary) *summary = window.summaryPanel()->caption()->text();
  return window.runDocumentText();
}

void WindowCliParityTest::sameDocument_data() {
  QTest::addColumn<QString>("scenario");
  const QStringList names = QDir(QStringLiteral(RATELAB_SOURCE_DIR "/resources/scenarios")).entryList({"*.json"}, QDir::Files);
  QVERIFY(names.size() >= 11);
  for (const QString& n : names) QTest::newRow(qPrintable(n)) << n;
}

void WindowCliParityTest::sameDocument() {
  QFETCH(QString, scenario);
  bool exact = true;
  const QString path = preparedScenario(scenario, &exact);
  QVERIFY(!path.isEmpty());
  const QByteArray fromWindow = runInWindow(path);
  QVERIFY2(!fromWindow.isEmpty(), "the window's storm did not finish with a document");
  const test::CliRun cli = test::runCli({"run", "--scenario", path, "--redis", url_, "--json"});
  QVERIFY2(cli.exitCode == 0, cli.err.constData());
  const QJsonDocument a = QJsonDocument::fromJson(fromWindow), b = QJsonDocument::fromJson(cli.out);
  QVERIFY(a.isObject() && b.isObject());
  QVERIFY(!a.object()[QStringLiteral("runs")].toArray().isEmpty());
  QString why;
  QVERIFY2(::sameDocument(a.object(), b.object(), exact, QStringLiteral("$"), why), qPrintable(scenario + ": " + why));
  // The experiment's variants are in both: outage.json's three policies, one run each.
  if (scenario == QStringLiteral("outage.json")) {
    QStringList policies;
    for (const QJsonValue& r : a.object()[QStringLiteral("runs")].toArray()) policies << r[QStringLiteral("on_redis_error")].toString();
    QCOMPARE(policies, (QStringList{"open", "closed", "local"}));
  }
}

void WindowCliParityTest::windowStormsNginxThroughHttp() {
  bool exact = true;
  const QString path = preparedScenario(QStringLiteral("nginx_limit_req.json"), &exact);
  QFile f(path);
  QVERIFY(f.open(QIODevice::ReadWrite));
  QJsonObject s = QJsonDocument::fromJson(f.readAll()).object();
  s[QStringLiteral("clock")] = QStringLiteral("client");  // paced at 30/s on the wall clock, as nginx sees it
  f.resize(0);
  f.write(QJsonDocument(s).toJson());
  f.close();
  QString summary;
  const QJsonArray runs = QJsonDocument::fromJson(runInWindow(path, &summary)).object()[QStringLiteral("runs")].toArray();
  QCOMPARE(runs.size(), 2);  // nginx's lane, then RateLab's leaky_bucket on nginx's own arrivals
  const QJsonObject nginx = runs[0].toObject(), model = runs[1].toObject();
  QCOMPARE(nginx[QStringLiteral("backend")].toString(), QStringLiteral("http"));
  QCOMPARE(nginx[QStringLiteral("decided_by")].toString(), QStringLiteral("target"));
  QCOMPARE(model[QStringLiteral("backend")].toString(), QStringLiteral("memory"));
  QCOMPARE(model[QStringLiteral("clock")].toString(), QStringLiteral("virtual"));
  QCOMPARE(model[QStringLiteral("offered")].toInt(), 120);
  QCOMPARE(model[QStringLiteral("decisions_compared_with_target")].toInt(), 120);
  QCOMPARE(nginx[QStringLiteral("offered")].toInt(), 120);
  QCOMPARE(nginx[QStringLiteral("errors")].toInt(), 0);
  // 120 poisson requests at 30/s through rate=10r/s burst=5: about 6 + 10/s x 4 s admitted.
  const int admitted = nginx[QStringLiteral("admitted")].toInt();
  QVERIFY2(admitted >= 35 && admitted <= 60, qPrintable(QString::number(admitted)));
  QVERIFY2(std::abs(admitted - model[QStringLiteral("admitted")].toInt()) <= 3,
           qPrintable(QStringLiteral("nginx %1, leaky_bucket %2").arg(admitted).arg(model[QStringLiteral("admitted")].toInt())));
  // Only requests within about a millisecond of a drain instant can go either way (nginx's clock is whole ms).
  const int differing = model[QStringLiteral("decisions_differing_from_target")].toInt();
  qInfo("nginx admitted %d, leaky_bucket on its arrivals %d, %d of 120 decisions differ", admitted,
        model[QStringLiteral("admitted")].toInt(), differing);
  QVERIFY2(differing <= 12, qPrintable(QStringLiteral("%1 of 120 decisions differ").arg(differing)));
  // The Summary says it under the table, with the document's figures.
  QVERIFY2(summary.contains(QStringLiteral("leaky_bucket on the target's arrivals: %1 of 120 decisions differ from the "
                                           "target's.").arg(differing)),
           qPrintable(summary));
}

QTEST_MAIN(WindowCliParityTest)
#include "test_window_cli_parity.moc"
