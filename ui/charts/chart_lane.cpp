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
#include "ui/qt_text.hpp"

namespace rl::ui {

namespace {
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

void setPen(QLineSeries* s, const QColor& c, qreal width, Qt::PenStyle style = Qt::SolidLine) {
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
}  // namespace

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
                         {denied_->name(), Palette::denied(), S::Line},
                         {limit_->name(), Palette::limit(), S::DashedLine}};
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
  if (p.clients <= 1 && !p.picked) return {};
  return p.picked ? tr(" \u2014 client %1 of %2").arg(p.client).arg(p.clients)
                  : tr(" \u2014 client %1 (worst of %2)").arg(p.client).arg(p.clients);
}

QString LaneChart::overText(const LanePoints& p) {
  if (p.overAdmittedAll == 0) return {};
  if (p.clients <= 1) return tr("   over limit %1").arg(p.overAdmitted);
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
  const double top = std::max(4.0, peakOf(p.openErrorsInWindow, peakOf(p.limit, peakOf(p.admittedInWindow))) * 1.1);
  const double deniedTop = std::max(4.0, peakOf(p.deniedInWindow) * 1.1);
  const TimeScale scale = p.byDecision ? decisionScale() : timeScaleFor(xMaxSeconds);
  const double k = scale.perSecond;
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
  limit_->replace(scaledX(p.limit, k));
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

SeriesChart::SeriesChart(const QString& title, const QString& yTitle, const QString& reference, QWidget* parent)
    : QChartView(makeChart(), parent) {
  title_ = shortTitle_ = title;
  chart()->setTitle(title);
  x_ = makeAxis(chart(), Qt::AlignBottom, tr("seconds"));
  y_ = makeAxis(chart(), Qt::AlignLeft, yTitle);
  if (!reference.isEmpty()) {
    reference_ = new QLineSeries;
    reference_->setName(reference);
    attach(chart(), reference_, x_, y_);
  }
  chart()->legend()->setAlignment(Qt::AlignRight);
  chart()->legend()->setMarkerShape(QLegend::MarkerShapeFromSeries);  // the line's dash pattern
  setRenderHint(QPainter::Antialiasing, true);
  setMinimumHeight(195);  // the legend lists six algorithms and the reference line
  styleSeries();
}

void SeriesChart::setAlgorithms(const std::vector<Algorithm>& algorithms, const QStringList& labels) {
  for (QLineSeries* s : lines_) {
    chart()->removeSeries(s);
    delete s;
  }
  for (const QList<QLineSeries*>& more : continuations_)
    for (QLineSeries* s : more) {
      chart()->removeSeries(s);
      delete s;
    }
  lines_.clear();
  continuations_ = QList<QList<QLineSeries*>>(static_cast<qsizetype>(algorithms.size()));
  algorithms_ = algorithms;
  for (std::size_t i = 0; i < algorithms.size(); ++i) {
    auto* s = new QLineSeries;
    s->setName(static_cast<qsizetype>(i) < labels.size() ? labels[static_cast<qsizetype>(i)] : qs(algorithmName(algorithms[i])));
    s->setPointsVisible(pointsVisible_);
    attach(chart(), s, x_, y_);
    lines_.append(s);
  }
  if (reference_) reference_->clear();
  styleSeries();
}

void SeriesChart::styleSeries() {
  QFont f = QApplication::font();  // six algorithms and the reference line fit beside a short plot
  f.setPointSizeF(std::max(7.0, f.pointSizeF() - 1.5));
  chart()->legend()->setFont(f);
  for (int i = 0; i < lines_.size(); ++i) {
    styleLine(lines_[i], i);
    for (QLineSeries* s : continuations_[i]) styleLine(s, i);
  }
  if (reference_) setPen(reference_, Palette::limit(), 2.0, Qt::DashLine);
}

void SeriesChart::styleLine(QLineSeries* s, int index) const {
  QPen pen(Palette::lane(index));
  pen.setWidthF(strokeWidth(index));
  if (const QList<qreal> dashes = dashPattern(algorithms_[static_cast<std::size_t>(index)]); !dashes.isEmpty())
    pen.setDashPattern(dashes);
  s->setPen(pen);
  s->setMarkerSize(strokeWidth(index) + 2);
}

void SeriesChart::setSegments(int index, const std::vector<QList<QPointF>>& segments) {
  if (index < 0 || index >= lines_.size()) return;
  lines_[index]->replace(segments.empty() ? QList<QPointF>() : scaledX(segments.front(), scale_.perSecond));
  QList<QLineSeries*>& more = continuations_[index];
  for (std::size_t k = 1; k < segments.size(); ++k) {
    if (static_cast<std::size_t>(more.size()) < k) {  // one more piece of line `index`: same look, no legend entry
      auto* s = new QLineSeries;
      s->setPointsVisible(pointsVisible_);
      attach(chart(), s, x_, y_);
      styleLine(s, index);
      for (QLegendMarker* m : chart()->legend()->markers(s)) m->setVisible(false);
      more.append(s);
    }
    more[static_cast<qsizetype>(k - 1)]->replace(scaledX(segments[k], scale_.perSecond));
  }
  for (qsizetype k = std::max<qsizetype>(static_cast<qsizetype>(segments.size()) - 1, 0); k < more.size(); ++k)
    more[k]->clear();  // fewer pieces than last time: nothing stale stays drawn
}

qsizetype SeriesChart::segments(int index) const {
  if (index < 0 || index >= lines_.size()) return 0;
  return (lines_[index]->count() > 0 ? 1 : 0) + continuations_[index].size();
}

QPen SeriesChart::pen(int index) const { return index >= 0 && index < lines_.size() ? lines_[index]->pen() : QPen(); }

void SeriesChart::setSeries(int index, const QList<QPointF>& points) {
  if (index >= 0 && index < lines_.size()) lines_[index]->replace(scaledX(points, scale_.perSecond));
}

void SeriesChart::setReference(const QList<QPointF>& points) {
  if (reference_) reference_->replace(scaledX(points, scale_.perSecond));
}

void SeriesChart::setRanges(double xMaxSeconds, double yMax, double xMinSeconds) {
  const int plot = static_cast<int>(chart()->plotArea().width());  // fewer ticks where labels would be elided
  setNiceRange(x_, xMaxSeconds * scale_.perSecond, isVisible() && plot > 0 ? std::min(6, timeTicksFor(plot)) : 6,
               xMinSeconds * scale_.perSecond);
  setNiceRange(y_, std::max(yMax, 1.0), 4);
}

void SeriesChart::setXTitle(const QString& title) { x_->setTitleText(title); }

void SeriesChart::setTitles(const QString& title, const QString& shortTitle) {
  title_ = title;
  shortTitle_ = shortTitle.isEmpty() ? title : shortTitle;
  fitToWidth();
}

QString SeriesChart::titleShown() const { return chart()->title(); }

void SeriesChart::resizeEvent(QResizeEvent* event) {
  fitToWidth();
  QChartView::resizeEvent(event);
}

void SeriesChart::fitToWidth() {
  constexpr int kLegendBelowUnder = 480;  // px: narrower, a legend on the right leaves the plot too little
  chart()->legend()->setAlignment(width() < kLegendBelowUnder ? Qt::AlignBottom : Qt::AlignRight);
  const int needed = QFontMetrics(chart()->titleFont()).horizontalAdvance(title_) + 24;
  const QString shown = needed > width() ? shortTitle_ : title_;
  if (chart()->title() != shown) chart()->setTitle(shown);
}

double SeriesChart::xAxisMax() const { return x_->max(); }

void SeriesChart::setTheme(Theme t) {
  chart()->setTheme(chartTheme(t));
  styleAxisFonts(x_);  // the chart theme reset them
  styleAxisFonts(y_);
  styleSeries();
}

void SeriesChart::setPointsVisible(bool visible) {
  pointsVisible_ = visible;
  for (QLineSeries* s : lines_) s->setPointsVisible(visible);
  for (const QList<QLineSeries*>& more : continuations_)
    for (QLineSeries* s : more) s->setPointsVisible(visible);
}

int SeriesChart::columns() const { return plotColumns(chart()); }

qsizetype SeriesChart::points(int index) const {
  if (index < 0 || index >= lines_.size()) return 0;
  qsizetype n = lines_[index]->count();
  for (QLineSeries* s : continuations_[index]) n += s->count();
  return n;
}

}  // namespace rl::ui
