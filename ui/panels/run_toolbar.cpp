#include "ui/panels/run_toolbar.hpp"

#include <QAbstractSpinBox>
#include <QKeyEvent>

#include <QAction>
#include <QComboBox>
#include <QSignalBlocker>
#include <QStyle>

#include "ui/presets.hpp"

namespace rl::ui {

RunToolBar::RunToolBar(QWidget* parent) : QToolBar(tr("Run"), parent) {
  setObjectName(QStringLiteral("runToolBar"));
  setMovable(false);
  setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
  start_ = addAction(style()->standardIcon(QStyle::SP_MediaPlay), tr("Start"));
  start_->setObjectName(QStringLiteral("startAction"));
  start_->setShortcut(QKeySequence(Qt::Key_Space));
  start_->setToolTip(tr("Start or stop the storm (Space)"));
  connect(start_, &QAction::triggered, this, &RunToolBar::startStopTriggered);
  addSeparator();
  presets_ = new QComboBox(this);
  presets_->setObjectName(QStringLiteral("presetPicker"));
  presets_->setToolTip(tr("Load a demo: its storm is the scenario file of the same name"));
  presets_->addItem(tr("Pick a preset..."), QString());
  for (const Preset& p : presets()) {
    presets_->addItem(p.title, p.id);
    presets_->setItemData(presets_->count() - 1, p.explanation, Qt::ToolTipRole);
  }
  addWidget(presets_);
  connect(presets_, &QComboBox::activated, this, [this](int i) {
    const QString id = presets_->itemData(i).toString();
    if (!id.isEmpty()) emit presetPicked(id);
  });
  QAction* reset = addAction(style()->standardIcon(QStyle::SP_BrowserReload), tr("Reset"));
  reset->setObjectName(QStringLiteral("resetAction"));
  reset->setToolTip(tr("Back to the first-run form: 1,000 requests at fixed_window"));
  connect(reset, &QAction::triggered, this, &RunToolBar::resetTriggered);
}

void RunToolBar::setRunning(bool running) {
  start_->setText(running ? tr("Stop") : tr("Start"));
  start_->setIcon(style()->standardIcon(running ? QStyle::SP_MediaStop : QStyle::SP_MediaPlay));
}

void RunToolBar::showPreset(const QString& id) {
  const QSignalBlocker block(presets_);
  presets_->setCurrentIndex(std::max(0, presets_->findData(id)));
}

void RunToolBar::letSpaceStartIn(QWidget* root) {
  for (QAbstractSpinBox* box : root->findChildren<QAbstractSpinBox*>()) box->installEventFilter(this);
}

bool RunToolBar::eventFilter(QObject* watched, QEvent* event) {
  // Not overriding the shortcut lets Space reach the Start/Stop action; the key press never reaches the box.
  if (event->type() == QEvent::ShortcutOverride && static_cast<QKeyEvent*>(event)->key() == Qt::Key_Space &&
      static_cast<QKeyEvent*>(event)->modifiers() == Qt::NoModifier)
    return true;
  return QToolBar::eventFilter(watched, event);
}

}  // namespace rl::ui
