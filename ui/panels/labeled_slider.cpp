#include "ui/panels/labeled_slider.hpp"

#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QSignalBlocker>
#include <QSlider>
#include <algorithm>
#include <cmath>

namespace rl::ui {

namespace {
constexpr int kSteps = 1000;
}

LabeledSlider::LabeledSlider(double min, double max, double sliderMin, double sliderMax, int decimals,
                             QWidget* parent)
    : QWidget(parent),
      slider_(new QSlider(Qt::Horizontal, this)),
      spin_(new QDoubleSpinBox(this)),
      sliderMin_(std::max(sliderMin, 1e-6)),
      sliderMax_(std::max(sliderMax, sliderMin * 2)) {
  slider_->setRange(0, kSteps);
  spin_->setRange(min, max);
  spin_->setDecimals(decimals);
  spin_->setKeyboardTracking(false);
  spin_->setMinimumWidth(110);
  slider_->setMinimumWidth(60);
  auto* row = new QHBoxLayout(this);
  row->setContentsMargins(0, 0, 0, 0);
  row->addWidget(slider_, 1);
  row->addWidget(spin_);
  connect(slider_, &QSlider::valueChanged, this, [this](int pos) {
    double v = fromSlider(pos);
    if (spin_->decimals() == 0) v = std::round(v);
    spin_->setValue(v);
  });
  connect(spin_, &QDoubleSpinBox::valueChanged, this, [this](double v) {
    const QSignalBlocker block(slider_);
    slider_->setValue(toSlider(v));
    emit valueChanged(v);
  });
}

double LabeledSlider::value() const { return spin_->value(); }

void LabeledSlider::setValue(double v) { spin_->setValue(v); }

void LabeledSlider::setSuffix(const QString& suffix) { spin_->setSuffix(suffix); }

int LabeledSlider::toSlider(double v) const {
  if (v <= sliderMin_) return 0;
  if (v >= sliderMax_) return kSteps;
  return static_cast<int>(std::lround(kSteps * std::log(v / sliderMin_) / std::log(sliderMax_ / sliderMin_)));
}

double LabeledSlider::fromSlider(int pos) const {
  return sliderMin_ * std::pow(sliderMax_ / sliderMin_, static_cast<double>(pos) / kSteps);
}

}  // namespace rl::ui
