#include "ui/charts/lane_legend.hpp"

#include <cmath>

namespace rl::ui {

namespace {
QString swatchText(LegendEntry::Swatch s) {
  switch (s) {
    case LegendEntry::Swatch::Line: return QStringLiteral("\u2501\u2501");
    case LegendEntry::Swatch::DashedLine: return QStringLiteral("\u254d\u254d");
    case LegendEntry::Swatch::Band: return QStringLiteral("\u2588\u2588");
    case LegendEntry::Swatch::HatchedBand: return QStringLiteral("\u2592\u2592");
    case LegendEntry::Swatch::Square: return QStringLiteral("\u25a0");
  }
  return {};
}
}  // namespace

LaneLegend::LaneLegend(QWidget* parent) : QLabel(parent) {
  setObjectName(QStringLiteral("laneLegend"));
  setTextFormat(Qt::RichText);
  setWordWrap(true);  // between entries only: inside one, spaces are non-breaking
  setContentsMargins(6, 2, 6, 2);
}

void LaneLegend::setEntries(const QList<LegendEntry>& entries) {
  QList<LegendEntry> unique;
  for (const LegendEntry& e : entries)
    if (!unique.contains(e)) unique.append(e);
  if (unique == entries_ && !text().isEmpty()) return;
  entries_ = unique;
  QStringList parts;
  for (const LegendEntry& e : entries_) {
    // A translucent band is shown as it looks over the plot (its colour blended into the base colour
    // at its own alpha), so the swatch and the band it names are the same colour.
    const QColor base = palette().color(QPalette::Base);
    const double a = e.colour.alphaF();
    const auto mix = [a](int over, int under) { return static_cast<int>(std::lround(a * over + (1 - a) * under)); };
    const QColor c(mix(e.colour.red(), base.red()), mix(e.colour.green(), base.green()), mix(e.colour.blue(), base.blue()));
    QString name = e.name.toHtmlEscaped();
    name.replace(QLatin1Char(' '), QStringLiteral("&nbsp;"));
    parts << QStringLiteral("<span style=\"color:%1\">%2</span>&nbsp;%3").arg(c.name(), swatchText(e.swatch), name);
  }
  setText(parts.join(QStringLiteral(" &nbsp; ")));
  setVisible(!entries_.isEmpty());
}

QStringList LaneLegend::names() const {
  QStringList out;
  for (const LegendEntry& e : entries_) out << e.name;
  return out;
}

}  // namespace rl::ui
