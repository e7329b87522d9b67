#include "ui/panels/summary_panel.hpp"

#include "ui/qt_text.hpp"

#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>

namespace rl::ui {

namespace {
const QStringList kColumns = {QObject::tr("algorithm"), QObject::tr("offered"),  QObject::tr("admitted"),
                              QObject::tr("denied"),    QObject::tr("errors"),   QObject::tr("max in window"),
                              QObject::tr("overshoot"), QObject::tr("p50 (us)"), QObject::tr("p99 (us)")};

QTableWidgetItem* cell(const QString& text, bool number) {
  auto* item = new QTableWidgetItem(text);
  item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable);
  if (number) item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
  return item;
}

// From the kill until decisions were served again, in whole ms; -1 = never.
std::int64_t unservedMs(const FailoverReport& f) { return f.unserved.count() < 0 ? -1 : f.unserved.count() / 1000; }

QString name(Algorithm a) { return qs(algorithmName(a)); }
}  // namespace

SummaryPanel::SummaryPanel(QWidget* parent)
    : QWidget(parent), table_(new QTableWidget(0, static_cast<int>(kColumns.size()), this)), caption_(new QLabel(this)) {
  table_->setHorizontalHeaderLabels(kColumns);
  table_->verticalHeader()->hide();
  // Every column as wide as its header and cells (never elided); a narrow window scrolls the table instead.
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table_->horizontalHeader()->setStretchLastSection(true);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(table_);
  layout->addWidget(caption_);
  caption_->setWordWrap(true);
  caption_->setText(tr("No storm yet."));
}

void SummaryPanel::setResult(const StormResult& result) {
  result_ = result;
  table_->setRowCount(static_cast<int>(result.algorithms.size()));
  int row = 0;
  for (const AlgorithmResult& r : result.algorithms) {
    table_->setItem(row, 0, cell(r.label.isEmpty() ? name(r.algorithm) : r.label, false));
    table_->item(row, 0)->setToolTip(QString::fromUtf8(algorithmSummary(r.algorithm).data()));
    const QList<QString> values = {QString::number(r.offered),
                                   QString::number(r.admitted),
                                   QString::number(r.denied),
                                   QString::number(r.errors),
                                   QString::number(r.maxAdmittedInWindow),
                                   QString::number(r.overshoot, 'f', 2) + QStringLiteral("x"),
                                   QString::number(r.p50us),
                                   QString::number(r.p99us)};
    for (int c = 0; c < values.size(); ++c) table_->setItem(row, c + 1, cell(values[c], true));
    table_->item(row, 6)->setToolTip(tr("The worst admission's need over the limit, judged per client against %1").arg(r.bound));
    ++row;
  }
  QStringList lines{result.cancelled ? tr("Stopped after %1 ms.").arg(result.durationMs)
                                      : tr("Run took %1 ms.").arg(result.durationMs)};
  for (const AlgorithmResult& r : result.algorithms)
    if (r.overLimitAdmitted > 0) lines << overLimitLine(r);
  for (const AlgorithmResult& r : result.algorithms)
    if (r.failover) lines << failoverLine(r);
  for (const AlgorithmResult& r : result.algorithms)
    if (r.targetCompared >= 0)
      lines << tr("%1 on the target's arrivals: %2 of %3 decisions differ from the target's.")
                   .arg(name(r.algorithm))
                   .arg(r.targetDiffering)
                   .arg(r.targetCompared);
  caption_->setText(lines.join(QLatin1Char('\n')));
}

void SummaryPanel::setLive(const StormResult& live) {
  result_ = StormResult{};
  table_->setRowCount(static_cast<int>(live.algorithms.size()));
  int row = 0;
  for (const AlgorithmResult& r : live.algorithms) {
    table_->setItem(row, 0, cell(r.label.isEmpty() ? name(r.algorithm) : r.label, false));
    const QList<QString> values = {QString::number(r.offered), QString::number(r.admitted),
                                   QString::number(r.denied), QString::number(r.errors)};
    for (int c = 0; c < values.size(); ++c) table_->setItem(row, c + 1, cell(values[c], true));
    for (int c = values.size() + 1; c < table_->columnCount(); ++c) table_->setItem(row, c, cell(QStringLiteral("\u2026"), true));
    ++row;
  }
  caption_->setText(tr("Running: counts so far. Max in window, overshoot and latency come when the run ends."));
}

void SummaryPanel::clear(const QString& caption) {
  result_ = StormResult{};
  table_->setRowCount(0);
  caption_->setText(caption);
}

QString SummaryPanel::overLimitLine(const AlgorithmResult& r) {
  return tr("%1: %2 admission(s) over its limit (%3); the worst: client %4 at %5 s, %6x.")
      .arg(r.label.isEmpty() ? name(r.algorithm) : r.label)
      .arg(r.overLimitAdmitted)
      .arg(r.bound)
      .arg(r.worstClient)
      .arg(static_cast<double>(r.worstAtUs) / 1e6, 0, 'f', 3)
      .arg(r.overshoot, 0, 'f', 2);
}

QString SummaryPanel::failoverLine(const AlgorithmResult& r) {
  const FailoverReport& f = *r.failover;
  if (f.kind != "scripted") {  // a natural failover: core's sentences (as ratelab-cli run prints them)
    QStringList lines;
    for (const std::string& s : failoverSentences(f)) lines << qs(s).trimmed();
    return r.label + QStringLiteral(": ") + lines.join(QLatin1Char('\n'));
  }
  // Countable when the promoted replica's state could be read (stateOnNewMaster >= 0); then
  // lost = admitted before the kill - held by the promoted replica, which is <= 0 when nothing was
  // lost (< 0: writes whose WAIT timed out, counted as errors, reached the replica anyway).
  QString lost;
  if (f.stateOnNewMaster < 0) lost = tr("lost writes not countable for this algorithm");
  else if (f.lostWrites > 0)
    lost = tr("%1 admitted writes lost (%2 admitted before the kill, the promoted replica held %3)")
               .arg(f.lostWrites)
               .arg(f.admittedBeforeKill)
               .arg(f.stateOnNewMaster);
  else if (f.lostWrites == 0)
    lost = tr("no admitted write lost (%1 admitted before the kill, the promoted replica held all %2)")
               .arg(f.admittedBeforeKill)
               .arg(f.stateOnNewMaster);
  else
    lost = tr("no admitted write lost (%1 admitted before the kill, the promoted replica held %2: %3 more, writes "
              "whose WAIT timed out that reached it anyway)")
               .arg(f.admittedBeforeKill)
               .arg(f.stateOnNewMaster)
               .arg(-f.lostWrites);
  const QString served = unservedMs(f) < 0 ? tr("decisions were not served again before the storm ended")
                                          : tr("served again %1 ms after the kill").arg(unservedMs(f));
  return tr("%1: %2; %3; %4 decided by %5; admitted %6 of limit %7 (%8x).")
      .arg(r.label, lost, served)
      .arg(f.errorsDuringFailover)
      .arg(r.policy == FailurePolicy::Local ? tr("the local limiter") : tr("fail-%1").arg(qs(failurePolicyName(r.policy))))
      .arg(r.admitted)
      .arg(r.limit)
      .arg(r.overshoot, 0, 'f', 2);
}


}  // namespace rl::ui
