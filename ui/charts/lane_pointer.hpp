#pragma once
// LanePointer: what the pointer does on a lane's plot. The wheel zooms the time
// axis around the pointer, a drag pans it, a double-click shows the whole run
// again; the lanes panel applies each request to every lane and the level chart
// at once, so they stay on one timeline. Hovering draws a cursor line and reads
// out, at that instant, the admitted and denied in the trailing window, the
// limit and the level, from the points the lane draws. Off the plot (title,
// axes) the wheel scrolls the lanes and the lane's tooltip shows as before.

#include <QObject>
#include <QString>
#include <optional>

#include "ui/charts/lane_model.hpp"
#include "ui/charts/time_scale.hpp"

class QGraphicsLineItem;
class QGraphicsRectItem;
class QGraphicsSimpleTextItem;

namespace rl::ui {

class LaneChart;

/// The read-out of `p` at `seconds` of the storm's timeline, the time in `scale`'s unit:
/// "t 60.012 s   admitted 200   denied 13   limit 100   level 0" ("" before the first point).
QString laneReadout(const LanePoints& p, double seconds, const TimeScale& scale);

/// Zoom, pan and hover on one lane; see the file comment.
class LanePointer : public QObject {
  Q_OBJECT
 public:
  /// The wheel's zoom step: one notch in shows this share of the span.
  static constexpr double kZoomStep = 0.8;

  explicit LanePointer(LaneChart* lane);
  /// The read-out shown now ("" when the pointer is off the plot; tests).
  const QString& readout() const { return readout_; }

 signals:
  /// Zoom the timeline around `atSeconds` by `factor` (below 1: in).
  void zoomRequested(double atSeconds, double factor);
  /// Pan the timeline by `seconds` (positive: later).
  void panRequested(double seconds);
  /// Show the whole run again.
  void resetRequested();

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  /// Moves the cursor line and the read-out to the pointer at `x` (viewport pixels), or hides them.
  void hover(std::optional<double> seconds);
  LaneChart* lane_;
  QGraphicsLineItem* cursor_;
  QGraphicsSimpleTextItem* text_;
  QGraphicsRectItem* backdrop_;  ///< keeps the read-out legible over the lines it crosses
  QString readout_;
  std::optional<double> dragAt_;  ///< the time under the pointer where a drag last moved
};

}  // namespace rl::ui
