#include "ui/panels/http_audit_panel.hpp"

#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QTableWidget>
#include <QVBoxLayout>

#include "audit/audit_experiment.hpp"
#include "report/html_report.hpp"
#include "storm/run_tag.hpp"
#include "ui/panels/save_path.hpp"
#include "ui/qt_text.hpp"

namespace rl::ui {

namespace {
constexpr int kProbes = static_cast<int>(std::size(kAuditProbes));

QColor verdictColour(Verdict v) {
  switch (v) {
    case Verdict::Pass: return {46, 160, 67};
    case Verdict::Warn: return {176, 136, 0};
    case Verdict::Fail: return {215, 58, 73};
    case Verdict::Skip: break;
  }
  return {128, 128, 128};
}

int rowOf(const std::string& probe) {
  for (int i = 0; i < kProbes; ++i)
    if (kAuditProbes[i] == probe) return i;
  return -1;
}
}  // namespace

HttpAuditPanel::HttpAuditPanel(QWidget* parent)
    : QWidget(parent),
      urls_(new QLineEdit(this)),
      key_(new QLineEdit(QStringLiteral("x-api-key"), this)),
      budgetRequests_(new QSpinBox(this)),
      budgetSeconds_(new QSpinBox(this)),
      run_(new QPushButton(tr("Run audit"), this)),
      export_(new QPushButton(tr("Export report..."), this)),
      lanes_(new QPushButton(tr("Show in lanes"), this)),
      status_(new QLabel(this)),
      table_(new QTableWidget(kProbes, 3, this)),
      declared_(new QLabel(this)),
      fingerprint_(new QLabel(this)),
      verdict_(new QLabel(this)) {
  urls_->setObjectName(QStringLiteral("auditUrls"));
  urls_->setPlaceholderText(tr("http://127.0.0.1:8080/api, or its replicas' URLs comma-separated"));
  urls_->setToolTip(tr("The limiter to audit: one URL, or several URLs of the same limiter (its pods: the "
                       "replicas probe sends one key round-robin to find an N-times leak)"));
  key_->setObjectName(QStringLiteral("auditKeyHeader"));
  key_->setToolTip(tr("The request header that names the client (a fresh key per probe); empty: the limiter "
                      "keys by source address, and each probe comes from a fresh 127.0.0.x on a loopback target"));
  budgetRequests_->setRange(10, 1'000'000);
  budgetRequests_->setValue(600);
  budgetRequests_->setSuffix(tr(" requests"));
  budgetSeconds_->setRange(1, 86'400);
  budgetSeconds_->setValue(60);
  budgetSeconds_->setSuffix(tr(" s"));
  run_->setObjectName(QStringLiteral("auditRun"));
  export_->setObjectName(QStringLiteral("auditExport"));
  export_->setEnabled(false);
  lanes_->setObjectName(QStringLiteral("auditLanes"));
  lanes_->setToolTip(tr("The target's decisions in the lanes, one client per probe key, and below them the "
                        "fingerprint's model deciding the same arrivals (a run of the History)"));
  lanes_->setEnabled(false);
  status_->setObjectName(QStringLiteral("auditStatus"));
  status_->setWordWrap(true);
  status_->setText(tr("Probes a foreign HTTP limiter as ratelab-cli audit does: what it declares, bursts, headers, "
                      "Retry-After, the window boundary, a sustained load, replicas and identity, then which "
                      "algorithm explains its decisions."));
  table_->setObjectName(QStringLiteral("auditTable"));
  table_->setHorizontalHeaderLabels({tr("probe"), tr("verdict"), tr("what it found")});
  table_->verticalHeader()->setVisible(false);
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setWordWrap(true);
  // At least five probes' rows in view (the table scrolls for the rest; the dock when the window is short).
  table_->setMinimumHeight(table_->horizontalHeader()->sizeHint().height() + 5 * (table_->fontMetrics().height() + 8) + 4);
  for (QLabel* l : {declared_, fingerprint_, verdict_}) {
    l->setWordWrap(true);
    l->setTextInteractionFlags(Qt::TextSelectableByMouse);
  }
  declared_->setObjectName(QStringLiteral("auditDeclared"));
  fingerprint_->setObjectName(QStringLiteral("auditFingerprint"));
  verdict_->setObjectName(QStringLiteral("auditVerdict"));
  resetTable();

  auto* form = new QFormLayout;
  form->addRow(tr("Target"), urls_);
  form->addRow(tr("Key header"), key_);
  auto* row = new QHBoxLayout;
  row->addWidget(budgetRequests_);
  row->addWidget(budgetSeconds_);
  row->addStretch(1);
  form->addRow(tr("Budget"), row);
  auto* buttons = new QHBoxLayout;  // a row of their own: a 1024 px window's dock holds them without scrolling
  buttons->addWidget(run_);
  buttons->addWidget(export_);
  buttons->addWidget(lanes_);
  buttons->addStretch(1);
  form->addRow(QString(), buttons);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(form);
  layout->addWidget(status_);
  layout->addWidget(verdict_);
  layout->addWidget(declared_);
  layout->addWidget(fingerprint_);
  layout->addWidget(table_, 1);

  connect(run_, &QPushButton::clicked, this, [this] {
    if (running_) emit stopRequested();
    else startAudit();
  });
  connect(lanes_, &QPushButton::clicked, this, [this] {
    if (auto experiment = lanesExperiment()) emit lanesRequested(experiment, qs(report_->target()));
  });
  connect(export_, &QPushButton::clicked, this, [this] {
    const QString path = askReportPath(this, tr("Export audit report"), "audit");
    if (path.isEmpty()) return;
    const auto ok = exportReport(path);
    showStatus(ok ? tr("Export report: %1").arg(path) : qs(ok.error().message));
  });
}

Result<AuditSpec> HttpAuditPanel::spec() const {
  AuditSpec s;
  for (const QString& u : urls_->text().split(QLatin1Char(','), Qt::SkipEmptyParts))
    s.urls.push_back(u.trimmed().toStdString());
  if (s.urls.empty()) return invalidArgument("Target: give the limiter's URL, e.g. http://127.0.0.1:8080/api");
  s.keyHeader = key_->text().trimmed().toStdString();
  s.budgetRequests = budgetRequests_->value();
  s.budget = budgetSeconds_->value() * kSecond;
  s.runTag = freshRunTag("audit");
  if (auto ok = validateAuditSpec(s); !ok) return ok.error();
  return s;
}

bool HttpAuditPanel::startAudit() {
  if (running_) return false;
  auto s = spec();
  if (!s) {
    showStatus(qs(s.error().message), true);
    return false;
  }
  resetTable();
  report_.reset();
  export_->setEnabled(false);
  lanes_->setEnabled(false);
  for (QLabel* l : {declared_, fingerprint_, verdict_}) l->clear();
  showStatus(tr("Auditing %1: at most %2 requests in %3 s...")
                 .arg(urls_->text().trimmed())
                 .arg(budgetRequests_->value())
                 .arg(budgetSeconds_->value()));
  setRunning(true);
  emit runRequested(*s);
  return true;
}

void HttpAuditPanel::setUrls(const QString& urls) { urls_->setText(urls); }

void HttpAuditPanel::setTarget(const QString& urls, const QString& keyHeader, int budgetRequests, int budgetSeconds) {
  urls_->setText(urls);
  key_->setText(keyHeader);
  budgetRequests_->setValue(budgetRequests);
  budgetSeconds_->setValue(budgetSeconds);
}

QString HttpAuditPanel::declaredText() const { return declared_->text(); }
QString HttpAuditPanel::fingerprintText() const { return fingerprint_->text(); }
QString HttpAuditPanel::verdictText() const { return verdict_->text(); }
QString HttpAuditPanel::statusText() const { return status_->text(); }

void HttpAuditPanel::resetTable() {
  for (int i = 0; i < kProbes; ++i) {
    table_->setItem(i, 0, new QTableWidgetItem(qs(kAuditProbes[i])));
    table_->setItem(i, 1, new QTableWidgetItem(QStringLiteral("\u2026")));
    table_->setItem(i, 2, new QTableWidgetItem());
  }
  table_->resizeColumnToContents(0);
}

void HttpAuditPanel::showStatus(const QString& text, bool error) {
  status_->setStyleSheet(error ? QStringLiteral("QLabel { color: #d73a49; font-weight: bold; }") : QString());
  status_->setText(text);
}

void HttpAuditPanel::setRunning(bool running) {
  running_ = running;
  run_->setText(running ? tr("Stop") : tr("Run audit"));
  for (QWidget* w : std::initializer_list<QWidget*>{urls_, key_, budgetRequests_, budgetSeconds_}) w->setEnabled(!running);
}

void HttpAuditPanel::showCheck(const AuditCheck& c) {
  const int row = rowOf(c.name);
  if (row < 0) return;
  auto* verdict = new QTableWidgetItem(qs(verdictName(c.verdict)));
  verdict->setForeground(verdictColour(c.verdict));
  table_->setItem(row, 1, verdict);
  table_->setItem(row, 2, new QTableWidgetItem(qs(c.summary)));
  table_->resizeRowToContents(row);
}

void HttpAuditPanel::showFinished(const AuditReport& r, const QString& error) {
  setRunning(false);
  if (!error.isEmpty()) return showStatus(error, true);
  report_ = r;
  for (const AuditCheck& c : r.checks) showCheck(c);
  const DeclaredPolicy& d = r.declared;
  declared_->setText(d.limit >= 0 ? tr("Declared (%1): %2 per %3 s%4")
                                        .arg(qs(d.dialect))
                                        .arg(d.limit)
                                        .arg(d.windowS)
                                        .arg(d.resetInference.empty() ? QString() : tr("; reset read as %1").arg(qs(d.resetInference)))
                                  : tr("Declared: nothing (no rate-limit headers seen)"));
  fingerprint_->setText(r.fingerprint.algorithm.empty() ? tr("Fingerprint: nothing replayed")
                                                        : tr("Fingerprint: %1").arg(qs(r.fingerprint.summary)));
  verdict_->setText(tr("<b>%1</b>").arg(qs(r.summary).toHtmlEscaped()));  // "warn: 3 passed, 1 warned, ..."
  verdict_->setStyleSheet(QStringLiteral("QLabel { color: %1; }").arg(verdictColour(r.verdict).name()));
  showStatus(tr("%1 requests in %2 s%3")
                 .arg(r.requests)
                 .arg(static_cast<double>(r.elapsedMs) / 1000.0, 0, 'f', 1)
                 .arg(r.interrupted ? tr(" (stopped: the probes after it did not run)") : QString()));
  export_->setEnabled(true);
  lanes_->setEnabled(!r.fingerprint.algorithm.empty());
  if (auto experiment = lanesExperiment()) emit lanesRequested(experiment, qs(r.target()));  // drawn at once
}

std::shared_ptr<const ExperimentResult> HttpAuditPanel::lanesExperiment() const {
  if (!report_ || report_->fingerprint.algorithm.empty()) return nullptr;
  auto experiment = std::make_shared<const ExperimentResult>(auditExperiment(*report_));
  return experiment->runs.empty() ? nullptr : experiment;
}

Result<void> HttpAuditPanel::exportReport(const QString& path) const {
  if (!report_) return invalidArgument("No audit has finished yet: nothing to export");
  ReportHeader header;
  header.title = "Audit of " + report_->target();
  header.command = "RateLab window";
  return writeReport(path.toStdString(), auditReportHtml(auditJson(*report_), header));
}

}  // namespace rl::ui
