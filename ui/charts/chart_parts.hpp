#pragma once
// What the window's charts share: a bare chart, an axis with the chart fonts,
// round axis ranges and tick counts, the per-algorithm dash patterns and line
// widths, and the plot's pixel columns (for decimation).

#include <QList>
#include <Qt>

#include "limiter/algorithm.hpp"

class QAbstractSeries;
class QChart;
class QColor;
class QLineSeries;
class QString;
class QValueAxis;

namespace rl::ui {

/// A chart with small margins, square corners and no animation.
QChart* makeChart();
/// A value axis titled `title` on `side` of `chart`, in the chart fonts.
QValueAxis* makeAxis(QChart* chart, Qt::Alignment side, const QString& title);
/// Adds `s` to `chart` on axes `x` and `y`.
void attach(QChart* chart, QAbstractSeries* s, QValueAxis* x, QValueAxis* y);
/// Gives `s` a pen of colour `c`, `width` and `style`.
void setPen(QLineSeries* s, const QColor& c, qreal width, Qt::PenStyle style = Qt::SolidLine);
/// A dash pattern per algorithm, in pen widths (empty = solid).
QList<qreal> dashPattern(Algorithm a);
/// Lines drawn earlier are wider, so a later line lying on an earlier one leaves its edges showing.
qreal strokeWidth(int drawIndex);
/// Pixel columns of the plot area (at least 100).
int plotColumns(const QChart* chart);
/// Sets the axis to [min rounded down, max rounded up] with round ticks (1, 2 or 5 x 10^k, about
/// `ticks` of them: metrics/chart_axis.hpp).
void setNiceRange(QValueAxis* axis, double max, int ticks, double min = 0);
/// How many ticks a time axis `pixels` wide takes without eliding its labels.
int timeTicksFor(int pixels);
/// The chart axes' fonts (a step under the widget font); a chart theme resets them, so set again after one.
void styleAxisFonts(QValueAxis* axis);

}  // namespace rl::ui
