#pragma once
// RunToolBar: where a first-time user starts. Start/Stop (Space), a preset
// picker that loads the chosen scenario file into the form, and Reset (the
// first-run form). It only emits; MainWindow wires it to the panels.

#include <QToolBar>

class QAction;
class QComboBox;

namespace rl::ui {

/// The window's run toolbar; see the file comment.
class RunToolBar : public QToolBar {
  Q_OBJECT
 public:
  explicit RunToolBar(QWidget* parent = nullptr);
  /// Shows Start or Stop.
  void setRunning(bool running);
  /// Shows `id` as the current preset (empty: none) without emitting.
  void showPreset(const QString& id);
  /// The Start/Stop action (Space).
  QAction* startAction() const { return start_; }
  /// The preset picker (tests).
  QComboBox* presetBox() const { return presets_; }
  /// Space starts or stops the storm from the number fields under `root` too (a spin box
  /// would otherwise take the key as text and blank its value).
  void letSpaceStartIn(QWidget* root);

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 signals:
  /// Start/Stop was triggered.
  void startStopTriggered();
  /// A preset was picked (its id).
  void presetPicked(const QString& id);
  /// Reset was triggered.
  void resetTriggered();

 private:
  QAction* start_;
  QComboBox* presets_;
};

}  // namespace rl::ui
