#pragma once
// PeakDistributionChart: how many clients reach each peak rate (requests in
// their busiest window), on log axes, drawn with QPainter. A vertical limit
// line can be dragged with the mouse (or set with setLimit); the caption
// says what that limit would cut, as the panel reports it.

#include <QWidget>
#include <vector>

namespace rl::ui {

/// The distribution chart; see the file comment.
class PeakDistributionChart : public QWidget {
  Q_OBJECT
 public:
  explicit PeakDistributionChart(QWidget* parent = nullptr);

  /// Shows the per-client `peaks` of one window, labelled `windowWords` ("1 s").
  void setPeaks(std::vector<std::int64_t> peaks, const QString& windowWords);
  /// Moves the limit line (requests per window, >= 1) and emits limitChanged.
  void setLimit(std::int64_t limit);
  /// The limit line's value.
  std::int64_t limit() const { return limit_; }
  /// Sets the caption ("N clients and M requests would be cut").
  void setCaption(const QString& text);
  /// The caption shown.
  QString caption() const { return caption_; }
  /// The x position of `limit` (widget coordinates), for tests.
  int xOf(std::int64_t limit) const;

  QSize sizeHint() const override { return {520, 240}; }

 signals:
  /// The limit line moved (drag or setLimit).
  void limitChanged(std::int64_t limit);

 protected:
  void paintEvent(QPaintEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;

 private:
  QRect plotRect() const;
  std::int64_t limitAt(int x) const;

  std::vector<std::int64_t> peaks_;   ///< per client
  std::vector<int> bins_;             ///< clients per log-spaced bin
  std::int64_t maxPeak_ = 1;          ///< largest peak
  std::int64_t limit_ = 1;            ///< the limit line
  QString window_;                    ///< "1 s"
  QString caption_;                   ///< what the limit cuts
};

}  // namespace rl::ui
