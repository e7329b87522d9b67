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

// The colour scale's position of a share: 0 at a hundredth of the target, 2/3 at the target, 1 at ten times it.
double scaleOf(double share, double target) {
  return std::clamp((std::log10(share / std::max(target, 1e-9)) + 2.0) / 3.0, 0.0, 1.0);
}

QString percent(double share) { return QString::number(100.0 * share, 'g', 3) + QLatin1Char('%'); }

double secondAxis(const Quota& q, bool refill) {
  return refill ? q.refillPerSecond.value_or(q.ratePerSecond()) : static_cast<double>(q.window.count()) / 1e6;
}

int indexOf(const std::vector<double>& v, double x) {
  return static_cast<int>(std::lower_bound(v.begin(), v.end(), x) - v.begin());
}
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
  rows_.clear();
  cols_.clear();
  cells_.clear();
  recommended_.reset();
  if (result_) {
    const auto& pts = result_->points;
    refillAxis_ = std::any_of(pts.begin(), pts.end(), [&](const TunePoint& p) {
      return p.algorithm == algorithm && p.quota.refillPerSecond.has_value();
    });
    for (const TunePoint& p : pts) {
      if (p.algorithm != algorithm) continue;
      rows_.push_back(p.quota.limit);
      cols_.push_back(secondAxis(p.quota, refillAxis_));
    }
    std::sort(rows_.begin(), rows_.end());
    rows_.erase(std::unique(rows_.begin(), rows_.end()), rows_.end());
    std::sort(cols_.begin(), cols_.end());
    cols_.erase(std::unique(cols_.begin(), cols_.end()), cols_.end());
    cells_.assign(rows_.size() * cols_.size(), std::nullopt);
    for (std::size_t i = 0; i < pts.size(); ++i) {
      if (pts[i].algorithm != algorithm || !pts[i].computed) continue;
      const auto r = std::lower_bound(rows_.begin(), rows_.end(), pts[i].quota.limit) - rows_.begin();
      cells_[static_cast<std::size_t>(r) * cols_.size() + static_cast<std::size_t>(indexOf(cols_, secondAxis(pts[i].quota, refillAxis_)))] = i;
    }
    recommended_ = recommend(*result_, algorithm, target);
  }
  update();
}

QRect TuneHeatmap::plotRect() const { return rect().adjusted(kLeft, kTop, -kRight, -kBottom); }

QRectF TuneHeatmap::cellRect(int row, int col) const {
  const QRect pr = plotRect();
  const double w = static_cast<double>(pr.width()) / static_cast<double>(std::max<std::size_t>(cols_.size(), 1));
  const double h = static_cast<double>(pr.height()) / static_cast<double>(std::max<std::size_t>(rows_.size(), 1));
  return {pr.left() + col * w, pr.bottom() + 1 - (row + 1) * h, w, h};  // limits grow upwards
}

std::optional<QPoint> TuneHeatmap::cellCenter(std::size_t index) const {
  for (std::size_t k = 0; k < cells_.size(); ++k)
    if (cells_[k] == index)
      return cellRect(static_cast<int>(k / cols_.size()), static_cast<int>(k % cols_.size())).center().toPoint();
  return std::nullopt;
}

std::optional<std::size_t> TuneHeatmap::pointAt(QPoint pos) const {
  for (std::size_t k = 0; k < cells_.size(); ++k)
    if (cellRect(static_cast<int>(k / cols_.size()), static_cast<int>(k % cols_.size())).contains(pos)) return cells_[k];
  return std::nullopt;
}

QColor TuneHeatmap::colourFor(double share) const {
  if (share <= 0) return QColor(46, 160, 67);
  // Log scale around the target: 1/100 of it is green, the target yellow, 10x red.
  const double t = scaleOf(share, target_);
  const QColor a = t < 2.0 / 3 ? QColor(46, 160, 67) : QColor(240, 200, 40);
  const QColor b = t < 2.0 / 3 ? QColor(240, 200, 40) : QColor(215, 58, 73);
  const double u = t < 2.0 / 3 ? t * 1.5 : (t - 2.0 / 3) * 3;
  return QColor::fromRgbF(static_cast<float>(a.redF() + (b.redF() - a.redF()) * u),
                          static_cast<float>(a.greenF() + (b.greenF() - a.greenF()) * u),
                          static_cast<float>(a.blueF() + (b.blueF() - a.blueF()) * u));
}

QRect TuneHeatmap::legendBar() const {
  const QRect pr = plotRect();
  return {pr.right() + kBarGap, pr.top(), kBarWidth, pr.height()};
}

int TuneHeatmap::legendY(double share) const {
  const QRect bar = legendBar();
  return bar.bottom() - static_cast<int>(std::lround(scaleOf(share, target_) * (bar.height() - 1)));
}

QStringList TuneHeatmap::legendLabels() const {
  return {tr("\u2265 %1").arg(percent(10 * target_)), tr("%1 target").arg(percent(target_)),
          tr("\u2264 %1").arg(percent(target_ / 100))};
}

void TuneHeatmap::paintLegend(QPainter& p) const {
  const QRect bar = legendBar();
  for (int y = bar.top(); y <= bar.bottom(); ++y) {  // each row the colour of the share at that height
    const double t = static_cast<double>(bar.bottom() - y) / std::max(bar.height() - 1, 1);
    p.fillRect(QRect(bar.left(), y, bar.width(), 1), colourFor(target_ * std::pow(10.0, 3 * t - 2)));
  }
  p.setPen(palette().text().color());
  p.drawRect(bar.adjusted(0, 0, -1, -1));
  const QFontMetrics fm = p.fontMetrics();
  const QStringList labels = legendLabels();
  const double shares[] = {10 * target_, target_, target_ / 100};
  for (int i = 0; i < 3; ++i) {
    const int y = legendY(shares[i]);
    p.drawLine(bar.right(), y, bar.right() + 3, y);
    p.drawText(QRect(bar.right() + 6, y - fm.height() / 2, width() - bar.right() - 6, fm.height()),
               Qt::AlignLeft | Qt::AlignVCenter, labels[i]);
  }
  p.drawText(QRect(bar.left() - kBarGap, bar.bottom() + 2, width() - bar.left() + kBarGap, 2 * fm.height()),
             Qt::AlignHCenter | Qt::AlignTop | Qt::TextWordWrap, tr("legit denied"));
}

bool TuneHeatmap::meets(int row, int col) const {
  if (row < 0 || col < 0 || row >= static_cast<int>(rows_.size()) || col >= static_cast<int>(cols_.size())) return false;
  const auto& c = cells_[static_cast<std::size_t>(row) * cols_.size() + static_cast<std::size_t>(col)];
  return c && result_->points[*c].legitDeniedShare() <= target_;
}

void TuneHeatmap::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), palette().base());
  if (cells_.empty()) {
    p.drawText(rect(), Qt::AlignCenter, tr("Open a trace and sweep: each cell will be one quota"));
    return;
  }
  for (std::size_t k = 0; k < cells_.size(); ++k) {
    const QRectF r = cellRect(static_cast<int>(k / cols_.size()), static_cast<int>(k % cols_.size()));
    p.fillRect(r, cells_[k] ? colourFor(result_->points[*cells_[k]].legitDeniedShare()) : palette().window().color());
  }
  paintContour(p);
  if (auto c = recommended_ ? cellCenter(*recommended_) : std::nullopt) {
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
  for (int r = 0; r < static_cast<int>(rows_.size()); ++r)
    for (int c = 0; c < static_cast<int>(cols_.size()); ++c) {
      if (!meets(r, c)) continue;
      const QRectF cell = cellRect(r, c);
      if (!meets(r, c - 1) && c > 0) p.drawLine(cell.topLeft(), cell.bottomLeft());
      if (!meets(r, c + 1) && c + 1 < static_cast<int>(cols_.size())) p.drawLine(cell.topRight(), cell.bottomRight());
      if (!meets(r - 1, c) && r > 0) p.drawLine(cell.bottomLeft(), cell.bottomRight());
      if (!meets(r + 1, c) && r + 1 < static_cast<int>(rows_.size())) p.drawLine(cell.topLeft(), cell.topRight());
    }
}

void TuneHeatmap::paintLabels(QPainter& p) const {
  p.setPen(palette().text().color());
  const QFontMetrics fm = p.fontMetrics();
  const int rowStep = std::max(1, static_cast<int>(rows_.size()) * fm.height() / std::max(plotRect().height(), 1) + 1);
  for (int r = 0; r < static_cast<int>(rows_.size()); r += rowStep) {
    const QRectF cell = cellRect(r, 0);
    p.drawText(QRectF(0, cell.center().y() - fm.height() / 2.0, kLeft - 6, fm.height()), Qt::AlignRight | Qt::AlignVCenter,
               (refillAxis_ ? tr("burst %1") : tr("%1 req")).arg(rows_[static_cast<std::size_t>(r)]));
  }
  const int colStep = std::max(1, static_cast<int>(cols_.size()) * fm.horizontalAdvance(QStringLiteral("00.0 req/s ")) /
                                      std::max(plotRect().width(), 1) + 1);
  for (int c = 0; c < static_cast<int>(cols_.size()); c += colStep) {
    const QRectF cell = cellRect(0, c);
    const double v = cols_[static_cast<std::size_t>(c)];
    p.drawText(QRectF(cell.left() - 20, cell.bottom() + 2, cell.width() + 40, fm.height()), Qt::AlignHCenter,
               refillAxis_ ? tr("%1 req/s").arg(v) : tr("per %1 s").arg(v));
  }
  p.drawText(QRect(kLeft, height() - 2 * fm.height() - 4, plotRect().width(), fm.height() * 2),
             Qt::AlignCenter | Qt::TextWordWrap,
             refillAxis_ ? tr("refill rate (req/s); rows: burst. Ring: recommended; line: target %1%")
                               .arg(100.0 * target_)
                         : tr("window; rows: limit per window. Ring: recommended; line: target %1%").arg(100.0 * target_));
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
