#include "ui/charts/chart_lane.hpp"

#include <QApplication>
#include <QAreaSeries>
#include <QChart>
#include <QGraphicsLayout>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QScatterSeries>
#include <QValueAxis>
#include <algorithm>
#include <cmath>

#include "metrics/chart_axis.hpp"
#include "ui/charts/chart_parts.hpp"
#include "ui/charts/lane_pointer.hpp"
#include "ui/qt_text.hpp"

namespace rl::ui {

LaneChart::LaneChart(Algorithm algorithm, QWidget* parent)
    : QChartView(makeChart(), parent), algorithm_(algorithm) {
  QChart* c = chart();
  x_ = makeAxis(c, Qt::AlignBottom, tr("s since the storm started"));
  y_ = makeAxis(c, Qt::AlignLeft, tr("admitted / window"));
  yDenied_ = makeAxis(c, Qt::AlignRight, tr("denied / window"));
  overUpper_ = new QLineSeries(this);
  over_ = new QAreaSeries(overUpper_);
  over_->setName(tr("over limit"));
  noMasterUpper_ = new QLineSeries(this);
  noMaster_ = new QAreaSeries(noMasterUpper_);
  noMaster_->setName(tr("no master (failover)"));
  openUpper_ = new QLineSeries(this);
  openErrors_ = new QAreaSeries(openUpper_);
  openErrors_->setName(tr("admitted by fail-open (store error)"));
  closedUpper_ = new QLineSeries(this);
  closedErrors_ = new QAreaSeries(closedUpper_);
  closedErrors_->setName(tr("denied by fail-closed (store error)"));
  admitted_ = new QLineSeries;
  admitted_->setName(tr("admitted"));
  denied_ = new QLineSeries;
  denied_->setName(tr("denied (right axis)"));
  limit_ = new QLineSeries;
  limit_->setName(tr("limit"));
  marks_ = new QScatterSeries;
  marks_->setName(tr("tuned"));
  marks_->setMarkerSize(9);
  marks_->setMarkerShape(QScatterSeries::MarkerShapeRectangle);
  for (QAbstractSeries* s : std::initializer_list<QAbstractSeries*>{noMaster_, over_, openErrors_, admitted_, limit_, marks_})
    attach(c, s, x_, y_);
  for (QAbstractSeries* s : std::initializer_list<QAbstractSeries*>{closedErrors_, denied_}) attach(c, s, x_, yDenied_);
  label_ = qs(algorithmName(algorithm));
  heading_ = label_;
  c->setTitle(label_);
  c->legend()->setVisible(false);  // the lanes panel's one legend, outside every plot (lane_legend.hpp)
  setToolTip(tr("%1\nLeft axis: admitted in the trailing window, against the limit; right axis: denied.")
                 .arg(qs(algorithmSummary(algorithm))));
  setRenderHint(QPainter::Antialiasing, true);
  connect(c, &QChart::plotAreaChanged, this, &LaneChart::onPlotAreaChanged);
  styleSeries();
  pointer_ = new LanePointer(this);
}

std::optional<double> LaneChart::secondsAt(QPoint viewportPos) const {
  const QPointF inChart = chart()->mapFromScene(mapToScene(viewportPos));
  if (!chart()->plotArea().contains(inChart)) return std::nullopt;
  return chart()->mapToValue(inChart, admitted_).x() / scale_.perSecond;
}

double LaneChart::chartXOf(double seconds) const {
  return chart()->mapToPosition(QPointF(seconds * scale_.perSecond, 0), admitted_).x();
}

QPoint LaneChart::viewportPosOf(double seconds) const {
  const QPointF inChart(chartXOf(seconds), chart()->plotArea().center().y());
  return mapFromScene(chart()->mapToScene(inChart));
}

void LaneChart::fitMinimumHeight() {
  // Title, time-axis labels and title, and the chart's margins around a plot of kMinPlotHeight;
  // once laid out, the plot's real height corrects the estimate (a theme's fonts, a two-line title).
  const int title = QFontMetrics(chart()->titleFont()).height();
  const int axis = QFontMetrics(x_->labelsFont()).height();
  setMinimumHeight(std::max(minimumHeight(), kMinPlotHeight + title + 2 * axis + 52));
}

void LaneChart::onPlotAreaChanged(const QRectF& plot) {
  if (plot.height() < 20 || static_cast<int>(chart()->size().height()) != viewport()->height()) return;  // mid-layout
  const int needed = height() - static_cast<int>(plot.height()) + kMinPlotHeight;
  if (needed > minimumHeight()) setMinimumHeight(needed);
}

void LaneChart::setHeading(const QString& heading) {
  heading_ = heading.isEmpty() ? label_ : heading;
  chart()->setTitle(heading_);
}

QList<LegendEntry> LaneChart::drawnEntries() const {
  using S = LegendEntry::Swatch;
  QList<LegendEntry> out{{admitted_->name(), Palette::admitted(), S::Line},
                         {denied_->name(), Palette::denied(), S::Line}};
  if (limit_->count() > 0) out.append({limit_->name(), Palette::limit(), S::DashedLine});
  if (spans_ > 0) out.append({over_->name(), Palette::overLimit(), S::Band});
  if (noMasterUpper_->count() > 0) out.append({noMaster_->name(), Palette::noMaster(), S::Band});
  if (openUpper_->count() > 0) out.append({openErrors_->name(), Palette::failOpen(), S::Band});
  if (closedUpper_->count() > 0) out.append({closedErrors_->name(), Palette::failClosed(), S::HatchedBand});
  if (marks_->count() > 0) out.append({marks_->name(), Palette::mark(), S::Square});
  return out;
}

void LaneChart::setLabel(const QString& label) {
  label_ = label;
  setHeading(label);
}

void LaneChart::styleSeries() {
  setPen(admitted_, Palette::admitted(), 1.6);
  setPen(denied_, Palette::denied(), 1.2);
  setPen(limit_, Palette::limit(), 2.0, Qt::DashLine);
  marks_->setColor(Palette::mark());
  marks_->setBorderColor(Palette::mark());
  over_->setBrush(Palette::overLimit());
  over_->setPen(Qt::NoPen);
  noMaster_->setBrush(Palette::noMaster());
  noMaster_->setPen(QPen(Palette::noMaster().darker(150), 1.0, Qt::DashLine));
  openErrors_->setBrush(Palette::failOpen());
  openErrors_->setPen(QPen(Palette::failOpen().darker(130), 1.0));
  closedErrors_->setBrush(QBrush(Palette::failClosed(), Qt::BDiagPattern));
  closedErrors_->setPen(QPen(Palette::failClosed(), 1.0));
  for (QValueAxis* axis : {x_, y_, yDenied_}) styleAxisFonts(axis);  // a chart theme resets them
  y_->setTitleBrush(Palette::admitted());
  yDenied_->setTitleBrush(Palette::denied());
  yDenied_->setLabelsBrush(Palette::denied());
  fitMinimumHeight();
}

void LaneChart::setTheme(Theme t) {
  chart()->setTheme(chartTheme(t));
  styleSeries();
}

int LaneChart::columns() const { return plotColumns(chart()); }

qsizetype LaneChart::admittedPoints() const { return admitted_->count(); }

qsizetype LaneChart::markPoints() const { return marks_->count(); }

qsizetype LaneChart::openErrorPoints() const { return openUpper_->count(); }

qsizetype LaneChart::closedErrorPoints() const { return closedUpper_->count(); }

namespace {
/// Who decided a store error: "fail-open", "fail-closed" or "the local limiter".
QString decidedBy(FailurePolicy policy) {
  switch (policy) {
    case FailurePolicy::Open: return LaneChart::tr("fail-open");
    case FailurePolicy::Closed: return LaneChart::tr("fail-closed");
    case FailurePolicy::Local: return LaneChart::tr("the local limiter");
  }
  return {};
}

/// "   store errors N, all admitted by fail-open" and the like ("" without errors).
QString errorsText(const LanePoints& p, FailurePolicy policy) {
  if (p.errors == 0) return {};
  if (policy == FailurePolicy::Local)
    return LaneChart::tr("   store errors %1: the local limiter admitted %2, denied %3")
        .arg(p.errors)
        .arg(p.openErrors)
        .arg(p.closedErrors);
  if (p.closedErrors == 0) return LaneChart::tr("   store errors %1, all admitted by %2").arg(p.errors).arg(decidedBy(policy));
  if (p.openErrors == 0) return LaneChart::tr("   store errors %1, all denied by %2").arg(p.errors).arg(decidedBy(policy));
  return LaneChart::tr("   store errors %1: %2 admitted, %3 denied by %4")
      .arg(p.errors)
      .arg(p.openErrors)
      .arg(p.closedErrors)
      .arg(decidedBy(policy));
}

}  // namespace

QString LaneChart::clientText(const LanePoints& p) {
  if (p.allClients) return tr(" \u2014 all %1 clients").arg(p.clients);
  if (p.clients <= 1 && !p.picked) return {};
  return p.picked ? tr(" \u2014 client %1 of %2").arg(p.client).arg(p.clients)
                  : tr(" \u2014 client %1 (worst of %2)").arg(p.client).arg(p.clients);
}

QString LaneChart::overText(const LanePoints& p) {
  if (p.overAdmittedAll == 0) return {};
  if (p.clients <= 1 || p.allClients) return tr("   over limit %1").arg(p.overAdmitted);
  return tr("   over limit %1 (all %2)").arg(p.overAdmitted).arg(p.overAdmittedAll);
}

void LaneChart::setPolicy(FailurePolicy policy) {
  policy_ = policy;
  openErrors_->setName(bandName(true));
  closedErrors_->setName(bandName(false));
}

QString LaneChart::bandName(bool admitted) const {
  const bool decides = policy_ == FailurePolicy::Local || (policy_ == FailurePolicy::Open) == admitted;
  if (!decides) return admitted ? tr("admitted (store error)") : tr("denied (store error)");
  return (admitted ? tr("admitted by %1 (store error)") : tr("denied by %1 (store error)")).arg(decidedBy(policy_));
}

namespace {
double peakOf(const QList<QPointF>& points, double floor = 0) {
  for (const QPointF& q : points) floor = std::max(floor, q.y());
  return floor;
}
}  // namespace

void LaneChart::showPoints(const LanePoints& p, double xMaxSeconds, double xMinSeconds) {
  // Admitted against the limit on the left axis; denied on its own, so many denials never flatten the admitted line.
  // At least 0..4: counts keep whole-number ticks even before anything (or nothing) was denied.
  const double limitPeak = p.allClients ? 0.0 : peakOf(p.limit);
  const double top = std::max(4.0, peakOf(p.openErrorsInWindow, std::max(limitPeak, peakOf(p.admittedInWindow))) * 1.1);
  const double deniedTop = std::max(4.0, peakOf(p.deniedInWindow) * 1.1);
  const TimeScale scale = p.byDecision ? decisionScale() : timeScaleFor(xMaxSeconds);
  const double k = scale.perSecond;
  shown_ = p;
  scale_ = scale;
  QList<QPointF> over;
  over.reserve(static_cast<qsizetype>(p.overLimit.size()) * 4);
  // An over-limit instant is drawn at least two pixels wide, so a single admission shows.
  const double px = (xMaxSeconds - xMinSeconds) / std::max(columns(), 1);
  for (const Span& s : p.overLimit) {
    const double from = std::max(0.0, s.from - px) * k;
    const double to = (s.to + px) * k;
    over << QPointF(from, 0) << QPointF(from, top) << QPointF(to, top) << QPointF(to, 0);
  }
  spans_ = static_cast<qsizetype>(p.overLimit.size());
  QList<QPointF> noMaster;
  withoutMaster_ = p.withoutMaster;
  if (p.withoutMaster) {
    const double from = p.withoutMaster->from * k, to = std::max(p.withoutMaster->to, p.withoutMaster->from + px) * k;
    noMaster << QPointF(from, 0) << QPointF(from, top) << QPointF(to, top) << QPointF(to, 0);
  }
  noMasterUpper_->replace(noMaster);
  overUpper_->replace(over);
  admitted_->replace(scaledX(p.admittedInWindow, k));
  denied_->replace(scaledX(p.deniedInWindow, k));
  limit_->replace(p.allClients ? QList<QPointF>{} : scaledX(p.limit, k));  // the limit is per client, the counts are not
  marks_->replace(scaledX(p.marks, k));
  openUpper_->replace(scaledX(p.openErrorsInWindow, k));
  closedUpper_->replace(scaledX(p.closedErrorsInWindow, k));
  if (scale.unit != timeUnit_) {
    timeUnit_ = scale.unit;
    x_->setTitleText(p.byDecision ? tr("decision number (faster than one per \u00b5s of the virtual clock)")
                                  : tr("%1 since the storm started").arg(timeUnit_));
  }
  setNiceRange(x_, xMaxSeconds * k, timeTicksFor(columns()), xMinSeconds * k);
  setNiceRange(y_, top, 4);
  setNiceRange(yDenied_, deniedTop, 4);
  if (!waiting_.isEmpty() && p.admitted == 0 && p.denied == 0 && p.errors == 0)
    return chart()->setTitle(tr("%1   %2").arg(heading_, waiting_));
  chart()->setTitle(tr("%1%2   admitted %3  denied %4%5%6")
                        .arg(heading_, clientText(p))
                        .arg(p.admitted)
                        .arg(p.denied)
                        .arg(errorsText(p, policy_), overText(p)));
}

void LaneChart::setWaiting(const QString& text) {
  waiting_ = text;
  if (!text.isEmpty()) chart()->setTitle(tr("%1   %2").arg(heading_, waiting_));
}

QString LaneChart::title() const { return chart()->title(); }

}  // namespace rl::ui
