#include "ui/panels/connection_panel.hpp"

#include <QButtonGroup>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRadioButton>

#include "redis/redis_url.hpp"
#include "ui/qt_text.hpp"

namespace rl::ui {

namespace {
// A URL as the status line names it (parsed and printed again, password hidden), to compare the two.
QString canonical(const QString& url) {
  const auto ep = parseRedisUrl(url.trimmed().toStdString());
  return ep ? qs(ep->toString()) : url.trimmed();
}
}  // namespace

ConnectionPanel::ConnectionPanel(QWidget* parent)
    : QWidget(parent),
      url_(new QLineEdit(this)),
      status_(new QLabel(tr("not connected"), this)),
      server_(new QLabel(tr("no managed server"), this)),
      run_(new QLabel(this)),
      connect_(new QPushButton(tr("Connect"), this)),
      startServer_(new QPushButton(tr("Start server"), this)),
      stopServer_(new QPushButton(tr("Stop server"), this)),
      open_(new QRadioButton(tr("fail-open"), this)),
      closed_(new QRadioButton(tr("fail-closed"), this)),
      local_(new QRadioButton(tr("local"), this)) {
  url_->setObjectName(QStringLiteral("redisUrl"));
  connect_->setObjectName(QStringLiteral("connectRedis"));
  startServer_->setObjectName(QStringLiteral("startServer"));
  url_->setPlaceholderText(tr("redis://127.0.0.1:6379/0, redis+cluster://…, redis+sentinel://…, cluster or sentinel"));
  url_->setToolTip(tr("redis://[user:password@]host:port[/db]: one server.\n"
                      "redis+cluster://[user:password@]host:port[,host:port…]: a Redis Cluster by its seed nodes.\n"
                      "cluster: a private Redis Cluster (3 masters + 3 replicas on free loopback ports, ~3 s to form),\n"
                      "stopped and removed when the window closes; its seed URL replaces the word.\n"
                      "redis+sentinel://[user:password@]host:port[,host:port…]/service_name[/db]: the master the\n"
                      "Sentinels name, asked again on every reconnect.\n"
                      "sentinel: a private Sentinel set (1 master, 2 replicas, 3 Sentinels), likewise."));
  status_->setObjectName(QStringLiteral("redisStatus"));
  status_->setWordWrap(true);
  status_->setMinimumHeight(2 * status_->fontMetrics().lineSpacing() + 4);
  server_->setWordWrap(true);
  run_->setObjectName(QStringLiteral("runServer"));
  run_->setWordWrap(true);
  run_->setMinimumHeight(3 * run_->fontMetrics().lineSpacing() + 4);  // a Sentinel set URL names 3 addresses
  open_->setToolTip(tr("When Redis cannot answer, admit the request: availability over protection"));
  closed_->setToolTip(tr("When Redis cannot answer, deny the request: protection over availability"));
  local_->setToolTip(tr("When Redis cannot answer, each replica decides with its own in-memory limiter: "
                        "up to replicas x limit admitted while degraded"));
  local_->setObjectName(QStringLiteral("policyLocal"));
  open_->setChecked(true);
  auto* group = new QButtonGroup(this);
  group->addButton(open_);
  group->addButton(closed_);
  group->addButton(local_);

  auto* urlRow = new QHBoxLayout;
  urlRow->addWidget(url_, 1);
  urlRow->addWidget(connect_);
  auto* serverRow = new QHBoxLayout;
  serverRow->addWidget(startServer_);
  serverRow->addWidget(stopServer_);
  auto* policyRow = new QHBoxLayout;
  policyRow->addWidget(open_);
  policyRow->addWidget(closed_);
  policyRow->addWidget(local_);
  policyRow->addStretch(1);
  auto* form = new QFormLayout(this);
  form->addRow(tr("Redis"), urlRow);
  form->addRow(tr("Status"), status_);
  form->addRow(tr("This run"), run_);
  form->setRowVisible(run_, false);
  form->addRow(tr("Managed"), serverRow);
  form->addRow(QString(), server_);
  form->addRow(tr("On error"), policyRow);

  connect(connect_, &QPushButton::clicked, this, [this] { emit connectRequested(url()); });
  connect(url_, &QLineEdit::returnPressed, this, [this] { emit connectRequested(url()); });
  connect(url_, &QLineEdit::textEdited, this, &ConnectionPanel::markUnchecked);
  connect(startServer_, &QPushButton::clicked, this, &ConnectionPanel::startServerRequested);
  connect(stopServer_, &QPushButton::clicked, this, &ConnectionPanel::stopServerRequested);
  connect(group, &QButtonGroup::buttonToggled, this, [this](QAbstractButton*, bool on) {
    if (on) emit policyChanged(policy());
  });
}

QString ConnectionPanel::url() const { return url_->text().trimmed(); }

void ConnectionPanel::setUrl(const QString& url) {
  url_->setText(url);
  markUnchecked();
}

void ConnectionPanel::markUnchecked() {
  if (url().isEmpty() || canonical(url()) == canonical(checked_)) return;
  status_->setText(tr("%1 is not checked yet: press Connect to use it (storms use the URL field)")
                       .arg(qs(withoutPassword(url().toStdString()))));
  status_->setStyleSheet(QString());
}

FailurePolicy ConnectionPanel::policy() const {
  if (local_->isChecked()) return FailurePolicy::Local;
  return closed_->isChecked() ? FailurePolicy::Closed : FailurePolicy::Open;
}

void ConnectionPanel::setPolicy(FailurePolicy p) {
  (p == FailurePolicy::Closed ? closed_ : p == FailurePolicy::Local ? local_ : open_)->setChecked(true);
}

QString ConnectionPanel::statusText() const { return status_->text(); }

QString ConnectionPanel::runServerText() const { return run_->isHidden() ? QString() : run_->text(); }

void ConnectionPanel::showRunServer(const QString& url, bool running) {
  auto* form = static_cast<QFormLayout*>(layout());
  form->setRowVisible(run_, !url.isEmpty());
  if (url.isEmpty()) return run_->clear();
  const auto ep = parseRedisUrl(url.toStdString());
  const QString what = !ep ? tr("Redis") : ep->viaSentinel() ? tr("Sentinel set") : ep->cluster ? tr("Redis Cluster") : tr("Redis server");
  const QString named = qs(withoutPassword(url.toStdString()));
  run_->setText(running ? tr("its own private %1 (started and stopped with it), not the Redis above: %2").arg(what, named)
                        : tr("the last run used its own private %1, now stopped (%2); storms use the Redis above")
                              .arg(what, named));
  run_->setStyleSheet(running ? QStringLiteral("QLabel { color: #b08800; }") : QString());
}

void ConnectionPanel::showStatus(const RedisStatus& s) {
  checked_ = s.url;
  if (!s.starting) version_ = s.ok ? s.version : QString();
  if (s.starting) {
    status_->setText(s.error);
    status_->setStyleSheet(QString());
  } else if (s.ok && s.masters > 0) {
    status_->setText(tr("connected to a Redis Cluster of %1 masters (seeds in the URL field), Redis %2, "
                        "slowest round trip %3 ms")
                         .arg(s.masters)
                         .arg(s.version)
                         .arg(s.rttMs, 0, 'f', 2));
    status_->setStyleSheet(QStringLiteral("QLabel { color: #2ea043; }"));
  } else if (s.ok) {
    status_->setText(tr("connected to %1, Redis %2, round trip %3 ms")
                         .arg(s.url, s.version)
                         .arg(s.rttMs, 0, 'f', 2));
    status_->setStyleSheet(QStringLiteral("QLabel { color: #2ea043; }"));
  } else {
    status_->setText(tr("not connected: %1").arg(s.error));
    status_->setStyleSheet(QStringLiteral("QLabel { color: #d73a49; }"));
  }
}

void ConnectionPanel::showServer(const ServerState& s) {
  server_->setText(s.message);
  stopServer_->setEnabled(s.running);
  startServer_->setText(s.port > 0 && !s.running ? tr("Restart server") : tr("Start server"));
  if (!s.url.isEmpty()) {
    url_->setText(s.url);
    url_->setCursorPosition(0);  // a cluster's seed list is long: show where it starts
  }
}

}  // namespace rl::ui
