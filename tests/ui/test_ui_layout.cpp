// The window's layout at the smallest and a large supported size, with a
// preset loaded and its storm run on the memory backend (real widgets,
// offscreen): every lane keeps a readable plot, the legend and the Summary's
// column headers are not elided, no chart label is elided (light and dark),
// Start and the progress line stay in view, and the lanes' time axis fits the
// data (a virtual-clock burst of microseconds is drawn in µs, not at 0 s).

#include <QtTest>

#include <QGraphicsScene>
#include <QGraphicsTextItem>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QScrollArea>
#include <QScrollBar>
#include <QToolButton>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QTableWidget>
#include <QValueAxis>

#include "ui/charts/chart_lane.hpp"
#include "ui/charts/series_chart.hpp"
#include "ui/charts/lane_legend.hpp"
#include "ui/charts/lane_model.hpp"
#include "ui/panels/lanes_panel.hpp"
#include "ui/charts/time_scale.hpp"
#include "ui/charts/ttl_chart.hpp"
#include "ui/main_window.hpp"
#include "ui/panels/storm_panel.hpp"
#include "ui/panels/tune_panel.hpp"
#include "ui/panels/summary_panel.hpp"
#include "ui/presets.hpp"
#include "ui/workers/worker_controller.hpp"

using namespace rl;
using namespace rl::ui;

namespace {
const QChar kEllipsis(0x2026);

/// `w` is shown, and all of it inside the window's visible rect (not clipped by a scroll area or the screen).
bool fullyInView(QWidget* w, QWidget* window) {
  if (!w->isVisible()) return false;
  const QRect inWindow(w->mapTo(window, QPoint(0, 0)), w->size());
  return window->rect().contains(inWindow) && w->visibleRegion().boundingRect() == w->rect();
}

/// Chart texts (title, tick labels, axis titles) drawn with an ellipsis: Qt Charts elides what does not fit.
/// `seen` counts the texts looked at (a lane draws a dozen or more).
QStringList elidedTexts(QChartView* view, int* seen = nullptr) {
  QStringList out;
  for (QGraphicsItem* item : view->scene()->items())
    if (auto* text = dynamic_cast<QGraphicsTextItem*>(item); text && text->isVisible()) {
      if (seen) ++*seen;
      if (text->toPlainText().contains(kEllipsis) || text->toPlainText().contains(QStringLiteral("...")))
        out << text->toPlainText();
    }
  return out;
}
}  // namespace

class UiLayoutTest : public QObject {
  Q_OBJECT
 private slots:
  void init();
  void cleanup();
  void presetFitsTheWindow_data();
  void presetFitsTheWindow();
  void levelAndTtlChartsShowWholeTexts_data();
  void levelAndTtlChartsShowWholeTexts();
  void tunePanelReadsAtEverySize_data();
  void tunePanelReadsAtEverySize();

 private:
  std::unique_ptr<WorkerController> controller_;
  std::unique_ptr<MainWindow> window_;
};

void UiLayoutTest::init() {
  QStandardPaths::setTestModeEnabled(true);
  QSettings().clear();  // the default dock layout
  controller_ = std::make_unique<WorkerController>();
  window_ = std::make_unique<MainWindow>(*controller_);
}

void UiLayoutTest::cleanup() {
  window_.reset();
  controller_.reset();
}

void UiLayoutTest::levelAndTtlChartsShowWholeTexts_data() {
  QTest::addColumn<QSize>("size");
  QTest::addColumn<QString>("ttlTitle");
  QTest::newRow("1024x700") << QSize(1024, 700) << QStringLiteral("PTTL of the limiter keys");
  QTest::newRow("1600x1000") << QSize(1600, 1000) << QStringLiteral("PTTL of the limiter keys, during and after the run");
}

void UiLayoutTest::levelAndTtlChartsShowWholeTexts() {
  // The default storm (redis-lua) shows both charts side by side: at 1024 px each is about 240 px wide.
  // There the TTL chart says its short title (the whole one is its tooltip) and both legends go under
  // the plot, so no title, axis title or tick label is cut.
  QFETCH(QSize, size);
  QFETCH(QString, ttlTitle);
  window_->resize(size);
  window_->show();
  QVERIFY(QTest::qWaitForWindowExposed(window_.get()));
  QTest::qWait(50);  // the first layout pass after the docks were sized
  TtlChart* ttl = window_->lanesPanel()->ttlChart();
  SeriesChart* level = window_->lanesPanel()->levelChart();
  QVERIFY(ttl->isVisible() && level->isVisible());
  QCOMPARE(ttl->titleShown(), ttlTitle);
  QCOMPARE(ttl->toolTip(), QStringLiteral("PTTL of the limiter keys, during and after the run"));
  for (SeriesChart* chart : {static_cast<SeriesChart*>(ttl), level}) {
    int texts = 0;
    const QStringList cut = elidedTexts(chart, &texts);
    QVERIFY2(cut.isEmpty(), qPrintable(QStringLiteral("%1 px wide: %2").arg(chart->width()).arg(cut.join(" | "))));
    QVERIFY2(texts >= 6, qPrintable(QString::number(texts)));  // title, axis titles, tick labels
    // Narrow, the legend is whole entries under the plot that wrap (Qt's own would elide them); wide, Qt's on the right.
    LaneLegend* wrapped = chart->wrappedLegend();
    QCOMPARE(wrapped != nullptr, size.width() == 1024);
    QCOMPARE(chart->chart()->legend()->isVisible(), wrapped == nullptr);
    if (!wrapped) continue;
    QVERIFY(!wrapped->names().isEmpty());
    QVERIFY2(wrapped->height() >= wrapped->heightForWidth(wrapped->width()), "the chart's legend is cut");
    QVERIFY(wrapped->geometry().bottom() < chart->height());
    QVERIFY2(chart->chart()->plotArea().bottom() < wrapped->y(), "the legend covers the plot");
    for (const QString& name : wrapped->names())
      QVERIFY2(wrapped->fontMetrics().horizontalAdvance(QStringLiteral("\u2501\u2501 ") + name) <= wrapped->contentsRect().width(),
               qPrintable(name));
  }
}

void UiLayoutTest::tunePanelReadsAtEverySize_data() {
  QTest::addColumn<QSize>("size");
  QTest::addColumn<int>("fieldsPerRow");
  QTest::newRow("1024x700") << QSize(1024, 700) << 2;
  QTest::newRow("1600x1000") << QSize(1600, 1000) << 4;
}

void UiLayoutTest::tunePanelReadsAtEverySize() {
  // The Tune dock at the default layout: the recommendation and its buttons at the top, in view; the form two
  // fields a row in a narrow dock (four when wide), never wider than the dock (no sideways scrolling), and no
  // field squeezed below a readable width.
  QFETCH(QSize, size);
  QFETCH(int, fieldsPerRow);
  window_->resize(size);
  window_->show();
  QVERIFY(QTest::qWaitForWindowExposed(window_.get()));
  window_->raiseDock(QStringLiteral("tuneDock"));
  TunePanel* tune = window_->tunePanel();
  QTRY_VERIFY(tune->isVisible());
  auto* scroll = qobject_cast<QScrollArea*>(tune->parentWidget()->parentWidget());
  QVERIFY(scroll);
  QTRY_VERIFY(!scroll->horizontalScrollBar()->isVisible());
  for (QWidget* w : {static_cast<QWidget*>(tune->findChild<QLabel*>("tuneRecommendation")),
                     static_cast<QWidget*>(tune->copyAsButton()), static_cast<QWidget*>(tune->reportButton())})
    QVERIFY2(fullyInView(w, window_.get()), qPrintable(w->objectName()));
  const QLineEdit* format = tune->findChild<QLineEdit*>("traceFormat");
  const QLineEdit* key = tune->findChild<QLineEdit*>("traceKey");
  const QLineEdit* limits = tune->limitsEdit();
  QCOMPARE(key->y(), format->y());                 // Format and Key share a row
  QCOMPARE(limits->y(), tune->algorithmsEdit()->y());  // Algorithms and Limits too
  QCOMPARE(tune->windowsEdit()->y() == limits->y(), fieldsPerRow == 4);
  for (QLineEdit* e : tune->findChildren<QLineEdit*>())
    QVERIFY2(e->width() >= 120, qPrintable(QStringLiteral("%1 is %2 px wide").arg(e->objectName()).arg(e->width())));
}

void UiLayoutTest::presetFitsTheWindow_data() {
  QTest::addColumn<QSize>("size");
  QTest::addColumn<QString>("preset");
  QTest::addColumn<bool>("dark");
  QTest::addColumn<QString>("unit");  // of the lanes' time axis for the preset's span
  for (const QSize size : {QSize(1024, 700), QSize(1600, 1000)}) {
    const QByteArray at = QByteArray::number(size.width()) + "x" + QByteArray::number(size.height());
    QTest::newRow("boundary " + at) << size << QStringLiteral("boundary") << false << QStringLiteral("s");
    // 400 decisions at one virtual instant: by decision number.
    QTest::newRow("replica_leak " + at) << size << QStringLiteral("replica_leak") << false << QStringLiteral("decision");
    QTest::newRow("boundary dark " + at) << size << QStringLiteral("boundary") << true << QStringLiteral("s");
  }
  QTest::newRow("race loaded 1024x700") << QSize(1024, 700) << QStringLiteral("race") << false << QString();
}

void UiLayoutTest::presetFitsTheWindow() {
  QFETCH(QSize, size);
  QFETCH(QString, preset);
  QFETCH(bool, dark);
  QFETCH(QString, unit);
  if (dark) window_->setTheme(Theme::Dark);
  window_->resize(size);
  window_->show();
  QVERIFY(QTest::qWaitForWindowExposed(window_.get()));
  QCOMPARE(window_->size(), size);  // nothing's minimum size makes the window larger than the screen it is for
  window_->applyPreset(*findPreset(preset));
  QTest::qWait(50);  // the first layout pass after the docks were sized (showEvent's single shot)

  StormPanel* storm = window_->stormPanel();
  QVERIFY2(fullyInView(storm->startButton(), window_.get()), "Start is hidden");
  QVERIFY2(fullyInView(storm->progressBar(), window_.get()), "the progress bar is hidden");
  QVERIFY2(fullyInView(storm->progressLine(), window_.get()), "the progress line is hidden");
  if (unit.isEmpty()) return;  // loaded only: the race runs on Redis (test_ui_storms)

  QSignalSpy done(window_.get(), &MainWindow::stormDone);
  QVERIFY(window_->startStorm());
  QVERIFY(done.wait(30'000));
  LanesPanel* lanes = window_->lanesPanel();
  QTRY_VERIFY(!lanes->lanes().isEmpty() && lanes->lanes().front()->admittedPoints() > 0);
  lanes->refresh(controller_->model(), controller_->spanUs());  // the last refresh, at the final layout
  QTest::qWait(50);
  QVERIFY2(fullyInView(storm->startButton(), window_.get()), "Start is hidden after the run");
  QVERIFY2(fullyInView(storm->progressLine(), window_.get()), "the progress line is hidden after the run");

  // Each lane's plot keeps its readable height; the lanes scroll instead of squeezing it.
  for (LaneChart* lane : lanes->lanes()) {
    const int plot = static_cast<int>(lane->chart()->plotArea().height());
    QVERIFY2(plot >= LaneChart::kMinPlotHeight,
             qPrintable(QStringLiteral("%1: plot %2 px < %3").arg(lane->heading()).arg(plot).arg(LaneChart::kMinPlotHeight)));
    int texts = 0;
    QVERIFY2(elidedTexts(lane, &texts).isEmpty(), qPrintable(lane->heading() + ": " + elidedTexts(lane).join(" | ")));
    QVERIFY2(texts >= 10, qPrintable(QString::number(texts)));  // title, axis titles, tick labels
    QVERIFY2(!lane->chart()->legend()->isVisible(), "a legend inside a lane's chart");
  }
  QCOMPARE(lanes->lanes().front()->heading(), QStringLiteral("fixed_window \u00b7 memory"));
  if (preset == QStringLiteral("boundary")) {
    // sliding_log admits its limit of 100 and denies the other 300: denied on its own axis leaves the admitted
    // line the height of the plot, not a quarter of it.
    LaneChart* log = lanes->lanes()[1];
    QCOMPARE(log->algorithm(), Algorithm::SlidingLog);
    QVERIFY2(log->admittedAxis()->max() <= 150 && log->deniedAxis()->max() >= 200,
             qPrintable(QStringLiteral("admitted axis to %1, denied axis to %2").arg(log->admittedAxis()->max()).arg(log->deniedAxis()->max())));
  }

  // The one legend, outside the plots: what is drawn, every entry whole.
  LaneLegend* legend = lanes->legend();
  QVERIFY(fullyInView(legend, window_.get()));
  const QStringList names = legend->names();
  QVERIFY2(names.contains(QStringLiteral("admitted")) && names.contains(QStringLiteral("limit")), qPrintable(names.join(", ")));
  QVERIFY2(!names.contains(QStringLiteral("tuned")), "a legend entry for marks not drawn");
  QVERIFY2(!names.contains(QStringLiteral("admitted by fail-open (store error)")), "a legend entry for a band not drawn");
  QCOMPARE(names.contains(QStringLiteral("over limit")), preset == QStringLiteral("boundary") || preset == QStringLiteral("replica_leak"));
  QVERIFY2(legend->height() >= legend->heightForWidth(legend->width()), "the legend is cut");
  for (const QString& name : names)
    QVERIFY2(legend->fontMetrics().horizontalAdvance(QStringLiteral("\u2501\u2501 ") + name) <= legend->contentsRect().width(),
             qPrintable(name));

  // The Summary's column headers are not elided.
  QTableWidget* table = window_->summaryPanel()->table();
  QHeaderView* header = table->horizontalHeader();
  const int margin = 2 * header->style()->pixelMetric(QStyle::PM_HeaderMargin, nullptr, header);
  for (int c = 0; c < table->columnCount(); ++c) {
    const QString text = table->horizontalHeaderItem(c)->text();
    const int room = header->sectionSize(c) - margin;
    QVERIFY2(header->fontMetrics().elidedText(text, Qt::ElideRight, room) == text,
             qPrintable(QStringLiteral("column '%1': %2 px for %3 px of text")
                            .arg(text)
                            .arg(room)
                            .arg(header->fontMetrics().horizontalAdvance(text))));
  }

  // The time axis fits the data: its unit from the span drawn, the last decision inside the range; a burst
  // faster than the clock's microseconds by decision number.
  const double lastSeconds = static_cast<double>(controller_->model().lastTime()) / 1e6;
  const double decisions = static_cast<double>(controller_->model().mostInALane());
  const bool byDecision = lastSeconds * 1e6 < decisions;
  const double spanSeconds =
      byDecision ? decisions / 1e6 : std::max({lastSeconds, static_cast<double>(controller_->spanUs()) / 1e6, 1e-3});
  const TimeScale scale = byDecision ? decisionScale() : timeScaleFor(spanSeconds);
  QCOMPARE(scale.unit, unit);
  for (LaneChart* lane : lanes->lanes()) {
    QCOMPARE(lane->timeUnit(), unit);
    QVERIFY2(lane->timeAxis()->titleText().startsWith(unit + QLatin1Char(' ')), qPrintable(lane->timeAxis()->titleText()));
    const double last = byDecision ? decisions - 1 : lastSeconds * scale.perSecond;
    QVERIFY2(lane->timeAxis()->max() >= last && lane->timeAxis()->max() <= 2.5 * spanSeconds * scale.perSecond,
             qPrintable(QStringLiteral("axis to %1 %2 for the last decision at %3").arg(lane->timeAxis()->max()).arg(unit).arg(last)));
  }
  QVERIFY2(lanes->levelChart()->xAxisMax() <= 2.5 * spanSeconds * scale.perSecond,
           qPrintable(QString::number(lanes->levelChart()->xAxisMax())));
}

QTEST_MAIN(UiLayoutTest)
#include "test_ui_layout.moc"
