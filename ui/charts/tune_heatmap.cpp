#include "ui/charts/tune_heatmap.hpp"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <algorithm>
#include <cmath>

#include "ui/qt_text.hpp"

namespace rl::ui {

namespace {
constexpr int kLeft = 120, kBottom = 64, kTop = 8, kRight = 112;  // the right margin holds the colour legend
constexpr int kBarGap = 14, kBarWidth = 12;

QColor qColour(Rgb c) { return QColor(c.r, c.g, c.b); }
}  // namespace

TuneHeatmap::TuneHeatmap(QWidget* parent) : QWidget(parent) {
  setMouseTracking(true);
  setMinimumSize(160, 80);
}

QString TuneHeatmap::quotaWords(const Quota& q) { return qs(q.toString()); }

void TuneHeatmap::setResult(std::shared_ptr<const TuneResult> result, Algorithm algorithm, double target) {
  result_ = std::move(result);
  algorithm_ = algorithm;
  target_ = target;
  grid_ = result_ ? tuneCells(*result_, algorithm, target) : TuneCells{};
  update();
}

QRect TuneHeatmap::plotRect() const { return rect().adjusted(kLeft, kTop, -kRight, -kBottom); }

QRectF TuneHeatmap::cellRect(int row, int col) const {
  const QRect pr = plotRect();
  const double w = static_cast<double>(pr.width()) / static_cast<double>(std::max<std::size_t>(grid_.cols.size(), 1));
  const double h = static_cast<double>(pr.height()) / static_cast<double>(std::max<std::size_t>(grid_.rows.size(), 1));
  return {pr.left() + col * w, pr.bottom() + 1 - (row + 1) * h, w, h};  // limits grow upwards
}

std::optional<QPoint> TuneHeatmap::cellCenter(std::size_t index) const {
  const auto cell = grid_.find(index);
  if (!cell) return std::nullopt;
  return cellRect(cell->first, cell->second).center().toPoint();
}

std::optional<std::size_t> TuneHeatmap::pointAt(QPoint pos) const {
  for (int r = 0; r < static_cast<int>(grid_.rows.size()); ++r)
    for (int c = 0; c < static_cast<int>(grid_.cols.size()); ++c)
      if (cellRect(r, c).contains(pos)) return grid_.at(r, c);
  return std::nullopt;
}

QColor TuneHeatmap::colourFor(double share) const { return qColour(deniedColour(share, target_)); }

QRect TuneHeatmap::legendBar() const {
  const QRect pr = plotRect();
  return {pr.right() + kBarGap, pr.top(), kBarWidth, pr.height()};
}

int TuneHeatmap::legendY(double share) const {
  const QRect bar = legendBar();
  return bar.bottom() - static_cast<int>(std::lround(deniedScale(share, target_) * (bar.height() - 1)));
}

QStringList TuneHeatmap::legendLabels() const {
  QStringList out;
  for (const ScaleMark& m : scaleMarks(target_)) out << qs(m.words);
  return out;
}

void TuneHeatmap::paintLegend(QPainter& p) const {
  const QRect bar = legendBar();
  for (int y = bar.top(); y <= bar.bottom(); ++y) {  // each row the colour of the share at that height
    const double t = static_cast<double>(bar.bottom() - y) / std::max(bar.height() - 1, 1);
    p.fillRect(QRect(bar.left(), y, bar.width(), 1), qColour(scaleColour(t)));
  }
  p.setPen(palette().text().color());
  p.drawRect(bar.adjusted(0, 0, -1, -1));
  const QFontMetrics fm = p.fontMetrics();
  const auto marks = scaleMarks(target_);
  for (const ScaleMark& m : marks) {
    const int y = legendY(m.share);
    p.drawLine(bar.right(), y, bar.right() + 3, y);
    p.drawText(QRect(bar.right() + 6, y - fm.height() / 2, width() - bar.right() - 6, fm.height()),
               Qt::AlignLeft | Qt::AlignVCenter, qs(m.words));
  }
  p.drawText(QRect(bar.left() - kBarGap, bar.bottom() + 2, width() - bar.left() + kBarGap, 2 * fm.height()),
             Qt::AlignHCenter | Qt::AlignTop | Qt::TextWordWrap, tr("legit denied"));
}

void TuneHeatmap::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), palette().base());
  if (grid_.cells.empty()) {
    p.drawText(rect(), Qt::AlignCenter, tr("Open a trace and sweep: each cell will be one quota"));
    return;
  }
  for (int r = 0; r < static_cast<int>(grid_.rows.size()); ++r)
    for (int c = 0; c < static_cast<int>(grid_.cols.size()); ++c) {
      const auto i = grid_.at(r, c);
      p.fillRect(cellRect(r, c), i ? colourFor(result_->points[*i].legitDeniedShare()) : palette().window().color());
    }
  paintContour(p);
  if (auto c = grid_.recommended ? cellCenter(*grid_.recommended) : std::nullopt) {
    p.setRenderHint(QPainter::Antialiasing);
    p.setPen(QPen(palette().text().color(), 3));
    p.setBrush(Qt::NoBrush);
    p.drawEllipse(QPointF(*c), 7, 7);
  }
  paintLabels(p);
  paintLegend(p);
}

// The boundary between cells meeting the target and cells missing it.
void TuneHeatmap::paintContour(QPainter& p) const {
  p.setPen(QPen(palette().text().color(), 2));
  for (const ContourEdge& e : targetContour(grid_, *result_, target_)) {
    const QRectF cell = cellRect(e.row, e.col);
    switch (e.side) {
      case ContourEdge::Side::Left: p.drawLine(cell.topLeft(), cell.bottomLeft()); break;
      case ContourEdge::Side::Right: p.drawLine(cell.topRight(), cell.bottomRight()); break;
      case ContourEdge::Side::Bottom: p.drawLine(cell.bottomLeft(), cell.bottomRight()); break;
      case ContourEdge::Side::Top: p.drawLine(cell.topLeft(), cell.topRight()); break;
    }
  }
}

void TuneHeatmap::paintLabels(QPainter& p) const {
  p.setPen(palette().text().color());
  const QFontMetrics fm = p.fontMetrics();
  const int rowStep = std::max(1, static_cast<int>(grid_.rows.size()) * fm.height() / std::max(plotRect().height(), 1) + 1);
  for (int r = 0; r < static_cast<int>(grid_.rows.size()); r += rowStep) {
    const QRectF cell = cellRect(r, 0);
    p.drawText(QRectF(0, cell.center().y() - fm.height() / 2.0, kLeft - 6, fm.height()), Qt::AlignRight | Qt::AlignVCenter,
               qs(rowWords(grid_, r)));
  }
  const int colStep = std::max(1, static_cast<int>(grid_.cols.size()) * fm.horizontalAdvance(QStringLiteral("00.0 req/s ")) /
                                      std::max(plotRect().width(), 1) + 1);
  for (int c = 0; c < static_cast<int>(grid_.cols.size()); c += colStep) {
    const QRectF cell = cellRect(0, c);
    p.drawText(QRectF(cell.left() - 20, cell.bottom() + 2, cell.width() + 40, fm.height()), Qt::AlignHCenter,
               qs(columnWords(grid_, c)));
  }
  p.drawText(QRect(kLeft, height() - 2 * fm.height() - 4, plotRect().width(), fm.height() * 2),
             Qt::AlignCenter | Qt::TextWordWrap, qs(axisWords(grid_, target_)));
}

void TuneHeatmap::mousePressEvent(QMouseEvent* event) {
  if (auto i = pointAt(event->position().toPoint())) emit cellClicked(*i);
}

bool TuneHeatmap::event(QEvent* e) {
  if (e->type() == QEvent::ToolTip && result_) {
    auto* he = static_cast<QHelpEvent*>(e);
    if (auto i = pointAt(he->pos())) {
      const TunePoint& pt = result_->points[*i];
      QToolTip::showText(he->globalPos(),
                         tr("%1\nlegit denied %2% (%3 of %4)\nclients denied %5, worst admitted %6\nclick: replay the trace with this quota")
                             .arg(quotaWords(pt.quota))
                             .arg(100.0 * pt.legitDeniedShare(), 0, 'f', 4)
                             .arg(pt.outcome.legitDenied)
                             .arg(pt.outcome.legitOffered)
                             .arg(pt.outcome.clientsDenied)
                             .arg(pt.outcome.worstAdmitted),
                         this);
    } else {
      QToolTip::hideText();
    }
    return true;
  }
  return QWidget::event(e);
}

}  // namespace rl::ui
