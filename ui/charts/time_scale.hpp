#pragma once
// The unit of a lanes time axis as Qt text: core's choice (metrics/time_unit.hpp,
// shared with the HTML report). The lane model keeps seconds; the charts scale
// their (decimated, about two per pixel column) points once per refresh.

#include <QList>
#include <QPointF>
#include <QString>

namespace rl::ui {

/// A time unit for an axis.
struct TimeScale {
  double perSecond = 1;  ///< axis units per second (1, 1e3 or 1e6)
  QString unit;          ///< "s", "ms", "\u00b5s", or "decision" (decisionScale)
};

/// The unit that shows `spanSeconds` with whole-number ticks: s from 2 s, ms from 2 ms, else \u00b5s.
TimeScale timeScaleFor(double spanSeconds);
/// Decisions drawn by number (LanePoints::byDecision): x arrives as number / 1e6.
TimeScale decisionScale();
/// `points` with x multiplied by `factor` (the same list, shared, when factor is 1).
QList<QPointF> scaledX(const QList<QPointF>& points, double factor);

}  // namespace rl::ui
