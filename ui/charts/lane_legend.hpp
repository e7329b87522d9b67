#pragma once
// LaneLegend: the one legend of the lanes, above them and outside every plot
// area, so no lane gives up height to it. It lists only the series some lane
// draws (the store-error bands and tuning marks appear when there are any),
// each as a coloured swatch and its name; entries wrap to a new line as a
// whole, never elided.

#include <QColor>
#include <QLabel>
#include <QList>

namespace rl::ui {

/// One legend entry: how its series looks and what it is called.
struct LegendEntry {
  enum class Swatch { Line, DashedLine, Band, HatchedBand, Square };
  QString name;    ///< the series name
  QColor colour;   ///< the series colour
  Swatch swatch = Swatch::Line;  ///< how it is drawn
  bool operator==(const LegendEntry& o) const { return name == o.name; }
};

/// The lanes' legend; see the file comment.
class LaneLegend : public QLabel {
  Q_OBJECT
 public:
  explicit LaneLegend(QWidget* parent = nullptr);
  /// Shows `entries` (in order; duplicates by name once).
  void setEntries(const QList<LegendEntry>& entries);
  /// The names shown (tests).
  QStringList names() const;

 private:
  QList<LegendEntry> entries_;
};

}  // namespace rl::ui
