#include "ui/charts/time_scale.hpp"

#include "metrics/time_unit.hpp"

namespace rl::ui {

namespace {
TimeScale scaleOf(const AxisUnit& u) {
  return {u.perSecond, QString::fromUtf8(u.unit.data(), static_cast<qsizetype>(u.unit.size()))};
}
}  // namespace

TimeScale timeScaleFor(double spanSeconds) { return scaleOf(axisUnitFor(spanSeconds)); }

TimeScale decisionScale() { return scaleOf(decisionAxisUnit()); }

QList<QPointF> scaledX(const QList<QPointF>& points, double factor) {
  if (factor == 1) return points;
  QList<QPointF> out;
  out.reserve(points.size());
  for (const QPointF& p : points) out.append(QPointF(p.x() * factor, p.y()));
  return out;
}

}  // namespace rl::ui
