#include "ui/charts/chart_parts.hpp"

#include <QApplication>
#include <QChart>
#include <QLineSeries>
#include <QValueAxis>
#include <algorithm>
#include <cmath>

#include "metrics/chart_axis.hpp"

namespace rl::ui {

QChart* makeChart() {
  auto* chart = new QChart;
  chart->setMargins(QMargins(2, 2, 2, 2));
  chart->setBackgroundRoundness(0);
  chart->setAnimationOptions(QChart::NoAnimation);
  return chart;
}

QValueAxis* makeAxis(QChart* chart, Qt::Alignment side, const QString& title) {
  auto* axis = new QValueAxis;
  axis->setTitleText(title);
  styleAxisFonts(axis);
  chart->addAxis(axis, side);
  return axis;
}

void attach(QChart* chart, QAbstractSeries* s, QValueAxis* x, QValueAxis* y) {
  chart->addSeries(s);
  s->attachAxis(x);
  s->attachAxis(y);
}

void setPen(QLineSeries* s, const QColor& c, qreal width, Qt::PenStyle style) {
  QPen pen(c);
  pen.setWidthF(width);
  pen.setStyle(style);
  s->setPen(pen);
}

/// A dash pattern per algorithm, in pen widths (empty = solid). Token bucket and
/// GCRA are the same math, so their lines coincide: solid under dots stays visible.
QList<qreal> dashPattern(Algorithm a) {
  switch (a) {
    case Algorithm::FixedWindow: return {};
    case Algorithm::SlidingLog: return {6, 3};
    case Algorithm::SlidingCounter: return {6, 2, 1.5, 2};
    case Algorithm::TokenBucket: return {};
    case Algorithm::LeakyBucket: return {4, 2, 1.5, 2, 1.5, 2};
    case Algorithm::Gcra: return {1.5, 2.5};
  }
  return {};
}

/// Lines drawn earlier are wider (and their point markers larger): a later
/// line lying exactly on an earlier one leaves its edges showing.
qreal strokeWidth(int drawIndex) { return std::max(1.3, 2.8 - 0.25 * drawIndex); }

int plotColumns(const QChart* chart) {
  return std::max(100, static_cast<int>(chart->plotArea().width()));
}

void styleAxisFonts(QValueAxis* axis) {
  QFont f = QApplication::font();
  f.setPointSizeF(std::max(7.0, f.pointSizeF() - 1));
  axis->setLabelsFont(f);
  axis->setTitleFont(f);
}

int timeTicksFor(int pixels) { return std::clamp(pixels / 75, 2, 10); }

void setNiceRange(QValueAxis* axis, double max, int ticks, double min) {
  max = std::max(max, min + 1e-3);
  const double step = niceStep(max - min, ticks);
  axis->setTickType(QValueAxis::TicksDynamic);
  axis->setTickAnchor(0);
  axis->setTickInterval(step);
  axis->setRange(std::floor(min / step + 1e-9) * step, std::ceil(max / step - 1e-9) * step);
  const int decimals = step >= 1 ? 0 : static_cast<int>(std::ceil(-std::log10(step) - 1e-9));
  axis->setLabelFormat(QStringLiteral("%.") + QString::number(decimals) + QStringLiteral("f"));
}

}  // namespace rl::ui
