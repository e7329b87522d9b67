#include "ui/panels/summary_panel.hpp"

#include <QHeaderView>
#include <QJsonArray>
#include <QJsonObject>
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

QString name(Algorithm a) {
  const auto n = algorithmName(a);
  return QString::fromUtf8(n.data(), static_cast<qsizetype>(n.size()));
}
}  // namespace

SummaryPanel::SummaryPanel(QWidget* parent)
    : QWidget(parent), table_(new QTableWidget(0, static_cast<int>(kColumns.size()), this)), caption_(new QLabel(this)) {
  table_->setHorizontalHeaderLabels(kColumns);
  table_->verticalHeader()->hide();
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(table_);
  layout->addWidget(caption_);
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
    ++row;
  }
  caption_->setText(result.cancelled ? tr("Stopped after %1 ms.").arg(result.durationMs)
                                     : tr("Run took %1 ms.").arg(result.durationMs));
}

QJsonDocument SummaryPanel::toJson() const {
  QJsonArray runs;
  for (const AlgorithmResult& r : result_.algorithms) {
    QJsonObject o;
    o[QStringLiteral("algorithm")] = name(r.algorithm);
    o[QStringLiteral("backend")] = r.backend;
    if (r.backend == QStringLiteral("redis-script")) o[QStringLiteral("script")] = r.label;  // as ratelab-cli run --json
    o[QStringLiteral("limit")] = static_cast<qint64>(r.limit);
    o[QStringLiteral("offered")] = static_cast<qint64>(r.offered);
    o[QStringLiteral("admitted")] = static_cast<qint64>(r.admitted);
    o[QStringLiteral("denied")] = static_cast<qint64>(r.denied);
    o[QStringLiteral("errors")] = static_cast<qint64>(r.errors);
    o[QStringLiteral("max_admitted_in_window")] = static_cast<qint64>(r.maxAdmittedInWindow);
    o[QStringLiteral("overshoot")] = r.overshoot;
    o[QStringLiteral("duration_ms")] = static_cast<qint64>(result_.durationMs);
    o[QStringLiteral("latency_us")] =
        QJsonObject{{QStringLiteral("p50"), static_cast<qint64>(r.p50us)},
                    {QStringLiteral("p99"), static_cast<qint64>(r.p99us)}};
    runs.append(o);
  }
  return QJsonDocument(QJsonObject{{QStringLiteral("runs"), runs}});
}

}  // namespace rl::ui
