#include "ui/panels/history_panel.hpp"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

#include "ui/run_history.hpp"

namespace rl::ui {

namespace {
QTableWidgetItem* cell(const QString& text, int number) {
  auto* item = new QTableWidgetItem(text);
  item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable);
  item->setData(Qt::UserRole, number);
  return item;
}
}  // namespace

HistoryPanel::HistoryPanel(QWidget* parent)
    : QWidget(parent),
      showing_(new QLabel(tr("No run yet: each finished storm is kept here (the last %1).").arg(RunHistory::kKept))),
      table_(new QTableWidget(0, 5)),
      show_(new QPushButton(tr("Show"))),
      compare_(new QPushButton(tr("Compare with latest"))),
      latest_(new QPushButton(tr("Latest"))) {
  table_->setHorizontalHeaderLabels({tr("run"), tr("ended"), tr("what"), tr("lanes: admitted/offered, overshoot"), tr("decisions")});
  table_->verticalHeader()->hide();
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::SingleSelection);
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table_->horizontalHeader()->setStretchLastSection(true);
  show_->setToolTip(tr("Draw the picked run again: its lanes, TTL and Summary (exports then write it)"));
  compare_->setToolTip(tr("Draw the picked run's lanes under the latest run's, each judged by its own quota"));
  latest_->setToolTip(tr("Back to the latest run"));
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(show_);
  buttons->addWidget(compare_);
  buttons->addWidget(latest_);
  buttons->addStretch();
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  showing_->setWordWrap(true);
  layout->addWidget(showing_);
  layout->addWidget(table_, 1);
  layout->addLayout(buttons);
  connect(show_, &QPushButton::clicked, this, [this] { if (int n = selectedNumber()) emit showRequested(n); });
  connect(compare_, &QPushButton::clicked, this, [this] { if (int n = selectedNumber()) emit compareRequested(n); });
  connect(latest_, &QPushButton::clicked, this, &HistoryPanel::latestRequested);
  connect(table_, &QTableWidget::itemSelectionChanged, this, &HistoryPanel::updateButtons);
  connect(table_, &QTableWidget::cellDoubleClicked, this, [this](int row) { if (int n = numberAt(row)) emit showRequested(n); });
  updateButtons();
}

void HistoryPanel::setRuns(const RunHistory& history) {
  const int keep = selectedNumber();
  const auto& runs = history.runs();
  table_->setRowCount(static_cast<int>(runs.size()));
  int row = 0;
  for (auto it = runs.rbegin(); it != runs.rend(); ++it, ++row) {
    const PastRun& r = *it;
    const QString mark = r.result.cancelled ? tr(" (stopped)") : QString();
    table_->setItem(row, 0, cell(QStringLiteral("#%1").arg(r.number), r.number));
    table_->setItem(row, 1, cell(r.finished.toString(QStringLiteral("HH:mm:ss")), r.number));
    table_->setItem(row, 2, cell(r.title + mark, r.number));
    table_->setItem(row, 3, cell(r.outcomeText(), r.number));
    table_->setItem(row, 4, cell(QLocale().toString(static_cast<qlonglong>(r.decisions())), r.number));
    table_->item(row, 4)->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
  }
  latestNumber_ = history.latest() ? history.latest()->number : 0;
  if (keep) select(keep);
  updateButtons();
}

void HistoryPanel::setShowing(const QString& text, int number) {
  showing_->setText(text);
  shownNumber_ = number;
  updateButtons();
}

void HistoryPanel::setStormRunning(bool running) {
  running_ = running;
  updateButtons();
}

int HistoryPanel::numberAt(int row) const {
  const QTableWidgetItem* item = table_->item(row, 0);
  return item ? item->data(Qt::UserRole).toInt() : 0;
}

void HistoryPanel::select(int number) {
  for (int row = 0; row < table_->rowCount(); ++row)
    if (numberAt(row) == number) return table_->selectRow(row);
}

int HistoryPanel::selectedNumber() const {
  const auto rows = table_->selectionModel()->selectedRows();
  return rows.isEmpty() ? 0 : numberAt(rows.front().row());
}

void HistoryPanel::updateButtons() {
  const int picked = selectedNumber();
  show_->setEnabled(!running_ && picked != 0 && picked != shownNumber_);
  compare_->setEnabled(!running_ && picked != 0 && picked != latestNumber_);
  latest_->setEnabled(!running_ && latestNumber_ != 0 && shownNumber_ != latestNumber_);
}

}  // namespace rl::ui
