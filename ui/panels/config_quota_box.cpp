#include "ui/panels/config_quota_box.hpp"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

#include "dialects/quota_explanation.hpp"
#include "ui/qt_text.hpp"

namespace rl::ui {

ConfigQuotaBox::ConfigQuotaBox(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  toggle_ = new QToolButton(this);
  toggle_->setObjectName(QStringLiteral("fromConfigToggle"));
  toggle_->setText(tr("From config (nginx, Envoy, Traefik, express, ...)"));
  toggle_->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
  toggle_->setArrowType(Qt::RightArrow);
  toggle_->setCheckable(true);
  toggle_->setAutoRaise(true);
  body_ = new QWidget(this);
  auto* b = new QVBoxLayout(body_);
  b->setContentsMargins(0, 0, 0, 0);
  auto* row = new QHBoxLayout;
  dialect_ = new QComboBox(body_);
  dialect_->setObjectName(QStringLiteral("configDialect"));
  for (const Dialect& d : allDialects()) {
    dialect_->addItem(qs(d.name));
    dialect_->setItemData(dialect_->count() - 1, qs(d.summary), Qt::ToolTipRole);
  }
  which_ = new QComboBox(body_);
  which_->setObjectName(QStringLiteral("configQuota"));
  which_->hide();
  row->addWidget(dialect_);
  row->addWidget(which_, 1);
  text_ = new QPlainTextEdit(body_);
  text_->setObjectName(QStringLiteral("configText"));
  text_->setPlaceholderText(tr("Paste a config, e.g. limit_req_zone $binary_remote_addr zone=z:10m rate=6000r/m; "
                               "limit_req zone=z;"));
  text_->setFixedHeight(text_->fontMetrics().lineSpacing() * 4 + 12);
  status_ = new QLabel(body_);
  status_->setObjectName(QStringLiteral("configStatus"));
  status_->setWordWrap(true);
  b->addLayout(row);
  b->addWidget(text_);
  b->addWidget(status_);
  body_->hide();
  layout->addWidget(toggle_);
  layout->addWidget(body_);
  debounce_ = new QTimer(this);
  debounce_->setSingleShot(true);
  debounce_->setInterval(250);
  connect(toggle_, &QToolButton::toggled, this, [this](bool open) {
    body_->setVisible(open);
    toggle_->setArrowType(open ? Qt::DownArrow : Qt::RightArrow);
  });
  connect(text_, &QPlainTextEdit::textChanged, debounce_, qOverload<>(&QTimer::start));
  connect(dialect_, &QComboBox::currentIndexChanged, this, [this] { readNow(); });
  connect(debounce_, &QTimer::timeout, this, &ConfigQuotaBox::readNow);
  connect(which_, &QComboBox::activated, this, &ConfigQuotaBox::showQuota);
}

QString ConfigQuotaBox::statusText() const { return status_->text(); }

void ConfigQuotaBox::readNow() {
  debounce_->stop();
  const QString text = text_->toPlainText();
  quotas_.clear();
  which_->clear();
  which_->hide();
  if (text.trimmed().isEmpty()) {
    error_ = false;
    status_->clear();
    return;
  }
  auto r = parseDialect(dialect_->currentText().toStdString(), text.toStdString());
  error_ = !r;
  status_->setStyleSheet(error_ ? QStringLiteral("QLabel { color: #d73a49; font-weight: bold; }") : QString());
  if (!r) {
    status_->setText(qs(r.error().message));
    return;
  }
  quotas_ = std::move(r.value());
  for (const DialectQuota& q : quotas_) which_->addItem(qs(q.name));
  which_->setVisible(quotas_.size() > 1);
  showQuota(0);
}

void ConfigQuotaBox::showQuota(int index) {
  if (index < 0 || index >= static_cast<int>(quotas_.size())) return;
  const DialectQuota& d = quotas_[static_cast<std::size_t>(index)];
  const QuotaExplanation e = explainQuota(d.algorithm, d.quota, defaultSimultaneous(d.quota));
  const auto sentences = explanationSentences(d.algorithm, d.quota, e);
  status_->setText(tr("%1: %2").arg(qs(d.name), qs(sentences.front())));
  QString html = tr("<b>From %1: %2.</b>").arg(dialect_->currentText(), qs(d.name).toHtmlEscaped());
  for (const std::string& s : sentences) html += ' ' + qs(s).toHtmlEscaped();
  for (const std::string& s : d.unmodeled) html += tr("<br><i>Not modeled:</i> ") + qs(s).toHtmlEscaped();
  for (const std::string& s : d.notes) html += tr("<br><i>Note:</i> ") + qs(s).toHtmlEscaped();
  emit quotaRead(d.algorithm, d.quota, html);
}

}  // namespace rl::ui
