#include "ui/panels/key_audit_view.hpp"

#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QColor>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPainter>
#include <QPushButton>
#include <QSplitter>
#include <QTextEdit>
#include <QTreeWidget>
#include <QValueAxis>
#include <QVBoxLayout>

#include "common/byte_text.hpp"
#include "common/duration_text.hpp"
#include "redis/redis_url.hpp"
#include "report/html_report.hpp"
#include "ui/panels/save_path.hpp"
#include "ui/qt_text.hpp"

namespace rl::ui {

namespace {
QString libraryText(const KeyAuditGroup& g) { return g.library.empty() ? QObject::tr("(no reader knows)") : qs(g.library); }

QStringList findingLines(const KeyAuditReport& r, const QStringList& failed) {
  QStringList out;
  for (const QString& f : failed) out << QObject::tr("FAILS %1").arg(f);
  for (const std::string& w : r.warnings) out << QObject::tr("Warning: %1").arg(qs(w));
  for (const KeyAuditGroup& g : r.groups) {
    if (!g.library.empty())
      for (const std::string& n : g.noTtlNames) out << QObject::tr("No TTL: %1 (%2) never expires").arg(qs(n), libraryText(g));
    for (const LongTtlKey& k : g.longTtlKeys)
      out << QObject::tr("TTL far beyond its window: %1 (%2): %3, expected at most %4")
                 .arg(qs(k.name), libraryText(g), qs(durationText(k.pttlMs)), qs(durationText(k.boundMs)));
    for (const std::string& n : g.unknownNames) out << QObject::tr("Unknown shape: %1").arg(qs(n));
  }
  for (const std::string& n : r.notes) out << QObject::tr("Note: %1").arg(qs(n));
  return out;
}
}  // namespace

KeyAuditView::KeyAuditView(QWidget* parent)
    : QWidget(parent),
      run_(new QPushButton(tr("Audit keys"), this)),
      export_(new QPushButton(tr("Export report…"), this)),
      status_(new QLabel(tr("Audit: every limiter key under the prefix (empty: every key), up to 200,000 keys."), this)),
      groups_(new QTreeWidget(this)),
      findings_(new QTextEdit(this)),
      bars_(new QBarSet(tr("keys"))),
      axisY_(new QValueAxis(this)) {
  run_->setObjectName(QStringLiteral("auditKeys"));
  export_->setObjectName(QStringLiteral("exportAuditReport"));
  export_->setEnabled(false);
  export_->setToolTip(tr("The audit as one HTML page to share (ratelab-cli keys --audit --report)"));
  status_->setWordWrap(true);
  groups_->setRootIsDecorated(false);
  groups_->setColumnCount(7);
  groups_->setHeaderLabels({tr("prefix"), tr("library"), tr("keys"), tr("no TTL"), tr("long TTL"), tr("memory"), tr("hottest")});
  groups_->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
  findings_->setReadOnly(true);
  findings_->setPlaceholderText(tr("Keys without a TTL, TTLs far beyond their window, the eviction policy, unknown keys."));
  auto* series = new QBarSeries;
  series->append(bars_);
  auto* chart = new QChart;
  chart->addSeries(series);
  chart->setTitle(tr("TTL ÷ window"));
  chart->legend()->hide();
  auto* axisX = new QBarCategoryAxis;
  axisX->append({tr("≤½"), tr("≤1"), tr("≤2"), tr("≤10"), tr(">10"), tr("?"), tr("no")});
  QValueAxis* axisY = axisY_;
  axisY->setLabelFormat(QStringLiteral("%d"));
  chart->addAxis(axisX, Qt::AlignBottom);
  chart->addAxis(axisY, Qt::AlignLeft);
  series->attachAxis(axisX);
  series->attachAxis(axisY);
  chart->setMargins(QMargins(2, 2, 2, 2));
  auto* view = new QChartView(chart, this);
  view->setRenderHint(QPainter::Antialiasing);
  view->setToolTip(tr("Keys by TTL divided by the most the key needs (its window or refill): <= 1/2, <= 1, <= 2, <= 10, "
                      "> 10 times; ?: no bound known (the key does not hold its window: Assume window=60s); no: no TTL"));
  view->setMinimumSize(220, 140);  // with the findings, fits the inspector dock of a 1024 px window
  findings_->setMinimumWidth(180);
  groups_->setMinimumHeight(4 * fontMetrics().height());
  auto* top = new QHBoxLayout;
  top->addWidget(run_);
  top->addWidget(status_, 1);
  top->addWidget(export_);
  auto* lower = new QSplitter(Qt::Horizontal, this);
  lower->addWidget(findings_);
  lower->addWidget(view);
  lower->setStretchFactor(0, 1);
  lower->setStretchFactor(1, 1);
  lower->setSizes({10'000, 10'000});  // half each from the start: the histogram's bin labels need the room
  auto* split = new QSplitter(Qt::Vertical, this);
  split->addWidget(groups_);
  split->addWidget(lower);
  split->setStretchFactor(0, 2);  // a few rows of groups; the findings and the histogram get the rest
  split->setStretchFactor(1, 3);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(top);
  layout->addWidget(split, 1);
  connect(run_, &QPushButton::clicked, this, [this] {
    run_->setEnabled(false);
    status_->setText(tr("Auditing…"));
    emit auditRequested();
  });
  connect(groups_, &QTreeWidget::itemSelectionChanged, this, &KeyAuditView::showHistogram);
  connect(export_, &QPushButton::clicked, this, &KeyAuditView::exportReportAs);
}

void KeyAuditView::setSource(const QString& url, const QString& prefix) {
  url_ = qs(withoutPassword(url.toStdString()));
  prefix_ = prefix;
}

Result<void> KeyAuditView::exportReport(const QString& path) const {
  if (!haveReport_) return invalidArgument("no audit to export yet: press Audit keys first");
  if (auto ok = checkReportPath(path.toStdString()); !ok) return ok;
  std::vector<std::string> failed;
  for (const QString& f : failed_) failed.push_back(f.toStdString());
  ReportHeader header;
  header.title = "Key audit of " + url_.toStdString();
  header.command = "the RateLab window (key inspector, Audit tab)";
  const std::string html = keyAuditReportHtml(report_, failed, url_.toStdString(),
                                              keyAuditDocument(prefix_.toStdString(), report_, failed), header);
  return writeReport(path.toStdString(), html);
}

void KeyAuditView::exportReportAs() {
  const QString path = askReportPath(this, tr("Export audit report"), "key-audit");
  if (path.isEmpty()) return;
  const Result<void> ok = exportReport(path);  // a bounded page (capped lists): a few KB, written at once
  status_->setText(ok ? tr("Export report: %1").arg(path) : qs(ok.error().message));
}

void KeyAuditView::showReport(const KeyAuditReport& report, const QStringList& failed) {
  report_ = report;
  failed_ = failed;
  haveReport_ = true;
  run_->setEnabled(true);
  export_->setEnabled(true);
  status_->setText(tr("%1 key(s) read, %2 limiter key(s)%3: %4")
                       .arg(report.scanned)
                       .arg(report.limiterKeys)
                       .arg(report.truncated ? tr(" (stopped early)") : QString())
                       .arg(failed.isEmpty() ? tr("pass") : tr("fail")));
  groups_->clear();
  for (const KeyAuditGroup& g : report.groups) {
    auto* item = new QTreeWidgetItem(groups_);
    item->setText(0, g.prefix.empty() ? tr("(none)") : qs(g.prefix));
    item->setText(1, libraryText(g));
    item->setText(2, QString::number(g.count));
    item->setText(3, QString::number(g.noTtl));
    item->setText(4, QString::number(g.longTtl));
    item->setText(5, g.memorySampled ? tr("%1 in %2").arg(qs(bytesText(g.memoryBytes))).arg(g.memorySampled) : QStringLiteral("-"));
    item->setText(6, g.hottest.empty() ? QStringLiteral("-")
                                       : QStringLiteral("%1 %2/%3").arg(qs(g.hottest[0].name)).arg(g.hottest[0].used).arg(g.hottest[0].limit));
    if (g.library.empty() ? false : g.noTtl > 0 || g.longTtl > 0) item->setForeground(3, QColor(200, 40, 40));
  }
  findings_->setPlainText(findingLines(report, failed).join('\n'));
  showHistogram();
  emit auditShown();
}

void KeyAuditView::showError(const QString& message) {
  run_->setEnabled(true);
  status_->setText(message);
  emit auditShown();
}

void KeyAuditView::showHistogram() {
  std::array<std::int64_t, kTtlBins> sum{};
  const auto selected = groups_->selectedItems();
  for (int i = 0; i < static_cast<int>(report_.groups.size()); ++i) {
    const bool pick = selected.isEmpty() ? !report_.groups[static_cast<std::size_t>(i)].library.empty()
                                         : selected.contains(groups_->topLevelItem(i));
    if (!pick) continue;
    for (std::size_t b = 0; b < kTtlBins; ++b) sum[b] += report_.groups[static_cast<std::size_t>(i)].ttlHistogram[b];
  }
  QList<qreal> values;
  qreal most = 1;
  for (const std::int64_t v : sum) {
    values << static_cast<qreal>(v);
    most = std::max(most, static_cast<qreal>(v));
  }
  bars_->remove(0, bars_->count());
  bars_->append(values);
  axisY_->setRange(0, most);
  axisY_->applyNiceNumbers();  // whole-number ticks (0, 1, 2 ... or 0, 20, 40 ...)
  axisY_->setTickCount(std::min(6, static_cast<int>(axisY_->max()) + 1));
}

QString KeyAuditView::findingsText() const { return findings_->toPlainText(); }

QString KeyAuditView::statusText() const { return status_->text(); }

QList<qreal> KeyAuditView::histogram() const {
  QList<qreal> out;
  for (int i = 0; i < bars_->count(); ++i) out << bars_->at(i);
  return out;
}

}  // namespace rl::ui
