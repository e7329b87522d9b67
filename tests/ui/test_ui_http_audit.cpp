// The window's HTTP audit panel, offscreen with real widgets, against a real
// nginx limit_req (rate=10r/s burst=5, started here on a free port): the
// probes' table fills while the audit runs, each row says what the report
// says, and the declared policy and fingerprint equal `ratelab-cli audit
// --json` against the same nginx. A form without a target is one error and
// sends nothing; Export report writes the HTML page.

#include <QtTest>
#include <set>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QTableWidget>
#include <QTemporaryDir>

#include "support/cli_process.hpp"
#include "support/nginx_limit_req.hpp"
#include "ui/charts/chart_lane.hpp"
#include "ui/panels/lanes_panel.hpp"
#include "ui/panels/summary_panel.hpp"
#include "ui/main_window.hpp"
#include "ui/panels/http_audit_panel.hpp"
#include "ui/workers/worker_controller.hpp"

using namespace rl;
using namespace rl::ui;

class UiHttpAuditTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase();
  void aFormWithoutATargetSendsNothing();
  void nginxAuditFillsTheTableAsTheCliReportsIt();
  void stopKeepsWhatWasFound();

 private:
  std::unique_ptr<WorkerController> controller_;
  std::unique_ptr<MainWindow> window_;
  QTemporaryDir dir_;
};

void UiHttpAuditTest::initTestCase() {
  QStandardPaths::setTestModeEnabled(true);
  controller_ = std::make_unique<WorkerController>();
  window_ = std::make_unique<MainWindow>(*controller_);
  window_->resize(1400, 900);
  window_->show();
  window_->raiseDock(QStringLiteral("auditDock"));
}

void UiHttpAuditTest::aFormWithoutATargetSendsNothing() {
  HttpAuditPanel* panel = window_->httpAuditPanel();
  panel->setTarget(QString(), QStringLiteral("x-api-key"), 100, 10);
  QSignalSpy asked(panel, &HttpAuditPanel::runRequested);
  QTest::mouseClick(panel->findChild<QPushButton*>("auditRun"), Qt::LeftButton);
  QCOMPARE(asked.count(), 0);
  QVERIFY(!controller_->httpAuditRunning());
  QCOMPARE(panel->statusText(), QStringLiteral("Target: give the limiter's URL, e.g. http://127.0.0.1:8080/api"));
  panel->setTarget(QStringLiteral("ftp://127.0.0.1/"), QStringLiteral("x-api-key"), 100, 10);
  QTest::mouseClick(panel->findChild<QPushButton*>("auditRun"), Qt::LeftButton);
  QCOMPARE(asked.count(), 0);
  QVERIFY2(panel->statusText().contains(QStringLiteral("ftp://127.0.0.1/")), qPrintable(panel->statusText()));
  QVERIFY(!panel->exportReport(dir_.filePath("none.html")));  // nothing finished: nothing to export
}

void UiHttpAuditTest::nginxAuditFillsTheTableAsTheCliReportsIt() {
  test::NginxLimitReq nginx("10r/s", 5);
  QVERIFY2(nginx.ok(), qPrintable(nginx.error()));
  HttpAuditPanel* panel = window_->httpAuditPanel();
  panel->setTarget(nginx.url(), QStringLiteral("x-api-key"), 600, 30);
  QStringList events;  // checks and the end, in the order they reached the window
  QObject listening;   // the connections end with this test (they hold `events` by reference)
  connect(controller_.get(), &WorkerController::httpAuditCheck, &listening,
          [&](const AuditCheck& c) { events << QString::fromStdString(c.name); });
  connect(controller_.get(), &WorkerController::httpAuditFinished, &listening, [&] { events << QStringLiteral("end"); });
  // Live lanes: after each probe that sent requests, what the lanes drew (the window's slot runs first).
  std::vector<std::size_t> drawn;
  QStringList headings;
  connect(controller_.get(), &WorkerController::httpAuditLanes, &listening,
          [&](const std::shared_ptr<const ExperimentResult>& e) {
            events << QStringLiteral("lanes");
            drawn.push_back(e->runs.front().outcome.records.size());
            QStringList now;
            for (const auto* lane : window_->lanesPanel()->lanes()) now << lane->heading();
            headings << now.join('|');
          });
  QTest::mouseClick(panel->findChild<QPushButton*>("auditRun"), Qt::LeftButton);
  QVERIFY(controller_->httpAuditRunning());
  // Live: the first probe's row is filled while the audit still runs.
  QTRY_VERIFY_WITH_TIMEOUT(panel->table()->item(0, 1)->text() != QStringLiteral("\u2026"), 30'000);
  QTRY_VERIFY_WITH_TIMEOUT(events.contains(QStringLiteral("end")), 90'000);
  QVERIFY2(events.first() == QStringLiteral("discover") && events.indexOf(QStringLiteral("end")) > 1, qPrintable(events.join(',')));
  // The lanes filled probe by probe: drawn right after discover's check, again after later probes, each time
  // with more of nginx's decisions, and the target's lane beside the model that fits them so far.
  QVERIFY2(events.size() > 2 && events[1] == QStringLiteral("lanes"), qPrintable(events.join(',')));
  QVERIFY2(drawn.size() >= 4 && events.lastIndexOf(QStringLiteral("lanes")) < events.indexOf(QStringLiteral("end")),
           qPrintable(events.join(',')));
  for (std::size_t i = 1; i < drawn.size(); ++i) QVERIFY2(drawn[i] > drawn[i - 1], qPrintable(events.join(',')));
  for (const QString& h : headings)
    QVERIFY2(h.startsWith(QStringLiteral("target \u00b7 http|")) && h.endsWith(QStringLiteral(" \u00b7 model on the target's arrivals")),
             qPrintable(h));
  QVERIFY(!controller_->httpAuditRunning());
  QVERIFY(panel->report().has_value());
  const AuditReport& r = *panel->report();
  QVERIFY2(!r.interrupted, qPrintable(panel->statusText()));
  for (const AuditCheck& c : r.checks) {
    const int row = int(std::find(std::begin(kAuditProbes), std::end(kAuditProbes), c.name) - std::begin(kAuditProbes));
    QCOMPARE(panel->table()->item(row, 0)->text(), QString::fromStdString(c.name));
    QCOMPARE(panel->table()->item(row, 1)->text(), QString::fromStdString(std::string(verdictName(c.verdict))));
    QCOMPARE(panel->table()->item(row, 2)->text(), QString::fromStdString(c.summary));
  }
  QCOMPARE(panel->declaredText(), QStringLiteral("Declared: nothing (no rate-limit headers seen)"));
  QCOMPARE(panel->fingerprintText(), QStringLiteral("Fingerprint: ") + QString::fromStdString(r.fingerprint.summary));
  QCOMPARE(panel->verdictText(), QStringLiteral("<b>%1</b>").arg(QString::fromStdString(r.summary).toHtmlEscaped()));
  QVERIFY(r.summary.rfind(std::string(verdictName(r.verdict)) + ": ", 0) == 0);  // "warn: 3 passed, ..."

  // The same nginx through ratelab-cli audit: the same declared policy and fingerprint.
  const auto cli = test::runCli({"audit", "--http-target", nginx.url(), "--json", "--budget-s", "30"}, 90'000);
  QVERIFY2(cli.exitCode == 0 || cli.exitCode == 1, cli.err.constData());
  const QJsonObject doc = cli.json();
  QCOMPARE(doc["declared"]["dialect"].toString(), QString::fromStdString(r.declared.dialect));
  const QJsonObject fp = doc["fingerprint"].toObject();
  // leaky_bucket, token_bucket and gcra give nginx's decisions alike: either run may name any of the three,
  // 6 at 10/s, or name a window model the probes could not tell from them and list the rate model beside it.
  const QRegularExpression rateModel("^(leaky_bucket|token_bucket|gcra) 6 at 10/s$");
  QStringList cliModels{fp["summary"].toString().section(':', 0, 0)}, windowModels{QString::fromStdString(r.fingerprint.summary).section(':', 0, 0)};
  for (const auto& v : fp["also_explained_by"].toArray()) cliModels << v.toString();
  for (const std::string& m : r.fingerprint.alsoExplainedBy) windowModels << QString::fromStdString(m);
  QVERIFY2(!cliModels.filter(rateModel).isEmpty() && !windowModels.filter(rateModel).isEmpty(),
           qPrintable(fp["summary"].toString() + " / " + QString::fromStdString(r.fingerprint.summary)));
  QVERIFY2(fp["limit"].toInt() == int(r.fingerprint.limit), qPrintable(fp["summary"].toString() + " / " + QString::fromStdString(r.fingerprint.summary)));
  QCOMPARE(r.fingerprint.limit, std::int64_t(6));  // burst=5: nginx admits 6 at once

  // The lanes show the audit as soon as it ends: nginx's decisions (one client per probe key) and, below, the
  // fingerprint's model on the same arrivals; the Summary counts where they differ, the fingerprint's figures.
  const auto& lanes = window_->lanesPanel()->lanes();
  QCOMPARE(lanes.size(), 2);
  QCOMPARE(lanes[0]->heading(), QStringLiteral("target \u00b7 http"));
  QCOMPARE(lanes[1]->heading(), QString::fromStdString(r.fingerprint.algorithm) + QStringLiteral(" \u00b7 model on the target's arrivals"));
  const int replayed = r.fingerprint.decisions, differing = r.fingerprint.decisions - r.fingerprint.explained;
  QCOMPARE(int(drawn.back()), replayed);  // the last probe's lanes held every decision the fingerprint replayed
  // Every probe's decisions, not one key's: an audit's lanes start on all clients (each probe has its own keys).
  int admitted = 0;
  std::set<std::string> keys;
  for (const Arrival& a : r.arrivals) {
    if (!a.fingerprinted || a.error) continue;
    admitted += a.allowed;
    keys.insert(a.key);
  }
  QCOMPARE(window_->lanesPanel()->clientPicker()->value(), kAllClients);
  QCOMPARE(window_->lanesPanel()->clientPicker()->text(), QStringLiteral("all"));
  for (const auto* lane : lanes) {
    QCOMPARE(int(lane->shownPoints().admitted + lane->shownPoints().denied), replayed);
    QVERIFY(lane->shownPoints().allClients);
    QVERIFY2(lane->title().contains(QStringLiteral(" \u2014 all %1 clients").arg(keys.size())), qPrintable(lane->title()));
  }
  QCOMPARE(int(lanes[0]->shownPoints().admitted), admitted);
  // The counts are of every client, so the per-client limit is not drawn against them.
  QVERIFY2(!window_->lanesPanel()->legend()->names().contains(QStringLiteral("limit")),
           qPrintable(window_->lanesPanel()->legend()->names().join(',')));
  QVERIFY(keys.size() > 1);
  const QString caption = window_->summaryPanel()->caption()->text();
  qInfo("%s; lanes: %s", r.fingerprint.summary.c_str(), qPrintable(caption.section('\n', -1)));
  QVERIFY2(caption.contains(QStringLiteral("%1 on the target's arrivals: %2 of %3 decisions differ from the target's.")
                                .arg(QString::fromStdString(r.fingerprint.algorithm))
                                .arg(differing)
                                .arg(replayed)),
           qPrintable(caption));
  const QJsonArray runs = QJsonDocument::fromJson(window_->runDocumentText()).object()["runs"].toArray();
  QCOMPARE(runs.size(), 2);
  QCOMPARE(runs[0].toObject()["offered"].toInt(), replayed);
  QCOMPARE(runs[0].toObject()["admitted"].toInt(), admitted);
  QCOMPARE(runs[1].toObject()["decisions_differing_from_target"].toInt(), differing);
  QVERIFY2(differing <= replayed / 50, qPrintable(QString::fromStdString(r.fingerprint.summary)));  // the model explains nginx

  // Export report: the page ratelab-cli audit --report writes.
  const QString page = dir_.filePath("audit.html");
  QVERIFY(panel->exportReport(page));
  QFile f(page);
  QVERIFY(f.open(QIODevice::ReadOnly));
  const QByteArray html = f.readAll();
  QVERIFY(html.contains("Audit of " + nginx.url().toUtf8()));
  QVERIFY(html.contains(QByteArray::fromStdString(r.fingerprint.algorithm)));
}

void UiHttpAuditTest::stopKeepsWhatWasFound() {
  // Stop pressed at once: nothing more is sent, the report says it was interrupted, the form is usable again.
  test::NginxLimitReq nginx("10r/s", 5);
  QVERIFY2(nginx.ok(), qPrintable(nginx.error()));
  HttpAuditPanel* panel = window_->httpAuditPanel();
  panel->setTarget(nginx.url(), QStringLiteral("x-api-key"), 100'000, 600);
  QSignalSpy finished(controller_.get(), &WorkerController::httpAuditFinished);
  auto* run = panel->findChild<QPushButton*>("auditRun");
  QTest::mouseClick(run, Qt::LeftButton);
  QCOMPARE(run->text(), QStringLiteral("Stop"));
  QTest::mouseClick(run, Qt::LeftButton);
  QVERIFY(finished.wait(20'000));  // not the 600 s budget
  QVERIFY(panel->report().has_value());
  QVERIFY(panel->report()->interrupted);
  QVERIFY2(panel->statusText().contains(QStringLiteral("stopped")), qPrintable(panel->statusText()));
  QCOMPARE(run->text(), QStringLiteral("Run audit"));
  QVERIFY(!controller_->httpAuditRunning());
}

QTEST_MAIN(UiHttpAuditTest)
#include "test_ui_http_audit.moc"
