#pragma once
// LaneChart: one algorithm's admit/deny
// timeline (admitted in the trailing window against the limit, a step line,
// on the left axis; denied on its own right axis, so a flood of denials never
// flattens the admitted line; tuning marks, over-limit windows shaded, and when the store failed
// the part of the admitted or denied that the failure policy decided, as a
// filled band under that line, named for the lane's policy: fail-open,
// fail-closed, or the local limiter, which both admits and denies). Its plot
// keeps kMinPlotHeight pixels; the legend is the lanes panel's (lane_legend.hpp);
// the time axis is in s, ms or \u00b5s, whichever fits the span (time_scale.hpp); the
// pointer zooms, pans and reads out values (lane_pointer.hpp). Every update is
// one QXYSeries::replace() per series, never append().

#include <QChartView>
#include <QList>
#include <QPointF>
#include <vector>

#include "limiter/algorithm.hpp"
#include "store/failure_policy.hpp"
#include "ui/charts/lane_legend.hpp"
#include "ui/charts/lane_model.hpp"
#include "ui/charts/theme.hpp"
#include "ui/charts/time_scale.hpp"

class QAreaSeries;
class QLineSeries;
class QScatterSeries;
class QValueAxis;

namespace rl::ui {

class LanePointer;

/// One algorithm's timeline; see the file comment.
class LaneChart : public QChartView {
  Q_OBJECT
 public:
  /// The least height of a lane's plot area, pixels.
  static constexpr int kMinPlotHeight = 110;

  explicit LaneChart(Algorithm algorithm, QWidget* parent = nullptr);
  /// Shows `points` over [xMinSeconds, xMaxSeconds].
  void showPoints(const LanePoints& points, double xMaxSeconds, double xMinSeconds = 0);
  /// Applies a theme (chart theme + fixed series colours).
  void setTheme(Theme t);
  /// Pixel columns of the plot area (for decimation).
  int columns() const;
  /// Points currently in the admitted series (tests).
  qsizetype admittedPoints() const;
  /// Tuning marks shown (tests).
  qsizetype markPoints() const;
  /// Over-limit spans shown (tests).
  qsizetype overLimitSpans() const { return spans_; }
  /// The failover band drawn now (seconds since the storm started), if any.
  std::optional<Span> withoutMasterBand() const { return withoutMaster_; }
  /// Points of the fail-open band (admitted by the policy while the store failed; tests).
  qsizetype openErrorPoints() const;
  /// Points of the fail-closed band (denied by the policy while the store failed; tests).
  qsizetype closedErrorPoints() const;
  /// The algorithm of this lane.
  Algorithm algorithm() const { return algorithm_; }
  /// The failure policy that decided this lane's store errors (names its bands; default open).
  void setPolicy(FailurePolicy policy);
  /// The lane's failure policy.
  FailurePolicy policy() const { return policy_; }
  /// The legend name of the band of admitted (true) or denied (false) store errors (tests).
  QString bandName(bool admitted) const;
  /// Names the lane (default: the algorithm; a team's script by its file name).
  void setLabel(const QString& label);
  /// What the title calls the lane: algorithm, backend and variant
  /// ("fixed_window \u00b7 redis-lua \u00b7 fail-open"); default: the label.
  void setHeading(const QString& heading);
  /// See setHeading.
  const QString& heading() const { return heading_; }
  /// The legend entries of the series this lane draws now.
  QList<LegendEntry> drawnEntries() const;
  /// The unit of the time axis now ("s", "ms" or "\u00b5s").
  const QString& timeUnit() const { return timeUnit_; }
  /// The time axis (tests).
  QValueAxis* timeAxis() const { return x_; }
  /// The admitted axis (left) and the denied axis (right; tests).
  QValueAxis* admittedAxis() const { return y_; }
  QValueAxis* deniedAxis() const { return yDenied_; }
  /// The lane's name, first in its title.
  const QString& label() const { return label_; }
  /// What the lane waits for while it has no decision yet ("waiting for run 1 (no WAIT) to finish");
  /// its title says so instead of "admitted 0 denied 0". "" = it does not wait.
  void setWaiting(const QString& text);
  /// The title shown (tests).
  QString title() const;
  /// What the lane draws now, and the unit of its time axis.
  const LanePoints& shownPoints() const { return shown_; }
  const TimeScale& timeScale() const { return scale_; }
  /// The storm's time (seconds) under a viewport position, if it is on the plot.
  std::optional<double> secondsAt(QPoint viewportPos) const;
  /// The viewport position of `seconds` on the time axis, halfway up the plot.
  QPoint viewportPosOf(double seconds) const;
  /// The chart's x coordinate of `seconds`.
  double chartXOf(double seconds) const;
  /// Zoom, pan and the hover read-out (lane_pointer.hpp).
  LanePointer* pointer() const { return pointer_; }

 private:
  void styleSeries();
  void fitMinimumHeight();
  void onPlotAreaChanged(const QRectF& plot);
  /// " - client 17 (worst of 200)" when the lane shows one client of several.
  static QString clientText(const LanePoints& p);
  /// "   over limit 3" when admissions broke the algorithm's own limit.
  static QString overText(const LanePoints& p);
  Algorithm algorithm_;
  FailurePolicy policy_ = FailurePolicy::Open;  ///< decided the store errors
  QString label_;
  QString heading_;  ///< see setHeading
  QString waiting_;  ///< see setWaiting
  QString timeUnit_ = QStringLiteral("s");  ///< see timeUnit
  QLineSeries* admitted_;
  QLineSeries* denied_;
  QLineSeries* limit_;
  QScatterSeries* marks_;
  QLineSeries* overUpper_;
  QAreaSeries* over_;
  QLineSeries* openUpper_;     ///< fail-open errors in the window
  QAreaSeries* openErrors_;    ///< filled down to 0, under the admitted line
  QLineSeries* closedUpper_;   ///< fail-closed errors in the window
  QAreaSeries* closedErrors_;  ///< filled down to 0, under the denied line
  QValueAxis* x_;
  QValueAxis* y_;        ///< admitted, limit, over limit and fail-open band (left)
  QValueAxis* yDenied_;  ///< denied and fail-closed band (right)
  qsizetype spans_ = 0;
  QLineSeries* noMasterUpper_;  ///< a natural failover's time without a master, as a band
  QAreaSeries* noMaster_;
  std::optional<Span> withoutMaster_;  ///< what noMaster_ draws, in seconds
  LanePoints shown_;  ///< the points drawn now (the read-out's)
  TimeScale scale_;   ///< the time axis unit now
  LanePointer* pointer_;
};

}  // namespace rl::ui
