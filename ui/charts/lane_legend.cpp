#include "ui/charts/lane_legend.hpp"

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
    QColor c = e.colour;
    c.setAlpha(255);  // a translucent band is shown at full strength, or it would not read as a swatch
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
