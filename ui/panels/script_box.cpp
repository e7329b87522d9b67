#include "ui/panels/script_box.hpp"

#include <QCheckBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QPushButton>
#include <algorithm>

#include "ui/qt_text.hpp"

namespace rl::ui {

ScriptBox::ScriptBox(QWidget* parent) : QWidget(parent) {
  auto* form = new QFormLayout(this);
  form->setContentsMargins(0, 0, 0, 0);
  file_ = new QLineEdit(this);
  file_->setObjectName(QStringLiteral("scriptFile"));
  file_->setPlaceholderText(tr("your limiter's Lua file"));
  auto* pick = new QPushButton(tr("..."), this);
  pick->setObjectName(QStringLiteral("scriptPick"));
  connect(pick, &QPushButton::clicked, this, [this] {
    const QString f = QFileDialog::getOpenFileName(this, tr("Lua limiter script"), file_->text(), tr("Lua (*.lua);;All files (*)"));
    if (!f.isEmpty()) file_->setText(f);
  });
  auto* fileRow = new QHBoxLayout;
  fileRow->addWidget(file_, 1);
  fileRow->addWidget(pick);
  form->addRow(tr("Script"), fileRow);
  keys_ = new QLineEdit(this);
  keys_->setObjectName(QStringLiteral("scriptKeys"));
  argv_ = new QLineEdit(this);
  argv_->setObjectName(QStringLiteral("scriptArgv"));
  reply_ = new QLineEdit(this);
  reply_->setObjectName(QStringLiteral("scriptReply"));
  const QString placeholders = tr("Placeholders: {client} {prefix} {limit} {window_ms} {window_s} {refill_rate} "
                                  "{now_us} {now_ms} {now_s} {cost} (now from the storm's clock)");
  keys_->setToolTip(placeholders);
  argv_->setToolTip(placeholders);
  reply_->setToolTip(tr("Names of the reply's elements: allowed first (non-zero = allowed), then "
                              "remaining, tokens, retry_after_ms, retry_after_us, reset_after_ms, reset_after_us or _"));
  form->addRow(tr("KEYS"), keys_);
  form->addRow(tr("ARGV"), argv_);
  form->addRow(tr("Reply"), reply_);
  beside_ = new QCheckBox(tr("the checked algorithms beside it, on redis-lua"), this);
  beside_->setObjectName(QStringLiteral("scriptBeside"));
  beside_->setChecked(true);
  beside_->setToolTip(tr("Your script decides one lane (under the first checked algorithm's quota rules); "
                               "then the same storm runs on RateLab's Lua scripts, one lane per checked algorithm"));
  form->addRow(tr("Beside"), beside_);
}


void ScriptBox::applyTo(StormSpec& s) const {
  s.script.file = file_->text().trimmed().toStdString();
  s.script.keys = keys_->text().toStdString();
  s.script.argv = argv_->text().toStdString();
  s.script.reply = reply_->text().toStdString();
  if (s.backend == Backend::RedisScript)
    s.compareBackends = beside_->isChecked() ? std::vector<Backend>{Backend::RedisLua} : std::vector<Backend>{};
}

void ScriptBox::show(const StormSpec& s) {
  file_->setText(qs(s.script.file));
  keys_->setText(qs(s.script.keys));
  argv_->setText(qs(s.script.argv));
  reply_->setText(qs(s.script.reply));
  beside_->setChecked(s.backend != Backend::RedisScript ||
                      std::find(s.compareBackends.begin(), s.compareBackends.end(), Backend::RedisLua) != s.compareBackends.end());
}

}  // namespace rl::ui
