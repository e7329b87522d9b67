#pragma once
// TuneHeatmap: one algorithm's sweep as a grid of cells, drawn with
// QPainter (Qt Charts has no heatmap), from core's layout and colour scale
// (tune/tune_cells.hpp), which the tune report draws as SVG. Rows are limits
// (burst / capacity), columns the second axis (refill rate or window). Cell
// colour = share of legitimate requests denied (green none, yellow at the
// target, red at 10x the target or more); a thick line follows the target's contour; the
// recommended cell is ringed. A colour bar on the right is the legend (the
// target, a hundredth of it and ten times it). Labels use the quota's own words. A click on a
// cell emits cellClicked with that point. Repainting is a few hundred rects.

#include <QWidget>
#include <memory>
#include <optional>

#include "tune/tune_cells.hpp"

namespace rl::ui {

/// The heatmap widget; see the file comment.
class TuneHeatmap : public QWidget {
  Q_OBJECT
 public:
  explicit TuneHeatmap(QWidget* parent = nullptr);

  /// Shows the points of `algorithm` in `result` against `target` (a share 0..1).
  void setResult(std::shared_ptr<const TuneResult> result, Algorithm algorithm, double target);
  /// Rows x columns shown (0 x 0 when empty).
  QSize gridSize() const { return QSize(static_cast<int>(grid_.cols.size()), static_cast<int>(grid_.rows.size())); }
  /// Centre of the cell holding point `index` (widget coordinates), for tests and tooltips.
  std::optional<QPoint> cellCenter(std::size_t index) const;
  /// Index (into result->points) of the recommended point, if any.
  std::optional<std::size_t> recommended() const { return grid_.recommended; }
  /// "10 req/s (burst 20)": the words a cell is labelled with.
  static QString quotaWords(const Quota& q);

  /// The colour legend's labels, top (red) to bottom (green): "≥ 1%", "0.1% target", "≤ 0.001%".
  QStringList legendLabels() const;
  /// The legend bar (widget coordinates) and the height in it of `share` (tests sample its pixels).
  QRect legendBar() const;
  int legendY(double share) const;
  /// The colour of a cell whose legitimate-denied share is `share`.
  QColor colourFor(double share) const;

  QSize sizeHint() const override { return {520, 360}; }

 signals:
  /// A computed cell was clicked: the point's index in the result.
  void cellClicked(std::size_t index);

 protected:
  void paintEvent(QPaintEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  bool event(QEvent* event) override;

 private:
  QRect plotRect() const;
  QRectF cellRect(int row, int col) const;
  std::optional<std::size_t> pointAt(QPoint pos) const;
  void paintContour(class QPainter& p) const;
  void paintLabels(class QPainter& p) const;
  void paintLegend(class QPainter& p) const;

  std::shared_ptr<const TuneResult> result_;  ///< the sweep shown
  Algorithm algorithm_ = Algorithm::TokenBucket;  ///< the algorithm shown
  double target_ = 0.001;                     ///< legit-denied target
  TuneCells grid_;                            ///< the cells shown (rows drawn bottom to top)
};

}  // namespace rl::ui
