#include "ui/charts/peak_distribution_chart.hpp"

#include <QMouseEvent>
#include <QPainter>
#include <algorithm>
#include <cmath>

namespace rl::ui {

namespace {
constexpr int kBins = 48;
constexpr int kLeft = 58, kBottom = 34, kTop = 26, kRight = 12;
}  // namespace

PeakDistributionChart::PeakDistributionChart(QWidget* parent) : QWidget(parent) {
  setMinimumSize(160, 80);
  setCursor(Qt::SizeHorCursor);
}

void PeakDistributionChart::setPeaks(std::vector<std::int64_t> peaks, const QString& windowWords) {
  peaks_ = std::move(peaks);
  window_ = windowWords;
  maxPeak_ = std::max<std::int64_t>(1, peaks_.empty() ? 1 : *std::max_element(peaks_.begin(), peaks_.end()));
  bins_.assign(kBins, 0);
  const double top = std::log(static_cast<double>(maxPeak_) + 1);
  for (std::int64_t p : peaks_) {
    const int b = static_cast<int>(std::log(static_cast<double>(p) + 1) / top * (kBins - 1));
    ++bins_[static_cast<std::size_t>(std::clamp(b, 0, kBins - 1))];
  }
  update();
}

void PeakDistributionChart::setLimit(std::int64_t limit) {
  limit = std::clamp<std::int64_t>(limit, 1, std::max<std::int64_t>(maxPeak_, 1));
  if (limit == limit_) return;
  limit_ = limit;
  update();
  emit limitChanged(limit_);
}

void PeakDistributionChart::setCaption(const QString& text) {
  caption_ = text;
  update();
}

QRect PeakDistributionChart::plotRect() const { return rect().adjusted(kLeft, kTop, -kRight, -kBottom); }

int PeakDistributionChart::xOf(std::int64_t v) const {
  const QRect pr = plotRect();
  const double f = std::log(static_cast<double>(v) + 1) / std::log(static_cast<double>(maxPeak_) + 1);
  return pr.left() + static_cast<int>(std::lround(f * pr.width()));
}

std::int64_t PeakDistributionChart::limitAt(int x) const {
  const QRect pr = plotRect();
  const double f = std::clamp(static_cast<double>(x - pr.left()) / std::max(pr.width(), 1), 0.0, 1.0);
  return static_cast<std::int64_t>(std::llround(std::exp(f * std::log(static_cast<double>(maxPeak_) + 1)) - 1));
}

void PeakDistributionChart::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), palette().base());
  const QRect pr = plotRect();
  p.setPen(palette().text().color());
  p.drawText(QRect(0, 2, width(), kTop - 4), Qt::AlignCenter,
             caption_.isEmpty() ? tr("Per-client peak requests in %1: drag the line to see what a limit cuts").arg(window_)
                                : caption_);
  if (peaks_.empty()) return;
  const int most = std::max(1, *std::max_element(bins_.begin(), bins_.end()));
  const double bw = static_cast<double>(pr.width()) / kBins;
  for (int b = 0; b < kBins; ++b) {
    if (bins_[static_cast<std::size_t>(b)] == 0) continue;
    const double h = std::log(bins_[static_cast<std::size_t>(b)] + 1.0) / std::log(most + 1.0) * pr.height();
    p.fillRect(QRectF(pr.left() + b * bw + 1, pr.bottom() - h, bw - 2, h), QColor(3, 102, 214));
  }
  p.drawLine(pr.bottomLeft(), pr.bottomRight());
  // The clients axis (log, as the bars): 1, 10, 100 ... up to the tallest bar.
  p.drawLine(pr.bottomLeft(), pr.topLeft());
  for (int tick = 1; tick <= most; tick *= 10) {
    const int y = pr.bottom() - static_cast<int>(std::lround(std::log(tick + 1.0) / std::log(most + 1.0) * pr.height()));
    p.drawLine(pr.left() - 3, y, pr.left(), y);
    p.drawText(QRect(pr.left() - 40, y - 7, 35, 14), Qt::AlignRight | Qt::AlignVCenter, QString::number(tick));
  }
  p.save();
  p.translate(12, pr.center().y());
  p.rotate(-90);
  p.drawText(QRect(-pr.height() / 2, -8, pr.height(), 16), Qt::AlignCenter, tr("clients"));
  p.restore();
  for (std::int64_t tick = 1; tick <= maxPeak_; tick *= 10)
    p.drawText(QRect(xOf(tick) - 30, pr.bottom() + 2, 60, 14), Qt::AlignHCenter, QString::number(tick));
  p.drawText(QRect(pr.left(), height() - 16, pr.width(), 14), Qt::AlignCenter,
             tr("peak requests in %1 per client (log); bars: clients at that peak (log)").arg(window_));
  const int x = xOf(limit_);
  p.setPen(QPen(QColor(215, 58, 73), 2));
  p.drawLine(x, pr.top(), x, pr.bottom());
  p.drawText(QRect(x + 4, pr.top(), 120, 14), Qt::AlignLeft, tr("limit %1").arg(limit_));
}

void PeakDistributionChart::mousePressEvent(QMouseEvent* e) { setLimit(limitAt(e->position().toPoint().x())); }

void PeakDistributionChart::mouseMoveEvent(QMouseEvent* e) {
  if (e->buttons() & Qt::LeftButton) setLimit(limitAt(e->position().toPoint().x()));
}

}  // namespace rl::ui
