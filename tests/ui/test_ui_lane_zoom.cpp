// Zoom, pan and the hover read-out on the lanes, offscreen with real widgets:
// the boundary preset (memory, virtual clock) is run, then the wheel, a drag
// and a double-click are sent to a lane as a user's pointer would send them.
// Every lane and the level chart share one time axis through all of it, and
// the read-out at the end of the run says what the run document says: the
// fixed window admitted twice its limit within one window, the sliding log
// exactly its limit.

#include <QtTest>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QValueAxis>

#include "ui/charts/chart_lane.hpp"
#include "ui/charts/lane_pointer.hpp"
#include "ui/panels/lanes_panel.hpp"
#include "ui/main_window.hpp"
#include "ui/presets.hpp"
#include "ui/workers/worker_controller.hpp"

using namespace rl;
using namespace rl::ui;

namespace {
void wheel(LaneChart* lane, QPoint at, int notches) {
  QWheelEvent e(at, lane->viewport()->mapToGlobal(at), QPoint(), QPoint(0, 120 * notches), Qt::NoButton, Qt::NoModifier,
                Qt::NoScrollPhase, false);
  QApplication::sendEvent(lane->viewport(), &e);
}

void mouse(LaneChart* lane, QEvent::Type type, QPoint at, Qt::MouseButton button, Qt::MouseButtons buttons) {
  QMouseEvent e(type, at, lane->viewport()->mapToGlobal(at), button, buttons, Qt::NoModifier);
  QApplication::sendEvent(lane->viewport(), &e);
}

// The number after `word` in a read-out ("admitted 200" -> 200), -1 if absent.
double numberAfter(const QString& readout, const QString& word) {
  const QStringList parts = readout.split(QStringLiteral("   "));
  for (const QString& p : parts)
    if (p.startsWith(word + QLatin1Char(' '))) return p.mid(word.size() + 1).section(QLatin1Char(' '), 0, 0).toDouble();
  return -1;
}
}  // namespace

class UiLaneZoomTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase();
  void hoverReadsOutTheRunDocumentsFigures();
  void wheelDragAndDoubleClickMoveEveryLaneTogether();
  void wheelOffThePlotDoesNotZoom();

 private:
  std::unique_ptr<WorkerController> controller_;
  std::unique_ptr<MainWindow> window_;
  QJsonObject fixed_, sliding_;  // the run document's entries
};

void UiLaneZoomTest::initTestCase() {
  QStandardPaths::setTestModeEnabled(true);
  controller_ = std::make_unique<WorkerController>();
  window_ = std::make_unique<MainWindow>(*controller_);
  window_->resize(1024, 700);
  window_->show();
  window_->applyPreset(*findPreset(QStringLiteral("boundary")));
  QSignalSpy done(window_.get(), &MainWindow::stormDone);
  QVERIFY(window_->startStorm());
  QVERIFY(done.wait(60'000));
  const QJsonObject doc = QJsonDocument::fromJson(window_->runDocumentText()).object();
  for (const QJsonValue& a : doc.value(QStringLiteral("runs")).toArray()) {
    const QJsonObject o = a.toObject();
    if (o.value(QStringLiteral("algorithm")) == QStringLiteral("fixed_window")) fixed_ = o;
    if (o.value(QStringLiteral("algorithm")) == QStringLiteral("sliding_log")) sliding_ = o;
  }
  QVERIFY2(!fixed_.isEmpty() && !sliding_.isEmpty(), window_->runDocumentText().left(1000).constData());
  QTRY_VERIFY(window_->lanesPanel()->lanes().size() == 6);
}

void UiLaneZoomTest::hoverReadsOutTheRunDocumentsFigures() {
  const auto lanes = window_->lanesPanel()->lanes();
  for (LaneChart* lane : {lanes[0], lanes[1]}) {
    const QJsonObject& entry = lane->algorithm() == Algorithm::FixedWindow ? fixed_ : sliding_;
    QVERIFY(lane->pointer()->readout().isEmpty());  // nothing until the pointer is on the plot
    // The end of the run: both bursts are inside the trailing window.
    const double end = lane->shownPoints().admittedInWindow.back().x();
    const QPoint at = lane->viewportPosOf(end) - QPoint(1, 0);
    mouse(lane, QEvent::MouseMove, at, Qt::NoButton, Qt::NoButton);
    const QString readout = lane->pointer()->readout();
    QVERIFY2(readout.startsWith(QStringLiteral("t ")), qPrintable(readout));
    QCOMPARE(numberAfter(readout, QStringLiteral("admitted")), entry.value(QStringLiteral("max_admitted_in_window")).toDouble());
    QCOMPARE(numberAfter(readout, QStringLiteral("limit")), entry.value(QStringLiteral("limit")).toDouble());
    QVERIFY2(numberAfter(readout, QStringLiteral("denied")) >= 0, qPrintable(readout));
    const double t = numberAfter(readout, QStringLiteral("t"));
    QVERIFY2(std::abs(t - end) < 0.05 * end, qPrintable(readout));  // the time under the pointer
    QEvent leave(QEvent::Leave);
    QApplication::sendEvent(lane->viewport(), &leave);
    QVERIFY(lane->pointer()->readout().isEmpty());
  }
  QCOMPARE(fixed_.value(QStringLiteral("max_admitted_in_window")).toInt(), 2 * fixed_.value(QStringLiteral("limit")).toInt());
}

void UiLaneZoomTest::wheelDragAndDoubleClickMoveEveryLaneTogether() {
  LanesPanel* panel = window_->lanesPanel();
  LaneChart* lane = panel->lanes().at(2);
  const double wholeMin = lane->timeAxis()->min(), wholeMax = lane->timeAxis()->max();
  const auto sameAxisEverywhere = [&] {
    for (LaneChart* l : panel->lanes())
      if (l->timeAxis()->min() != lane->timeAxis()->min() || l->timeAxis()->max() != lane->timeAxis()->max()) return false;
    return panel->levelChart()->timeAxis()->min() == lane->timeAxis()->min() &&
           panel->levelChart()->timeAxis()->max() == lane->timeAxis()->max();
  };
  QVERIFY(sameAxisEverywhere());
  QVERIFY(!panel->zoomedTo());

  // Three notches in around the window boundary at 60 s: it stays under the pointer.
  const QPoint at = lane->viewportPosOf(60.0);
  const double plotWidth = lane->chart()->plotArea().width();
  wheel(lane, at, 3);
  const auto view = panel->zoomedTo();
  QVERIFY(view);
  const double step = LanePointer::kZoomStep;
  QVERIFY2(std::abs((view->to - view->from) - step * step * step * (wholeMax - wholeMin)) < 0.2 * (wholeMax - wholeMin),
           qPrintable(QStringLiteral("%1..%2 of %3..%4").arg(view->from).arg(view->to).arg(wholeMin).arg(wholeMax)));
  QVERIFY2(view->from < 60.0 && 60.0 < view->to, qPrintable(QStringLiteral("%1 %2").arg(view->from).arg(view->to)));
  QCOMPARE(lane->timeAxis()->min(), view->from);
  QCOMPARE(lane->timeAxis()->max(), view->to);
  QVERIFY(sameAxisEverywhere());
  QVERIFY2(std::abs(lane->viewportPosOf(60.0).x() - at.x()) <= 1,
           qPrintable(QStringLiteral("%1 -> %2").arg(at.x()).arg(lane->viewportPosOf(60.0).x())));
  QCOMPARE(lane->chart()->plotArea().width(), plotWidth);  // the zoom line never widens the lanes
  QVERIFY(panel->zoomLine()->isVisible());
  QVERIFY2(panel->zoomLine()->text().startsWith(QStringLiteral("Zoomed: ")), qPrintable(panel->zoomLine()->text()));

  // A drag 80 px to the right shows an earlier part, as wide as before.
  const double width = view->to - view->from;
  const QPoint from = lane->viewportPosOf(60.0);
  const double secondsPerPixel = width / lane->chart()->plotArea().width();
  mouse(lane, QEvent::MouseButtonPress, from, Qt::LeftButton, Qt::LeftButton);
  mouse(lane, QEvent::MouseMove, from + QPoint(40, 0), Qt::NoButton, Qt::LeftButton);
  mouse(lane, QEvent::MouseMove, from + QPoint(80, 0), Qt::NoButton, Qt::LeftButton);
  mouse(lane, QEvent::MouseButtonRelease, from + QPoint(80, 0), Qt::LeftButton, Qt::NoButton);
  const auto panned = panel->zoomedTo();
  QVERIFY(panned);
  QVERIFY2(std::abs((view->from - panned->from) - 80 * secondsPerPixel) < 3 * secondsPerPixel,
           qPrintable(QStringLiteral("%1 -> %2, %3 s/px").arg(view->from).arg(panned->from).arg(secondsPerPixel)));
  QVERIFY(std::abs((panned->to - panned->from) - width) < 1e-9);
  QVERIFY(sameAxisEverywhere());

  // A double-click on the plot shows the whole run again.
  mouse(lane, QEvent::MouseButtonDblClick, lane->viewportPosOf(60.0), Qt::LeftButton, Qt::LeftButton);
  QVERIFY(!panel->zoomedTo());
  QCOMPARE(lane->timeAxis()->min(), wholeMin);
  QCOMPARE(lane->timeAxis()->max(), wholeMax);
  QVERIFY(sameAxisEverywhere());
  QVERIFY(!panel->zoomLine()->isVisible());
}

void UiLaneZoomTest::wheelOffThePlotDoesNotZoom() {
  LanesPanel* panel = window_->lanesPanel();
  LaneChart* lane = panel->lanes().at(0);
  QVERIFY(!panel->zoomedTo());
  wheel(lane, QPoint(lane->viewport()->width() / 2, 3), 2);  // on the title: the lanes scroll instead
  QVERIFY(!panel->zoomedTo());
  wheel(lane, lane->viewportPosOf(60.0), 1);
  QVERIFY(panel->zoomedTo());
  // A new storm shows its whole run.
  QSignalSpy done(window_.get(), &MainWindow::stormDone);
  QVERIFY(window_->startStorm());
  QVERIFY(done.wait(60'000));
  QVERIFY(!panel->zoomedTo());
}

QTEST_MAIN(UiLaneZoomTest)
#include "test_ui_lane_zoom.moc"
