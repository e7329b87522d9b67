#pragma once
// LabeledSlider: a slider and a spin box bound to one value. The slider moves
// over round stops on a log scale (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8 in each
// decade of a comfortable range), so one drag step changes the value by about
// a fifth, never 20 -> 2377, and every value it sets is a round one. The spin
// box accepts the full range (including values the storm will refuse, so the
// refusal can be shown).

#include <QWidget>
#include <vector>

class QSlider;
class QDoubleSpinBox;

namespace rl::ui {

/// A slider + spin box pair holding one number.
class LabeledSlider : public QWidget {
  Q_OBJECT
 public:
  /// Spin box range [min, max] with `decimals`; the slider spans [sliderMin, sliderMax] (> 0).
  LabeledSlider(double min, double max, double sliderMin, double sliderMax, int decimals,
                QWidget* parent = nullptr);
  /// The current value.
  double value() const;
  /// Sets the value (emits valueChanged when it changes).
  void setValue(double v);
  /// The spin box (for tests and tooltips).
  QDoubleSpinBox* spinBox() const { return spin_; }
  /// Shown after the number ("ms", "/s").
  void setSuffix(const QString& suffix);
  /// The slider (for tests).
  QSlider* slider() const { return slider_; }
  /// The values the slider stops at, ascending.
  const std::vector<double>& stops() const { return stops_; }

 signals:
  /// The value changed (by the user or setValue).
  void valueChanged(double value);

 private:
  int toSlider(double v) const;
  double fromSlider(int pos) const;
  QSlider* slider_;
  QDoubleSpinBox* spin_;
  std::vector<double> stops_;  ///< the value at each slider position
};

}  // namespace rl::ui
