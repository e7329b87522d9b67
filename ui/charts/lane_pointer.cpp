#include "ui/charts/lane_pointer.hpp"

#include <QChart>
#include <QGraphicsLineItem>
#include <QGraphicsRectItem>
#include <QGraphicsSimpleTextItem>
#include <QMouseEvent>
#include <QPen>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

#include "ui/charts/chart_lane.hpp"

namespace rl::ui {

namespace {
// The value of a step series at x: its last point at or before x.
std::optional<double> valueAt(const QList<QPointF>& points, double x) {
  const auto after = std::upper_bound(points.begin(), points.end(), x, [](double v, const QPointF& p) { return v < p.x(); });
  if (after == points.begin()) return std::nullopt;
  return std::prev(after)->y();
}

QString number(double v) { return QString::number(v, 'f', std::abs(v - std::round(v)) < 1e-9 ? 0 : 2); }
}  // namespace

QString laneReadout(const LanePoints& p, double seconds, const TimeScale& scale) {
  const auto admitted = valueAt(p.admittedInWindow, seconds);
  if (!admitted) return {};
  QStringList parts;
  const double t = seconds * scale.perSecond;
  parts << (p.byDecision ? QObject::tr("decision %1").arg(std::floor(t)) : QObject::tr("t %1 %2").arg(QString::number(t, 'f', 3), scale.unit));
  parts << QObject::tr("admitted %1").arg(number(*admitted));
  if (const auto denied = valueAt(p.deniedInWindow, seconds)) parts << QObject::tr("denied %1").arg(number(*denied));
  if (const auto limit = valueAt(p.limit, seconds)) parts << QObject::tr("limit %1").arg(number(*limit));
  for (const QList<QPointF>& piece : p.level)
    if (!piece.isEmpty() && piece.front().x() <= seconds && seconds <= piece.back().x())
      if (const auto level = valueAt(piece, seconds)) parts << QObject::tr("level %1").arg(number(*level));
  return parts.join(QStringLiteral("   "));
}

LanePointer::LanePointer(LaneChart* lane)
    : QObject(lane),
      lane_(lane),
      cursor_(new QGraphicsLineItem(lane->chart())),
      text_(new QGraphicsSimpleTextItem(lane->chart())),
      backdrop_(new QGraphicsRectItem(lane->chart())) {
  cursor_->setPen(QPen(QColor(128, 128, 128, 180), 1.0, Qt::DashLine));
  cursor_->setZValue(20);
  backdrop_->setZValue(21);
  backdrop_->setPen(Qt::NoPen);
  text_->setZValue(22);
  cursor_->hide();
  text_->hide();
  backdrop_->hide();
  lane->viewport()->setMouseTracking(true);
  lane->viewport()->installEventFilter(this);
}

void LanePointer::hover(std::optional<double> seconds) {
  readout_ = seconds ? laneReadout(lane_->shownPoints(), *seconds, lane_->timeScale()) : QString();
  if (readout_.isEmpty()) {
    cursor_->hide();
    text_->hide();
    backdrop_->hide();
    return;
  }
  const QRectF plot = lane_->chart()->plotArea();
  const double x = lane_->chartXOf(*seconds);
  cursor_->setLine(x, plot.top(), x, plot.bottom());
  text_->setText(readout_);
  text_->setBrush(lane_->chart()->titleBrush());
  text_->setFont(lane_->chart()->titleFont());
  // Beside the cursor, inside the plot: to its left when the right side has no room.
  const double width = text_->boundingRect().width();
  const double left = x + 6 + width <= plot.right() ? x + 6 : std::max(plot.left(), x - 6 - width);
  text_->setPos(left, plot.top() + 2);
  // Opposite the text (the chart theme's title colour): light behind dark text, dark behind light.
  QColor back = lane_->chart()->titleBrush().color().lightness() < 128 ? QColor(255, 255, 255) : QColor(32, 32, 32);
  back.setAlpha(220);
  backdrop_->setBrush(back);
  backdrop_->setRect(QRectF(text_->pos(), text_->boundingRect().size()).adjusted(-3, -1, 3, 1));
  cursor_->show();
  backdrop_->show();
  text_->show();
}

bool LanePointer::eventFilter(QObject* watched, QEvent* event) {
  if (watched != lane_->viewport()) return false;
  switch (event->type()) {
    case QEvent::Wheel: {
      auto* e = static_cast<QWheelEvent*>(event);
      const auto at = lane_->secondsAt(e->position().toPoint());
      if (!at || e->angleDelta().y() == 0) return false;  // off the plot: the lanes scroll
      emit zoomRequested(*at, std::pow(kZoomStep, e->angleDelta().y() / 120.0));  // a notch is 120
      return true;
    }
    case QEvent::MouseButtonPress: {
      auto* e = static_cast<QMouseEvent*>(event);
      if (e->button() != Qt::LeftButton) return false;
      dragAt_ = lane_->secondsAt(e->position().toPoint());
      return dragAt_.has_value();
    }
    case QEvent::MouseMove: {
      auto* e = static_cast<QMouseEvent*>(event);
      const auto at = lane_->secondsAt(e->position().toPoint());
      if (dragAt_ && (e->buttons() & Qt::LeftButton)) {
        if (at && *at != *dragAt_) emit panRequested(*dragAt_ - *at);  // the instant grabbed stays under the pointer
        hover(std::nullopt);
        return true;
      }
      hover(at);
      return false;
    }
    case QEvent::MouseButtonRelease:
      if (!dragAt_) return false;
      dragAt_.reset();
      return true;
    case QEvent::MouseButtonDblClick:
      if (!lane_->secondsAt(static_cast<QMouseEvent*>(event)->position().toPoint())) return false;
      emit resetRequested();
      return true;
    case QEvent::ToolTip:  // on the plot the read-out says more than the lane's tooltip
      return lane_->secondsAt(static_cast<QHelpEvent*>(event)->pos()).has_value();
    case QEvent::Leave:
      hover(std::nullopt);
      return false;
    default:
      return false;
  }
}

}  // namespace rl::ui
