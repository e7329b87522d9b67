#pragma once
// SeriesChart: one line per algorithm plus an optional reference line (level vs
// capacity, PTTL), on a time axis in s, ms or \u00b5s (time_scale.hpp); each
// algorithm has its own dash pattern, so identical lines stay visible, and a
// line broken by gaps (a store error has no level) is drawn in pieces. Every
// update is one QXYSeries::replace() per series, never append().

#include <QChartView>
#include <QList>
#include <QPen>
#include <QPointF>
#include <vector>

#include "limiter/algorithm.hpp"
#include "ui/charts/theme.hpp"
#include "ui/charts/time_scale.hpp"

class QLineSeries;
class QValueAxis;

namespace rl::ui {

class LaneLegend;

/// One line per algorithm plus an optional reference line; see the file comment.
class SeriesChart : public QChartView {
  Q_OBJECT
 public:
  /// `title` on top, `yTitle` on the value axis, `reference` names the reference line ("" = none).
  SeriesChart(const QString& title, const QString& yTitle, const QString& reference,
              QWidget* parent = nullptr);
  /// One line per algorithm (clears the data), named by `labels` where given.
  void setAlgorithms(const std::vector<Algorithm>& algorithms, const QStringList& labels = {});
  /// Replaces line `index` with `points` (one replace()).
  void setSeries(int index, const QList<QPointF>& points);
  /// Replaces line `index` with pieces separated by gaps (no line drawn across a gap).
  void setSegments(int index, const std::vector<QList<QPointF>>& segments);
  /// Replaces the reference line.
  void setReference(const QList<QPointF>& points);
  /// Sets the axes' ranges (the time axis in `scale`'s unit: points given in seconds are scaled).
  void setRanges(double xMaxSeconds, double yMax, double xMinSeconds = 0);
  /// Draws the time axis in `scale`'s unit from the next setSeries/setSegments/setRanges on.
  void setTimeScale(const TimeScale& scale) { scale_ = scale; }
  /// Names the time axis (default "seconds").
  void setXTitle(const QString& title);
  /// The title, and the one shown when the chart is too narrow for it (e.g. in a 1024 px window).
  void setTitles(const QString& title, const QString& shortTitle);
  /// The title drawn now (tests).
  QString titleShown() const;
  /// Upper end of the time axis (tests).
  double xAxisMax() const;
  /// The time axis (a zoomed view sets its range exactly).
  QValueAxis* timeAxis() const { return x_; }
  /// Applies a theme.
  void setTheme(Theme t);
  /// Pixel columns of the plot area.
  int columns() const;
  /// Draws a marker at each point (sparse samples such as PTTL).
  void setPointsVisible(bool visible);
  /// Narrow (a 1024 px window): the legend drawn under the plot as whole entries that wrap, never
  /// elided (Qt's own legend cuts "token_bucket · redis-naive" to "token_b..."); null when wide (tests).
  LaneLegend* wrappedLegend() const;
  /// Re-reads the legend's entries (series added, renamed or hidden by a subclass).
  void updateLegend();
  /// Points of line `index`, all pieces (tests).
  qsizetype points(int index) const;
  /// Pieces of line `index` drawn (tests).
  qsizetype segments(int index) const;
  /// The pen of line `index` (tests).
  QPen pen(int index) const;

 private:
  void resizeEvent(QResizeEvent* event) override;
  /// Narrow: the short title and the legend under the plot, so the plot and its axis title keep the width.
  void fitToWidth();
  void styleSeries();
  void styleLine(QLineSeries* s, int index) const;
  QString title_, shortTitle_;  ///< setTitles
  std::vector<Algorithm> algorithms_;  ///< one per line, in drawing order
  QList<QLineSeries*> lines_;
  QList<QList<QLineSeries*>> continuations_;  ///< per line: its pieces after the first gap
  QLineSeries* reference_ = nullptr;
  bool pointsVisible_ = false;
  TimeScale scale_;  ///< the time axis unit (points arrive in seconds)
  QValueAxis* x_;
  QValueAxis* y_;
  LaneLegend* wrapped_ = nullptr;  ///< see wrappedLegend()
};

}  // namespace rl::ui
