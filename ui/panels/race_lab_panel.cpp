#include "ui/panels/race_lab_panel.hpp"

#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QFormLayout>
#include <QHeaderView>
#include <QHBoxLayout>
#include <QLabel>
#include <QLegend>
#include <QLineSeries>
#include <QPushButton>
#include <QSpinBox>
#include <QTableWidget>
#include <QValueAxis>
#include <QVBoxLayout>
#include <algorithm>

#include "ui/charts/chart_parts.hpp"
#include "ui/charts/theme.hpp"

namespace rl::ui {

namespace {
const QStringList kVariantNames = {QStringLiteral("naive"), QStringLiteral("watch"), QStringLiteral("lua")};

QSpinBox* spin(int min, int max, int value, QWidget* parent) {
  auto* s = new QSpinBox(parent);
  s->setRange(min, max);
  s->setValue(value);
  return s;
}

QTableWidgetItem* cell(const QString& text) {
  auto* item = new QTableWidgetItem(text);
  item->setFlags(Qt::ItemIsEnabled);
  item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
  return item;
}
}  // namespace

QChartView* RaceLabPanel::buildChart() {
  auto* chart = new QChart;
  chart->setTitle(tr("Admitted per round vs the limit"));
  chart->setMargins(QMargins(2, 2, 2, 2));
  chart->legend()->setAlignment(Qt::AlignRight);
  chart->legend()->setMarkerShape(QLegend::MarkerShapeFromSeries);
  x_ = new QValueAxis;
  x_->setTitleText(tr("round"));
  x_->setLabelFormat(QStringLiteral("%d"));
  y_ = new QValueAxis;
  y_->setTitleText(tr("admitted"));
  chart->addAxis(x_, Qt::AlignBottom);
  chart->addAxis(y_, Qt::AlignLeft);
  for (int i = 0; i < kVariantNames.size(); ++i) {
    auto* s = new QLineSeries;
    s->setName(kVariantNames[i]);
    s->setPointsVisible(true);
    chart->addSeries(s);
    s->attachAxis(x_);
    s->attachAxis(y_);
    series_.append(s);
  }
  limit_ = new QLineSeries;
  limit_->setName(tr("limit"));
  chart->addSeries(limit_);
  limit_->attachAxis(x_);
  limit_->attachAxis(y_);
  auto* view = new QChartView(chart, this);
  view->setRenderHint(QPainter::Antialiasing);
  view->setMinimumHeight(180);
  return view;
}

void RaceLabPanel::styleSeries() {
  for (int i = 0; i < series_.size(); ++i) {
    QPen pen(Palette::lane(i == 0 ? 5 : i == 1 ? 2 : 1));
    // watch and lua both hold the limit: watch is drawn wider, under lua, so both stay visible.
    pen.setWidthF(i == 1 ? 5 : 2);
    series_[i]->setPen(pen);
    series_[i]->setMarkerSize(i == 1 ? 12 : 7);
  }
  QPen pen(Palette::limit());
  pen.setStyle(Qt::DashLine);
  pen.setWidthF(2);
  limit_->setPen(pen);
}

void RaceLabPanel::setTheme(Theme t) {
  view_->chart()->setTheme(chartTheme(t));  // resets the series' pens: set ours again
  styleSeries();
}

RaceLabPanel::RaceLabPanel(QWidget* parent) : QWidget(parent) {
  capacity_ = spin(1, 100000, 10, this);
  concurrency_ = spin(1, 256, 20, this);
  concurrency_->setToolTip(tr("connections released together each round, one request each"));
  algorithm_ = new QComboBox(this);
  algorithm_->addItem(QStringLiteral("token_bucket"));
  algorithm_->addItem(QStringLiteral("fixed_window"));
  rounds_ = spin(1, 1000, 20, this);
  think_ = spin(0, 100000, 1000, this);
  think_->setSuffix(tr(" us"));
  think_->setToolTip(tr("naive only: pause between reading and writing the counter (widens the race)"));
  run_ = new QPushButton(tr("Run race"), this);
  run_->setObjectName(QStringLiteral("runRace"));
  verdict_ = new QLabel(tr("naive reads, decides and writes back in separate round trips; watch retries "
                           "an optimistic transaction; lua decides atomically in one script."), this);
  verdict_->setWordWrap(true);
  auto* form = new QFormLayout;
  form->addRow(tr("Capacity"), capacity_);
  form->addRow(tr("Connections"), concurrency_);
  form->addRow(tr("Algorithm"), algorithm_);
  form->addRow(tr("Rounds"), rounds_);
  form->addRow(tr("Think time"), think_);
  form->addRow(run_);

  table_ = new QTableWidget(3, 5, this);
  table_->setHorizontalHeaderLabels({tr("variant"), tr("min"), tr("max"), tr("over limit"), tr("retries")});
  table_->setToolTip(tr("admitted per round (min, max), rounds that admitted more than the capacity, WATCH retries"));
  table_->verticalHeader()->hide();
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
  table_->setMinimumWidth(360);

  view_ = buildChart();
  styleSeries();

  auto* left = new QVBoxLayout;
  left->addLayout(form);
  left->addStretch(1);
  auto* middle = new QVBoxLayout;
  middle->addWidget(verdict_);
  middle->addWidget(table_, 1);
  auto* layout = new QHBoxLayout(this);
  layout->addLayout(left);
  layout->addLayout(middle, 2);
  layout->addWidget(view_, 3);
  connect(run_, &QPushButton::clicked, this, [this] { emit runRequested(request()); });
}

RaceRequest RaceLabPanel::request() const {
  RaceRequest r;
  r.spec.capacity = capacity_->value();
  r.spec.concurrency = concurrency_->value();
  r.spec.algorithm = parseAlgorithm(algorithm_->currentText().toStdString()).value_or(Algorithm::TokenBucket);
  r.spec.rounds = rounds_->value();
  r.spec.thinkTime = Micros{think_->value()};
  return r;
}

void RaceLabPanel::setRunning(bool running) {
  run_->setEnabled(!running);
  run_->setText(running ? tr("Racing...") : tr("Run race"));
  if (!running) return;
  for (QLineSeries* s : series_) s->clear();
  const int rounds = rounds_->value();
  limit_->replace({QPointF(0, capacity_->value()), QPointF(std::max(1, rounds - 1), capacity_->value())});
  x_->setRange(0, std::max(1, rounds - 1));
  x_->setTickCount(std::min(std::max(2, rounds), 11));
  yMax_ = capacity_->value() * 1.5;
  setNiceRange(y_, yMax_, 4);
}

QLineSeries* RaceLabPanel::seriesFor(const QString& variant) {
  const auto i = kVariantNames.indexOf(variant);
  return i >= 0 ? series_[i] : nullptr;
}

void RaceLabPanel::showRound(const QString& variant, int round, qint64 admitted) {
  if (QLineSeries* s = seriesFor(variant)) {
    QList<QPointF> points = s->points();
    points.append(QPointF(round, static_cast<double>(admitted)));
    s->replace(points);
  }
  yMax_ = std::max(yMax_, static_cast<double>(admitted) * 1.15);
  setNiceRange(y_, yMax_, 4);
}

void RaceLabPanel::showResult(const RaceResult& result) {
  setRunning(false);
  for (int row = 0; row < static_cast<int>(result.variants.size()) && row < 3; ++row) {
    const rl::RaceVariantResult& v = result.variants[static_cast<std::size_t>(row)];
    const QString name = QString::fromLatin1(raceVariantName(v.variant).data(), static_cast<qsizetype>(raceVariantName(v.variant).size()));
    const bool any = !v.admitted.empty();
    table_->setItem(row, 0, cell(name));
    table_->setItem(row, 1, cell(any ? QString::number(v.admittedMin) : QStringLiteral("-")));
    table_->setItem(row, 2, cell(any ? QString::number(v.admittedMax) : QStringLiteral("-")));
    table_->setItem(row, 3, cell(QString::number(v.overLimitRounds)));
    table_->setItem(row, 4, cell(QString::number(v.retries)));
    QList<QPointF> points;
    for (std::size_t r = 0; r < v.admitted.size(); ++r) points.append(QPointF(static_cast<double>(r), static_cast<double>(v.admitted[r])));
    if (QLineSeries* s = seriesFor(name)) s->replace(points);
  }
}

}  // namespace rl::ui
