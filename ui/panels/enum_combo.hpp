#pragma once
// Form widgets over core's enums: a combo box filled from an enum table (its
// names as text, the value as item data), and a spin box that reports only
// finished edits.

#include <QComboBox>
#include <QSpinBox>
#include <algorithm>
#include <array>

#include "ui/qt_text.hpp"

namespace rl::ui {

/// A combo box with one item per value, named by `name(value)`.
template <class E, std::size_t N, class NameFn>
QComboBox* makeCombo(const std::array<E, N>& values, NameFn name, QWidget* parent) {
  auto* box = new QComboBox(parent);
  for (E v : values) box->addItem(qs(name(v)), static_cast<int>(v));
  return box;
}

/// The value of the current item.
template <class E>
E comboValue(const QComboBox* box) {
  return static_cast<E>(box->currentData().toInt());
}

/// Selects `v` (the first item when it is not listed).
template <class E>
void setCombo(QComboBox* box, E v) {
  box->setCurrentIndex(std::max(0, box->findData(static_cast<int>(v))));
}

/// A spin box over [min, max] that signals when an edit is done, not per keystroke.
inline QSpinBox* makeSpin(int min, int max, QWidget* parent) {
  auto* s = new QSpinBox(parent);
  s->setRange(min, max);
  s->setKeyboardTracking(false);
  return s;
}

}  // namespace rl::ui
