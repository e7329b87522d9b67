#include "ui/charts/time_scale.hpp"

namespace rl::ui {

TimeScale timeScaleFor(double spanSeconds) {
  if (spanSeconds >= 2.0) return {1, QStringLiteral("s")};
  if (spanSeconds >= 2e-3) return {1e3, QStringLiteral("ms")};
  return {1e6, QStringLiteral("\u00b5s")};
}

TimeScale decisionScale() { return {1e6, QStringLiteral("decision")}; }

QList<QPointF> scaledX(const QList<QPointF>& points, double factor) {
  if (factor == 1) return points;
  QList<QPointF> out;
  out.reserve(points.size());
  for (const QPointF& p : points) out.append(QPointF(p.x() * factor, p.y()));
  return out;
}

}  // namespace rl::ui
