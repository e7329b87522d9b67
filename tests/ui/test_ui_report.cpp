// File > Export report: the window writes the same self-contained report as
// `ratelab-cli run --report`, for the storm it ran. The boundary preset's
// report carries the preset's title, the window's figures, which equal
// `ratelab-cli run --json` for the same scenario, and the seven charts, and a
// real headless Chromium parses it. The lanes, in the window and the report,
// start at the burst. A bad path or no storm is one clear error.

#include <QtTest>

#include <QFileDialog>
#include <QJsonArray>
#include <QLineEdit>
#include <QImage>
#include <QScrollArea>
#include <QStandardPaths>
#include <QValueAxis>

#include "support/cli_process.hpp"
#include "support/report_page.hpp"
#include "ui/charts/chart_lane.hpp"
#include "ui/panels/lanes_panel.hpp"
#include "ui/main_window.hpp"
#include "ui/panels/save_path.hpp"
#include "ui/presets.hpp"
#include "ui/workers/worker_controller.hpp"
#include "support/checked.hpp"

using namespace rl;
using namespace rl::ui;


class UiReportTest : public QObject {
  Q_OBJECT
 private slots:
  void init();
  void cleanup();
  void nothingToReportBeforeAStorm();
  void boundaryPresetReportEqualsTheCli();
  void helpListsTheMenusShortcuts();
  void saveDialogSuggestsADatedNameAndAddsTheExtension();

 private:
  std::unique_ptr<WorkerController> controller_;
  std::unique_ptr<MainWindow> window_;
  QTemporaryDir dir_;
};

void UiReportTest::init() {
  QStandardPaths::setTestModeEnabled(true);
  controller_ = std::make_unique<WorkerController>();
  window_ = std::make_unique<MainWindow>(*controller_);
  window_->resize(1024, 700);
  window_->show();
}

void UiReportTest::cleanup() {
  window_.reset();
  controller_.reset();
}

void UiReportTest::nothingToReportBeforeAStorm() {
  const QString path = dir_.filePath("none.html");
  const Result<void> ok = window_->exportReport(path);
  QVERIFY(!ok);
  QCOMPARE(QString::fromStdString(ok.error().message), QString("No storm has finished yet: nothing to export"));
  QVERIFY(!QFile::exists(path));
}

void UiReportTest::boundaryPresetReportEqualsTheCli() {
  const Preset* preset = findPreset(QStringLiteral("boundary"));
  QVERIFY(preset);
  window_->applyPreset(*preset);
  QSignalSpy done(window_.get(), &MainWindow::stormDone);
  QVERIFY(window_->startStorm());
  QVERIFY(done.wait(60'000));
  // The lanes start at the burst, 59 s (chart_axis.hpp), not at 0: the 2x is across the plot, not a sliver.
  window_->lanesPanel()->refresh(controller_->model(), controller_->spanUs());
  QValueAxis* time = window_->lanesPanel()->lanes()[0]->timeAxis();
  QCOMPARE(time->min(), 59.0);
  QVERIFY(time->max() <= 61.0);
  // File > Export charts as PNG holds all six lanes, not the one and a half a 1024x700 window shows.
  const QString png = dir_.filePath("lanes.png");
  QVERIFY(window_->exportPng(png));
  const QImage lanes(png);
  auto* scroll = window_->lanesPanel()->findChild<QScrollArea*>("lanesScroll");
  QVERIFY(scroll);
  qInfo("lanes PNG %dx%d, lanes viewport %d px tall", lanes.width(), lanes.height(), scroll->viewport()->height());
  QVERIFY(scroll->viewport()->height() < 6 * LaneChart::kMinPlotHeight);  // the window shows only some lanes
  QVERIFY(lanes.height() >= 6 * LaneChart::kMinPlotHeight + scroll->viewport()->height() / 4);
  // A wrong name is refused, not corrected.
  const Result<void> bad = window_->exportReport(dir_.filePath("report.txt"));
  QVERIFY(!bad);
  QVERIFY(QString::fromStdString(bad.error().message).contains("must end in .html or .htm"));
  const QString path = dir_.filePath("boundary.html");
  const Result<void> ok = window_->exportReport(path);
  QVERIFY2(ok, ok ? "" : ok.error().message.c_str());
  const QByteArray html = test::readReport(path);
  QVERIFY(html.contains(("<h1>" + preset->title + "</h1>").toUtf8()));
  QVERIFY(html.contains("the RateLab window, preset boundary"));
  QVERIFY(html.contains("<td>Redis</td><td>not used</td>"));  // a memory storm
  QCOMPARE(html.count("<svg class=\"chart\""), 7);
  // The window's figures are the CLI's for the same scenario file.
  const auto cli = test::runCli({"run", "--scenario", RATELAB_SOURCE_DIR "/resources/scenarios/boundary.json", "--json"});
  QCOMPARE(cli.exitCode, 0);
  const QJsonArray expected = cli.json()["runs"].toArray();
  const QJsonArray runs = test::embeddedDocument(html)["runs"].toArray();
  QCOMPARE(runs.size(), 6);
  QCOMPARE(runs.size(), expected.size());
  for (int i = 0; i < runs.size(); ++i)
    for (const char* field : {"algorithm", "offered", "admitted", "denied", "max_admitted_in_window", "over_limit"})
      QCOMPARE(runs[i].toObject()[field], expected[i].toObject()[field]);
  QCOMPARE(runs[0].toObject()["admitted"].toInt(), 200);  // fixed_window: 2x its limit
  // A real browser parses it.
  RL_CHECKED(dom, test::headlessChromium(dir_, {"--dump-dom", QUrl::fromLocalFile(path).toString()}));
  QCOMPARE(dom.count("<svg class=\"chart\""), 7);
  QCOMPARE(dom.count("class=\"series\""), html.count("class=\"series\""));
}

void UiReportTest::helpListsTheMenusShortcuts() {
  // Help > Keyboard shortcuts reads the menus: the report's Ctrl+R, Start's Space, the help's own F1.
  const QString text = window_->shortcutsText();
  QVERIFY2(text.contains("Ctrl+R\tExport report (HTML)"), qPrintable(text));
  QVERIFY(text.contains("Ctrl+E\tExport charts as PNG"));
  QVERIFY(text.contains("F1\tKeyboard shortcuts"));
  QVERIFY(text.contains("Space\t"));
  QVERIFY(!text.contains('&'));
}

namespace {
// Answers the next Save dialog (Qt's own, offscreen) with `typed` in `dir`, after noting the name it suggested.
void answerSaveDialog(const QString& dir, const QString& typed, QString* suggested) {
  QTimer::singleShot(0, [=] {
    auto* dialog = qobject_cast<QFileDialog*>(QApplication::activeModalWidget());
    if (!dialog) return answerSaveDialog(dir, typed, suggested);  // not open yet: the next turn of the loop
    *suggested = dialog->findChild<QLineEdit*>("fileNameEdit")->text();
    dialog->setDirectory(dir);
    dialog->selectFile(typed);
    QMetaObject::invokeMethod(dialog, "accept");  // a protected slot
  });
}
}  // namespace

void UiReportTest::saveDialogSuggestsADatedNameAndAddsTheExtension() {
  // Every Save dialog of the window (reports, PNG, CSV, JSON, scenario) goes through askSavePath.
  QString suggested;
  answerSaveDialog(dir_.path(), "mine", &suggested);
  QCOMPARE(askReportPath(window_.get(), "Export report", "storm"), dir_.filePath("mine.html"));
  QVERIFY2(QRegularExpression("^ratelab-storm-\\d{8}-\\d{6}\\.html$").match(suggested).hasMatch(), qPrintable(suggested));
  // A name with its own extension is kept as typed: the writer refuses ".txt" with its own message.
  answerSaveDialog(dir_.path(), "mine.htm", &suggested);
  QCOMPARE(askReportPath(window_.get(), "Export report", "storm"), dir_.filePath("mine.htm"));
  answerSaveDialog(dir_.path(), "lanes", &suggested);
  QCOMPARE(askSavePath(window_.get(), "Export charts", {"charts", "png"}, "PNG image (*.png)"), dir_.filePath("lanes.png"));
  QVERIFY2(suggested.startsWith("ratelab-charts-") && suggested.endsWith(".png"), qPrintable(suggested));
  QCOMPARE(withExtension("/tmp/run.csv", "json"), QString("/tmp/run.csv"));
  QCOMPARE(withExtension("/tmp/run", "json"), QString("/tmp/run.json"));
}

QTEST_MAIN(UiReportTest)
#include "test_ui_report.moc"
