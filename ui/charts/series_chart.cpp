#include "ui/charts/series_chart.hpp"

#include <QApplication>
#include <QChart>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QValueAxis>
#include <algorithm>

#include "ui/charts/chart_parts.hpp"
#include "ui/charts/lane_legend.hpp"
#include "ui/qt_text.hpp"

namespace rl::ui {

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
  wrapped_ = new LaneLegend(this);
  wrapped_->setObjectName(QStringLiteral("chartLegend"));
  wrapped_->hide();
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
  updateLegend();
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
      updateLegend();
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

LaneLegend* SeriesChart::wrappedLegend() const { return wrapped_ && wrapped_->isVisible() ? wrapped_ : nullptr; }

void SeriesChart::updateLegend() {
  if (!wrapped_) return;
  constexpr int kLegendBelowUnder = 480;  // px: narrower, a legend on the right leaves the plot too little
  const bool narrow = width() < kLegendBelowUnder;
  chart()->legend()->setVisible(!narrow);
  QList<LegendEntry> entries;  // what Qt's legend lists: the reference line, then one entry per line (not its pieces)
  QList<QLineSeries*> named = lines_;
  if (reference_) named.prepend(reference_);
  for (QLineSeries* line : narrow ? named : QList<QLineSeries*>{}) {
    if (line->name().isEmpty()) continue;
    const bool dashed = line->pen().style() != Qt::SolidLine || !line->pen().dashPattern().isEmpty();
    entries.append({line->name(), line->pen().color(), dashed ? LegendEntry::Swatch::DashedLine : LegendEntry::Swatch::Line});
  }
  wrapped_->setFont(chart()->legend()->font());
  wrapped_->setEntries(entries);
  wrapped_->setVisible(narrow && !entries.isEmpty());
  const int h = wrapped_->isVisible() ? wrapped_->heightForWidth(width()) : 0;
  wrapped_->setGeometry(0, height() - h, width(), h);
  const QMargins want(2, 2, 2, 2 + h);  // makeChart's margins; the plot ends above the wrapped legend
  if (chart()->margins() != want) chart()->setMargins(want);
}

void SeriesChart::fitToWidth() {
  updateLegend();
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
