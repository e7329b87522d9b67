// The team's config in the window, with real widgets, offscreen: the storm
// form's "From config" box fills the quota fields and algorithm, the lanes'
// signal fires and the explanation shows the limiter's own numbers; a bad
// config is one red line and changes nothing; the Tune panel's "Copy as" menu
// puts the recommendation on the clipboard in the chosen dialect. With
// RATELAB_SHOT_DIR set, screenshots of the window at 1024x700 and 1600x1000.
#include <QtTest>

#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QDockWidget>
#include <QGuiApplication>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QPlainTextEdit>
#include <QTemporaryDir>
#include <QToolButton>

#include <fstream>

#include "dialects/dialect.hpp"
#include "ui/charts/tune_heatmap.hpp"
#include "ui/main_window.hpp"
#include "ui/panels/config_quota_box.hpp"
#include "ui/panels/storm_panel.hpp"
#include "ui/panels/tune_panel.hpp"
#include "ui/workers/worker_controller.hpp"

using namespace rl;
using namespace rl::ui;

namespace {
const QString kIssueExample = "limit_req_zone $binary_remote_addr zone=z:10m rate=6000r/m; limit_req zone=z;";

void paste(ConfigQuotaBox* box, const QString& dialect, const QString& text) {
  box->dialectBox()->setCurrentText(dialect);
  box->textEdit()->setPlainText(text);
  box->readNow();
}
}  // namespace

class DialectsUiTest : public QObject {
  Q_OBJECT
 private slots:
  void fromConfigFillsTheFormAndExplains();
  void badConfigIsOneRedLineAndChangesNothing();
  void copyAsPutsTheRecommendationOnTheClipboard();
  void screenshots();
};

void DialectsUiTest::fromConfigFillsTheFormAndExplains() {
  StormPanel panel;
  panel.show();
  ConfigQuotaBox* box = panel.configBox();
  QVERIFY(!box->textEdit()->isVisible());  // folded until opened
  box->toggle()->click();
  QVERIFY(box->textEdit()->isVisible());
  QSignalSpy changed(&panel, &StormPanel::whatChanged);
  paste(box, "nginx", kIssueExample);
  auto s = panel.spec();
  QVERIFY2(s, s ? "" : s.error().message.c_str());
  QCOMPARE(s->algorithms, std::vector<Algorithm>{Algorithm::LeakyBucket});
  QCOMPARE(s->quota.limit, 1);
  QCOMPARE(s->quota.window, 60 * kSecond);
  QCOMPARE(s->quota.refillPerSecond, std::optional<double>(100));
  QVERIFY(changed.count() >= 1);  // the lanes follow the algorithms ticked
  auto* explanation = panel.findChild<QLabel*>("presetExplanation");
  QVERIFY(explanation->isVisible());
  QVERIFY2(explanation->text().contains("Emission interval 10 ms."), qPrintable(explanation->text()));
  QVERIFY(explanation->text().contains("Of 10 simultaneous requests, 1 passes at once, 0 are delayed and 9 are denied."));
  QCOMPARE(box->statusText(), QString("zone z (key $binary_remote_addr): leaky_bucket, limit 1, 100/s: up to 1 at once, then "
                                      "one request per emission interval."));
  // nginx's thousandths fit the form: 7r/m is 0.116/s, held exactly.
  paste(box, "nginx", "limit_req_zone $k zone=z:1m rate=7r/m; limit_req zone=z burst=1;");
  QCOMPARE(panel.spec()->quota.refillPerSecond, std::optional<double>(0.116));
  QVERIFY(!explanation->text().contains("rounds"));
  // 1 per 2 minutes is not: the explanation says what the form holds.
  paste(box, "redis_rate", "redis_rate.Limit{Rate: 1, Burst: 5, Period: 2 * time.Minute}");
  QCOMPARE(panel.spec()->algorithms, std::vector<Algorithm>{Algorithm::Gcra});
  QVERIFY2(explanation->text().contains("The form rounds the refill to 0.008/s."), qPrintable(explanation->text()));
  // Several limits: pick one.
  paste(box, "limits", "100/day;10 per hour");
  QVERIFY(box->quotaBox()->isVisible());
  QCOMPARE(box->quotaBox()->count(), 2);
  QCOMPARE(panel.spec()->quota.limit, 100);
  emit box->quotaBox()->activated(1);
  QCOMPARE(panel.spec()->quota.limit, 10);
  QCOMPARE(panel.spec()->quota.window, 3600 * kSecond);
  QCOMPARE(panel.spec()->algorithms, std::vector<Algorithm>{Algorithm::FixedWindow});
  // A running storm keeps its algorithms: the box is locked with them.
  panel.setRunning(true);
  QVERIFY(!box->isEnabled());
  panel.setRunning(false);
  QVERIFY(box->isEnabled());
}

void DialectsUiTest::badConfigIsOneRedLineAndChangesNothing() {
  StormPanel panel;
  panel.show();
  ConfigQuotaBox* box = panel.configBox();
  box->toggle()->click();
  paste(box, "traefik", "average: 100\nburst: 50\n");
  QCOMPARE(panel.spec()->quota.limit, 50);
  paste(box, "traefik", "average: 100\nperiod: 1fortnight\n");
  QVERIFY(box->showsError());
  QCOMPARE(box->statusText(),
           QString("traefik: 'period: 1fortnight': expected a duration such as 1s, 1m, 10s or 500ms (whole ms, > 0)"));
  QVERIFY(box->findChild<QLabel*>("configStatus")->styleSheet().contains("#d73a49"));
  QCOMPARE(panel.spec()->quota.limit, 50);  // unchanged
  QCOMPARE(panel.spec()->algorithms, std::vector<Algorithm>{Algorithm::TokenBucket});
  // The same text in the right dialect reads; the error goes.
  paste(box, "express-rate-limit", "rateLimit({ windowMs: 15 * 60 * 1000, limit: 100 })");
  QVERIFY(!box->showsError());
  QCOMPARE(panel.spec()->quota.window, 900 * kSecond);
}

void DialectsUiTest::copyAsPutsTheRecommendationOnTheClipboard() {
  QTemporaryDir dir;
  const QString path = dir.filePath("api.csv");
  {
    std::ofstream out(path.toStdString());
    out << "time,key\n";
    for (int i = 0; i < 200; ++i) out << 1'700'000'000 + i / 5 << "." << 100000 + (i % 5) * 150000 << ",k" << i % 2 << "\n";
  }
  WorkerController workers;  // runs the panel's worker
  TunePanel panel(workers);
  panel.resize(1200, 700);
  panel.show();
  QSignalSpy opened(&panel, &TunePanel::traceOpened);
  panel.openTrace(path);
  QVERIFY(opened.wait(10'000));
  QVERIFY(!panel.copyAsButton()->isEnabled());  // nothing to copy yet
  panel.algorithmsEdit()->setText("token_bucket");
  panel.limitsEdit()->setText("1:10:1");
  panel.refillEdit()->setText("1:5:1");
  panel.findChild<QLineEdit*>("tuneLegit")->setText("all");
  QSignalSpy swept(&panel, &TunePanel::sweepFinished);
  QVERIFY(panel.startSweep());
  QVERIFY(swept.wait(20'000));
  QVERIFY(panel.copyAsButton()->isEnabled());
  const auto best = recommend(*panel.result(), Algorithm::TokenBucket, 0.001);
  QVERIFY(best);
  const TunePoint& p = panel.result()->points[*best];
  QStringList names;
  for (QAction* a : panel.copyAsButton()->menu()->actions()) names << a->text();
  QCOMPARE(names, (QStringList{"nginx", "envoy", "traefik", "express-rate-limit", "rate-limiter-flexible", "limits", "redis_rate"}));
  for (QAction* a : panel.copyAsButton()->menu()->actions()) {
    a->trigger();
    const Dialect* d = findDialect(a->text().toStdString());
    QCOMPARE(QGuiApplication::clipboard()->text(), QString::fromStdString(d->emitConfig(p.algorithm, p.quota).text));
    QVERIFY2(panel.statusText().startsWith("Copied ") && panel.statusText().contains(" as " + a->text() + " config"),
             qPrintable(panel.statusText()));
  }
  // The traefik text on the clipboard reads back as the recommended quota.
  panel.copyAsButton()->menu()->actions()[2]->trigger();
  const auto back = parseDialect("traefik", QGuiApplication::clipboard()->text().toStdString());
  QVERIFY(back);
  QCOMPARE(back->front().quota.limit, p.quota.limit);
  QCOMPARE(back->front().quota.ratePerSecond(), p.quota.ratePerSecond());
}

void DialectsUiTest::screenshots() {
  const QString out = qEnvironmentVariable("RATELAB_SHOT_DIR");
  if (out.isEmpty()) QSKIP("set RATELAB_SHOT_DIR to write the screenshots");
  WorkerController controller;
  MainWindow window(controller);
  window.show();
  ConfigQuotaBox* box = window.stormPanel()->configBox();
  box->toggle()->click();
  paste(box, "nginx", kIssueExample);
  for (QSize size : {QSize(1024, 700), QSize(1600, 1000)}) {
    window.resize(size);
    QTest::qWait(300);
    box->textEdit()->ensureCursorVisible();
    QVERIFY(window.exportWindowPng(QString("%1/dialects-%2x%3.png").arg(out).arg(size.width()).arg(size.height())));
  }
}

QTEST_MAIN(DialectsUiTest)
#include "test_dialects_ui.moc"
