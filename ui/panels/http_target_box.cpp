#include "ui/panels/http_target_box.hpp"

#include <QLabel>
#include <QFormLayout>
#include <QLineEdit>
#include <QPlainTextEdit>

#include "storm/storm_settings.hpp"
#include "ui/qt_text.hpp"

namespace rl::ui {

HttpTargetBox::HttpTargetBox(QWidget* parent) : QWidget(parent) {
  auto* form = new QFormLayout(this);
  form->setContentsMargins(0, 0, 0, 0);
  target_ = new QLineEdit(this);
  target_->setObjectName(QStringLiteral("httpTarget"));
  target_->setPlaceholderText(tr("http://127.0.0.1:8080/ (several: comma-separated, one per replica)"));
  target_->setToolTip(tr("Any HTTP limiter: 2xx is admitted, the deny statuses are denied, anything else is an error"));
  key_ = new QLineEdit(QStringLiteral("header:x-api-key"), this);
  key_->setObjectName(QStringLiteral("httpKey"));
  key_->setToolTip(tr("header:NAME sends each client's id in that header; source-addr sends client i from 127.0.0.(2+i) "
                      "(per-IP limits such as nginx's $binary_remote_addr)"));
  deny_ = new QLineEdit(QStringLiteral("429"), this);
  deny_->setObjectName(QStringLiteral("httpDenyStatus"));
  deny_->setToolTip(tr("Statuses that mean denied, e.g. 429,503 (nginx's default limit_req_status is 503)"));
  headers_ = new QPlainTextEdit(this);
  headers_->setObjectName(QStringLiteral("httpHeaders"));
  headers_->setPlaceholderText(tr("Name: value, one per line"));
  headers_->setMaximumHeight(headers_->fontMetrics().lineSpacing() * 2 + 12);
  models_ = new QLabel(tr("the checked algorithms decide the target's own arrivals again, in memory: one lane each, "
                          "with the decisions that differ from the target's"), this);
  models_->setObjectName(QStringLiteral("httpModels"));
  models_->setWordWrap(true);
  form->addRow(tr("Target"), target_);
  form->addRow(tr("Client"), key_);
  form->addRow(tr("Denied"), deny_);
  form->addRow(tr("Headers"), headers_);
  form->addRow(tr("Models"), models_);
  connect(target_, &QLineEdit::textChanged, this, &HttpTargetBox::changed);
}

Result<void> HttpTargetBox::applyTo(StormSpec& spec) const {
  const auto set = [&spec](const char* key, const QString& text, const char* field) {
    return applyStormSetting(spec, key, text.trimmed().toStdString(), std::string("HTTP ") + field);
  };
  if (target_->text().trimmed().isEmpty())
    return invalidArgument("HTTP Target is empty: allowed http://host:port[/path], several comma-separated");
  if (auto ok = set("http_target", target_->text(), "Target"); !ok) return ok;
  if (auto ok = set("http_key", key_->text(), "Client"); !ok) return ok;
  if (auto ok = set("http_deny_status", deny_->text(), "Denied"); !ok) return ok;
  spec.http.headers.clear();
  for (const QString& line : headers_->toPlainText().split(QLatin1Char('\n'), Qt::SkipEmptyParts))
    if (auto ok = set("http_header", line, "Headers"); !ok) return ok;
  return {};
}

void HttpTargetBox::show(const StormSpec& spec) {
  QStringList targets;
  for (const std::string& t : spec.http.targets) targets << qs(t);
  target_->setText(targets.join(QLatin1Char(',')));
  key_->setText(qs(spec.http.key));
  QStringList deny;
  for (int s : spec.http.denyStatus) deny << QString::number(s);
  deny_->setText(deny.join(QLatin1Char(',')));
  QStringList headers;
  for (const std::string& h : spec.http.headers) headers << qs(h);
  headers_->setPlainText(headers.join(QLatin1Char('\n')));
}

}  // namespace rl::ui
