#pragma once
// LabeledSlider: a slider and a spin box bound to one value. The slider is
// logarithmic over a comfortable range; the spin box accepts the full range
// (including values the storm will refuse, so the refusal can be shown).

#include <QWidget>

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

 signals:
  /// The value changed (by the user or setValue).
  void valueChanged(double value);

 private:
  int toSlider(double v) const;
  double fromSlider(int pos) const;
  QSlider* slider_;
  QDoubleSpinBox* spin_;
  double sliderMin_;   ///< value at slider position 0
  double sliderMax_;   ///< value at the last slider position
};

}  // namespace rl::ui
