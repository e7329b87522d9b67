#include "ui/panels/labeled_slider.hpp"

#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QSignalBlocker>
#include <QSlider>
#include <algorithm>
#include <cmath>

namespace rl::ui {

namespace {

// The round values from `lo` to `hi` (both > 0), rounded to `decimals`, each once.
std::vector<double> roundStops(double lo, double hi, int decimals) {
  constexpr double kMantissas[] = {1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8};
  const double unit = std::pow(10.0, -decimals);
  std::vector<double> out;
  for (double decade = std::pow(10.0, std::floor(std::log10(lo))); decade <= hi * 1.0001; decade *= 10)
    for (double m : kMantissas) {
      const double v = std::round(m * decade / unit) * unit;
      if (v >= lo * 0.9999 && v <= hi * 1.0001 && v > 0 && (out.empty() || v > out.back())) out.push_back(v);
    }
  return out;
}

}  // namespace

LabeledSlider::LabeledSlider(double min, double max, double sliderMin, double sliderMax, int decimals,
                             QWidget* parent)
    : QWidget(parent),
      slider_(new QSlider(Qt::Horizontal, this)),
      spin_(new QDoubleSpinBox(this)),
      stops_(roundStops(std::max(sliderMin, 1e-6), std::max(sliderMax, sliderMin * 2), decimals)) {
  slider_->setRange(0, static_cast<int>(stops_.size()) - 1);
  slider_->setPageStep(3);
  spin_->setRange(min, max);
  spin_->setDecimals(decimals);
  spin_->setKeyboardTracking(false);
  spin_->setMinimumWidth(110);
  slider_->setMinimumWidth(60);
  auto* row = new QHBoxLayout(this);
  row->setContentsMargins(0, 0, 0, 0);
  row->addWidget(slider_, 1);
  row->addWidget(spin_);
  connect(slider_, &QSlider::valueChanged, this, [this](int pos) { spin_->setValue(fromSlider(pos)); });
  connect(spin_, &QDoubleSpinBox::valueChanged, this, [this](double v) {
    const QSignalBlocker block(slider_);
    slider_->setValue(toSlider(v));
    emit valueChanged(v);
  });
}

double LabeledSlider::value() const { return spin_->value(); }

void LabeledSlider::setValue(double v) { spin_->setValue(v); }

void LabeledSlider::setSuffix(const QString& suffix) { spin_->setSuffix(suffix); }

// The stop nearest `v` on the log scale (a value between stops shows at the nearer one).
int LabeledSlider::toSlider(double v) const {
  const auto above = std::lower_bound(stops_.begin(), stops_.end(), v);
  if (above == stops_.begin()) return 0;
  if (above == stops_.end()) return static_cast<int>(stops_.size()) - 1;
  const auto below = above - 1;
  const bool nearerBelow = v <= 0 || std::log(v / *below) < std::log(*above / v);
  return static_cast<int>((nearerBelow ? below : above) - stops_.begin());
}

double LabeledSlider::fromSlider(int pos) const {
  return stops_[static_cast<std::size_t>(std::clamp<int>(pos, 0, static_cast<int>(stops_.size()) - 1))];
}

}  // namespace rl::ui
