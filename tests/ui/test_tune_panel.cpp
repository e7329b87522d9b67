// The Tune panel with real widgets, offscreen: a trace file is read on the
// worker thread, the distribution's limit line says what it cuts (checked
// against the core's own count), a sweep fills the heatmap and marks the
// core's recommendation, and clicking a cell replays the trace in the window's
// storm lanes (memory backend) with exactly the decisions the sweep counted.
#include <QtTest>

#include <QCheckBox>
#include <QDockWidget>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QJsonArray>
#include <QTemporaryDir>

#include <fstream>

#include "support/cli_process.hpp"
#include "support/report_page.hpp"
#include "ui/charts/peak_distribution_chart.hpp"
#include "ui/charts/tune_heatmap.hpp"
#include "ui/main_window.hpp"
#include "ui/panels/tune_panel.hpp"
#include "ui/workers/worker_controller.hpp"
#include "ui/panels/storm_panel.hpp"
#include "support/checked.hpp"

using namespace rl;
using namespace rl::ui;

namespace {
// calm: one request a second for 120 s; noisy: a burst of 25 every 10 s; three
// more clients at 2/s. CSV, exact times.
QString writeTrace(const QTemporaryDir& dir) {
  const QString path = dir.filePath("api.csv");
  std::ofstream out(path.toStdString());
  out << "time,key\n";
  const std::int64_t t0 = 1'700'000'000;
  for (int s = 0; s < 120; ++s) {
    out << t0 + s << ".100000,calm\n";
    for (int c = 0; c < 3; ++c) out << t0 + s << "." << 200000 + c * 1000 << ",steady-" << c << "\n"
                                    << t0 + s << "." << 700000 + c * 1000 << ",steady-" << c << "\n";
    if (s % 10 == 0)
      for (int b = 0; b < 25; ++b) out << t0 + s << "." << 500000 + b * 100 << ",noisy\n";
  }
  return path;
}
}  // namespace

class TunePanelTest : public QObject {
  Q_OBJECT
 private slots:
  void distributionLineSaysWhatItCuts();
  void sweepMarksTheRecommendationAndCellsReplay();
  void badGridIsOneVisibleMessage();
  void reportEqualsTheCli();
  void regexFilterOnA70KbUrl();

 private:
  QTemporaryDir dir_;
};

void TunePanelTest::distributionLineSaysWhatItCuts() {
  WorkerController workers;  // runs the panel's worker
  TunePanel panel(workers);
  panel.resize(1200, 700);
  panel.show();
  QSignalSpy opened(&panel, &TunePanel::traceOpened);
  panel.openTrace(writeTrace(dir_));
  QVERIFY(opened.wait(10'000));
  QCOMPARE(panel.trace()->requests.size(), std::size_t(120 + 720 + 300));
  // Dragging the line to 2 per 1 s: only noisy peaks above 2 (calm 1, steady 2).
  PeakDistributionChart* chart = panel.distribution();
  QSignalSpy moved(chart, &PeakDistributionChart::limitChanged);
  QTest::mousePress(chart, Qt::LeftButton, {}, QPoint(chart->xOf(2), chart->height() / 2));
  QVERIFY(moved.count() >= 1);
  QCOMPARE(chart->limit(), std::int64_t(2));
  // noisy sends 25 in well under a second every 10 s: a sliding log of 2/s admits 2 of each burst.
  QTRY_COMPARE_WITH_TIMEOUT(chart->caption(), QString("1 clients and 276 requests would be cut by 2 req per 1 s"), 5000);
}

void TunePanelTest::sweepMarksTheRecommendationAndCellsReplay() {
  WorkerController controller;
  MainWindow window(controller);
  window.resize(1400, 900);
  window.show();
  TunePanel* panel = window.tunePanel();
  QSignalSpy opened(panel, &TunePanel::traceOpened);
  panel->openTrace(writeTrace(dir_));
  QVERIFY(opened.wait(10'000));
  panel->algorithmsEdit()->setText("sliding_log,token_bucket");
  panel->limitsEdit()->setText("1:30:1");
  panel->windowsEdit()->setText("1000");
  panel->findChild<QLineEdit*>("tuneLegit")->setText("all");
  QSignalSpy swept(panel, &TunePanel::sweepFinished);
  QVERIFY(panel->startSweep());
  QVERIFY(swept.wait(20'000));
  TuneHeatmap* map = panel->heatmap();
  QCOMPARE(map->gridSize(), QSize(1, 30));
  window.raiseDock("tuneDock");  // room for 30 rows: each cell several pixels tall
  window.resizeDocks({window.findChild<QDockWidget*>("tuneDock")}, {600}, Qt::Vertical);
  QTRY_VERIFY(map->height() >= 150);
  const auto result = panel->result();
  const auto best = recommend(*result, Algorithm::SlidingLog, 0.001);
  QVERIFY(best.has_value());
  QCOMPARE(map->recommended(), best);
  // Legit = all: at most 0.1% of 1140 requests (1) may be denied; 24 per second denies one of each of
  // noisy's 12 bursts of 25, so the smallest limit meeting the target is 25.
  QCOMPARE(result->points[*best].quota.limit, std::int64_t(25));
  QCOMPARE(result->points[*best - 1].outcome.denied, std::int64_t(12));

  // The recommendation is at the top, above the charts; the heatmap's legend names the target and draws its colours.
  auto* recommendation = panel->findChild<QLabel*>("tuneRecommendation");
  QVERIFY(recommendation->text().startsWith(QStringLiteral("<b>Recommended for sliding_log: ")));
  QVERIFY(recommendation->mapTo(panel, QPoint(0, recommendation->height())).y() <= map->mapTo(panel, QPoint(0, 0)).y());
  QCOMPARE(map->legendLabels(), QStringList({QStringLiteral("\u2265 1%"), QStringLiteral("0.1% target"), QStringLiteral("\u2264 0.001%")}));
  const QImage drawn = map->grab().toImage();
  const double ratio = drawn.devicePixelRatio();
  for (double share : {0.00001, 0.001, 0.01}) {  // the ends a few pixels inside the bar's frame
    const QRect bar = map->legendBar();
    const QPoint at(bar.center().x(), std::clamp(map->legendY(share), bar.top() + 3, bar.bottom() - 3));
    const QColor seen = drawn.pixelColor((QPointF(at) * ratio).toPoint()), meant = map->colourFor(share);
    QVERIFY2(std::abs(seen.red() - meant.red()) + std::abs(seen.green() - meant.green()) + std::abs(seen.blue() - meant.blue()) <= 24,
             qPrintable(seen.name() + " " + meant.name()));
  }
  QVERIFY(map->colourFor(0.001) != map->colourFor(0.00001) && map->colourFor(0.001) != map->colourFor(0.01));

  // Clicking the recommended cell replays the trace through the storm lanes, on the virtual clock
  // although the form says client: the decisions are the sweep's, and done in moments.
  window.stormPanel()->setClock(ClockMode::Client);
  std::vector<Quota> replayed;
  connect(panel, &TunePanel::replayRequested, this,
          [&](const SharedTrace&, const TraceOptions&, Algorithm, const Quota& q) { replayed.push_back(q); });
  QSignalSpy done(&window, &MainWindow::stormDone);
  QTest::mouseClick(map, Qt::LeftButton, {}, *map->cellCenter(*best));
  QCOMPARE(replayed.size(), std::size_t(1));
  QCOMPARE(replayed[0], result->points[*best].quota);
  QVERIFY(done.wait(30'000));
  QCOMPARE(controller.spec().clock, ClockMode::Virtual);
  const StormResult& run = controller.lastResult();
  QCOMPARE(run.algorithms.size(), std::size_t(1));
  QCOMPARE(run.algorithms[0].offered, result->points[*best].outcome.offered);
  QCOMPARE(run.algorithms[0].denied, result->points[*best].outcome.denied);
  QVERIFY(window.stormPanel()->findChild<QLabel*>("stormTrace")->isVisible());

  // Asked for real time, the replay keeps the form's clock. It is stopped at once (it would take 120 s): a Stop
  // pressed before the storm worker picks the run up is kept, not reset by the run.
  window.stormPanel()->setClock(ClockMode::Client);
  panel->findChild<QCheckBox*>("tuneRealTime")->setChecked(true);
  QTest::mouseClick(map, Qt::LeftButton, {}, *map->cellCenter(*best));
  QTRY_VERIFY(controller.stormRunning());
  QCOMPARE(controller.spec().clock, ClockMode::Client);
  controller.stopStorm();
  QTRY_VERIFY_WITH_TIMEOUT(!controller.stormRunning(), 30'000);
}

void TunePanelTest::badGridIsOneVisibleMessage() {
  WorkerController workers;  // runs the panel's worker
  TunePanel panel(workers);
  QSignalSpy opened(&panel, &TunePanel::traceOpened);
  panel.openTrace(writeTrace(dir_));
  QVERIFY(opened.wait(10'000));
  panel.limitsEdit()->setText("30:1:1");
  QVERIFY(!panel.startSweep());
  QVERIFY2(panel.statusText().startsWith("Limits:"), qPrintable(panel.statusText()));
  panel.openTrace(dir_.filePath("missing.log"));
  QTRY_VERIFY(panel.statusText().startsWith("--trace: cannot read"));
}

void TunePanelTest::reportEqualsTheCli() {
  // The panel's Export report writes the page `ratelab-cli tune --report` writes, for the sweep it ran: the
  // embedded document's points and recommendations equal tune --json's for the same trace and grid.
  WorkerController workers;  // runs the panel's worker
  TunePanel panel(workers);
  panel.resize(1200, 700);
  panel.show();
  QSignalSpy opened(&panel, &TunePanel::traceOpened);
  const QString trace = writeTrace(dir_);
  panel.openTrace(trace);
  QVERIFY(opened.wait(10'000));
  const QString path = dir_.filePath("tune.html");
  QVERIFY(!panel.reportButton()->isEnabled());
  const Result<void> none = panel.exportReport(path);
  QVERIFY(!none);
  QCOMPARE(QString::fromStdString(none.error().message), QString("No sweep has finished yet: open a trace and Sweep first"));
  panel.algorithmsEdit()->setText("sliding_log,token_bucket");
  panel.limitsEdit()->setText("1:30:1");
  panel.windowsEdit()->setText("1000");
  QSignalSpy swept(&panel, &TunePanel::sweepFinished);
  QVERIFY(panel.startSweep());
  QVERIFY(swept.wait(20'000));
  QVERIFY(panel.reportButton()->isEnabled());
  QVERIFY(!panel.exportReport(dir_.filePath("tune.txt")));  // a wrong name is refused, not corrected
  const Result<void> ok = panel.exportReport(path);
  QVERIFY2(ok, ok ? "" : ok.error().message.c_str());
  const QByteArray html = test::readReport(path);
  QVERIFY(html.contains("the RateLab window, Tune panel"));
  QCOMPARE(html.count("<svg class=\"chart heatmap\""), 2);
  QCOMPARE(html.count("<rect class=\"cell\""), 60);  // 30 limits x 1 window, two algorithms
  QCOMPARE(html.count("<circle class=\"recommended\""), 2);
  const auto cli = test::runCli({"tune", "--trace", trace, "--algorithm", "sliding_log,token_bucket", "--limit", "1:30:1",
                                 "--window-ms", "1000", "--legit", panel.findChild<QLineEdit*>("tuneLegit")->text(), "--json"});
  QCOMPARE(cli.exitCode, 0);
  const QJsonObject doc = test::embeddedDocument(html), expected = cli.json();
  QCOMPARE(doc["points"].toArray(), expected["points"].toArray());
  QCOMPARE(doc["points"].toArray().size(), 60);
  QCOMPARE(doc["algorithms"].toArray(), expected["algorithms"].toArray());
  QCOMPARE(doc["legit"].toObject(), expected["legit"].toObject());
  QCOMPARE(doc["trace"].toObject()["requests"], expected["trace"].toObject()["requests"]);
  QCOMPARE(doc["algorithms"].toArray()[0].toObject()["recommended"].toObject()["limit"].toInt(), 25);
  // A real browser draws it.
  RL_CHECKED(dom, test::headlessChromium(dir_, {"--dump-dom", QUrl::fromLocalFile(path).toString()}));
  QCOMPARE(dom.count("<rect class=\"cell\""), 60);
  QCOMPARE(dom.count("<svg class=\"chart\""), 2);  // the sweep's lines, one chart per algorithm
}

void TunePanelTest::regexFilterOnA70KbUrl() {
  // The panel reads through loadTrace like run and tune: with std::regex this segfaulted the window (issue 25).
  const QString path = dir_.filePath("long.log");
  {
    std::ofstream out(path.toStdString());
    const auto line = [](const std::string& target) {
      return "127.0.0.1 - - [10/Oct/2023:13:55:36 +0000] \"GET " + target + " HTTP/1.1\" 200 2 \"-\" \"curl\"\n";
    };
    out << line("/api/login") << line("/home") << line("/x?pad=" + std::string(70'000, 'a') + "&next=/login")
        << line("/y?pad=" + std::string(70'000, 'b')) << line("/api/login?next=/home");
  }
  WorkerController workers;  // runs the panel's worker
  TunePanel panel(workers);
  panel.findChild<QLineEdit*>("traceFilter")->setText(".*login");
  QSignalSpy opened(&panel, &TunePanel::traceOpened);
  panel.openTrace(path);
  QVERIFY(opened.wait(10'000));
  QCOMPARE(panel.trace()->requests.size(), std::size_t(3));
  QCOMPARE(panel.trace()->stats.filtered, std::int64_t(2));
}

QTEST_MAIN(TunePanelTest)
#include "test_tune_panel.moc"
