// StormPanel's form: the algorithm, quota, traffic and advanced boxes and the
// run controls, built once; storm_panel.cpp reads and sets them.

#include "ui/panels/storm_panel.hpp"

#include <QCheckBox>
#include <QDoubleSpinBox>
#include <QGridLayout>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QStyle>
#include <QToolButton>
#include <QVBoxLayout>
#include <cmath>

#include "http/nginx_front.hpp"
#include "ui/panels/config_quota_box.hpp"
#include "ui/panels/enum_combo.hpp"
#include "ui/panels/form_words.hpp"
#include "ui/panels/http_target_box.hpp"
#include "ui/panels/script_box.hpp"
#include "ui/panels/labeled_slider.hpp"
#include "ui/qt_text.hpp"

namespace rl::ui {

namespace {
constexpr std::array kBackends = {Backend::Memory, Backend::RedisLua, Backend::RedisNaive,
                                  Backend::RedisWatch, Backend::RedisScript, Backend::Http};
constexpr std::array kPatterns = {Pattern::Burst, Pattern::Constant, Pattern::Boundary,
                                  Pattern::Ramp, Pattern::Poisson};
constexpr std::array kClocks = {ClockMode::Virtual, ClockMode::Server, ClockMode::Client};
}  // namespace

void StormPanel::buildRunControls(QVBoxLayout* layout) {
  start_ = new QPushButton(tr("Start storm"), this);
  start_->setObjectName(QStringLiteral("startStorm"));
  start_->setToolTip(tr("Start or stop the storm (Space)"));
  progress_ = new QProgressBar(this);
  progress_->setRange(0, 1000);
  progress_->setValue(0);
  progressText_ = new QLabel(tr("idle"), this);
  progressText_->setWordWrap(true);  // a long line would widen the panel past its dock and clip it
  error_ = new QLabel(this);
  error_->setObjectName(QStringLiteral("stormError"));
  error_->setWordWrap(true);
  error_->setStyleSheet(QStringLiteral("QLabel { color: #d73a49; font-weight: bold; }"));
  error_->hide();
  serve_ = new QPushButton(tr("Serve over HTTP"), this);
  serve_->setObjectName(QStringLiteral("serveHttp"));
  serve_->setCheckable(true);
  serve_->setToolTip(tr("Run the first checked algorithm with this quota as HTTP limiter replicas on loopback "
                        "(curl, wrk); the lanes show the decisions made for the HTTP requests"));
  serveFront_ = new QComboBox(this);
  serveFront_->setObjectName(QStringLiteral("serveFront"));
  serveFront_->addItems({QStringLiteral("builtin"), QStringLiteral("nginx"), QStringLiteral("none")});
  serveFront_->setCurrentText(findNginx() ? QStringLiteral("nginx") : QStringLiteral("builtin"));
  serveFront_->setToolTip(tr("The front balancing the replicas: the builtin proxy, Debian's nginx (a child "
                             "process with a temp config) or none (hit the replicas directly)"));
  serveText_ = new QLabel(this);
  serveText_->setObjectName(QStringLiteral("serveText"));
  serveText_->setWordWrap(true);
  serveText_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  serveText_->hide();
  layout->addWidget(start_);
  auto* serveRow = new QHBoxLayout;
  serveRow->addWidget(serve_, 1);
  serveRow->addWidget(new QLabel(tr("front"), this));
  serveRow->addWidget(serveFront_);
  layout->addLayout(serveRow);
  layout->addWidget(serveText_);
  layout->addWidget(progress_);
  layout->addWidget(progressText_);
  layout->addWidget(error_);
}

QWidget* StormPanel::buildAlgorithms() {
  auto* box = new QGroupBox(tr("Backend and algorithms"), this);
  auto* grid = new QGridLayout(box);
  backend_ = makeCombo(kBackends, backendName, box);
  backend_->setObjectName(QStringLiteral("backend"));
  backend_->setToolTip(tr("memory: one store per replica (leaks across replicas); redis-lua: atomic "
                          "script; redis-naive: read then write (races); redis-watch: optimistic "
                          "transaction with retries"));
  backend_->setItemText(backend_->findData(static_cast<int>(Backend::RedisScript)), tr("Custom script (redis-script)"));
  backend_->setItemText(backend_->findData(static_cast<int>(Backend::Http)), tr("HTTP limiter (http)"));
  grid->addWidget(new QLabel(tr("Backend"), box), 0, 0);
  grid->addWidget(backend_, 0, 1, 1, 2);
  scriptBox_ = new ScriptBox(box);
  scriptBox_->setVisible(false);
  grid->addWidget(scriptBox_, 5, 0, 1, 3);
  httpBox_ = new HttpTargetBox(box);
  httpBox_->setVisible(false);
  connect(httpBox_, &HttpTargetBox::changed, this, &StormPanel::whatChanged);
  grid->addWidget(httpBox_, 6, 0, 1, 3);
  connect(backend_, &QComboBox::currentIndexChanged, this, [this] {
    scriptBox_->setVisible(comboValue<Backend>(backend_) == Backend::RedisScript);
    httpBox_->setVisible(comboValue<Backend>(backend_) == Backend::Http);
    emit whatChanged();
  });
  int i = 0;
  for (Algorithm a : kAllAlgorithms) {
    auto* check = new QCheckBox(qs(algorithmName(a)), box);
    check->setObjectName(qs(algorithmName(a)));
    check->setToolTip(qs(algorithmSummary(a)));
    algorithms_[a] = check;
    connect(check, &QCheckBox::toggled, this, &StormPanel::whatChanged);
    grid->addWidget(check, 1 + i / 2, i % 2 == 0 ? 0 : 1, 1, i % 2 == 0 ? 1 : 2);
    ++i;
  }
  return box;
}

QWidget* StormPanel::buildQuota() {
  auto* box = new QGroupBox(tr("Quota (tunable while running)"), this);
  auto* form = new QFormLayout(box);
  limit_ = new LabeledSlider(0, 1e9, 1, 10000, 0, box);
  limit_->setToolTip(tr("Window limit, or bucket capacity / burst"));
  window_ = new LabeledSlider(0, 31536000000.0, 10, 600000, 0, box);
  window_->setSuffix(tr(" ms"));
  refill_ = new LabeledSlider(0, 1e7, 0.1, 100000, 3, box);  // 3 decimals: nginx keeps thousandths
  refill_->setSuffix(tr(" /s"));
  refill_->setToolTip(tr("Tokens (or leaks) per second for the buckets and GCRA; 0 = limit per window"));
  limit_->spinBox()->setObjectName(QStringLiteral("limit"));
  window_->spinBox()->setObjectName(QStringLiteral("windowMs"));
  refill_->spinBox()->setObjectName(QStringLiteral("refill"));
  form->addRow(tr("Limit"), limit_);
  form->addRow(tr("Window"), window_);
  form->addRow(tr("Refill"), refill_);
  config_ = new ConfigQuotaBox(box);  // the team's config: the fields and the explanation follow it
  form->addRow(config_);
  connect(config_, &ConfigQuotaBox::quotaRead, this, [this](Algorithm a, const Quota& q, const QString& text) {
    setAlgorithmAndQuota(a, q);
    const double held = quota().refillPerSecond.value_or(0);
    const bool rounded = q.refillPerSecond && held != *q.refillPerSecond;
    setExplanation(text + (rounded ? tr("<br><i>The form rounds the refill to %1/s.</i>").arg(held) : QString()));
  });
  return box;
}

QWidget* StormPanel::buildTraffic() {
  auto* box = new QGroupBox(tr("Traffic"), this);
  auto* form = new QFormLayout(box);
  pattern_ = makeCombo(kPatterns, patternName, box);
  rate_ = new QDoubleSpinBox(box);
  rate_->setRange(0, 1e7);
  rate_->setDecimals(1);
  rate_->setSuffix(tr(" req/s"));
  rate_->setToolTip(tr("Offered rate; 0 = as fast as possible"));
  requests_ = makeSpin(0, 100'000'000, box);
  requests_->setToolTip(tr("Total requests; 0 = duration x rate"));
  duration_ = makeSpin(0, 86'400'000, box);
  duration_->setSuffix(tr(" ms"));
  concurrency_ = makeSpin(0, 1024, box);
  concurrency_->setObjectName(QStringLiteral("concurrency"));
  replicas_ = makeSpin(0, 64, box);
  clients_ = makeSpin(0, 1'000'000, box);
  clock_ = makeCombo(kClocks, clockModeName, box);
  clock_->setToolTip(tr("virtual: scheduled time, deterministic; server: Redis TIME; client: each "
                        "replica's own (skewed) clock"));
  skew_ = new QLineEdit(box);
  skew_->setObjectName(QStringLiteral("skew"));
  skew_->setPlaceholderText(tr("per-replica ms, e.g. 0,400,-400"));
  form->addRow(tr("Pattern"), pattern_);
  form->addRow(tr("Rate"), rate_);
  form->addRow(tr("Requests"), requests_);
  form->addRow(tr("Concurrency"), concurrency_);
  form->addRow(buildAdvanced(box));
  return box;
}

// Duration, replicas, clients, clock and skew: folded by default, so the form
// fits a 1366x768 screen; presets that need them unfold them.
QWidget* StormPanel::buildAdvanced(QWidget* box) {
  auto* wrap = new QWidget(box);
  auto* v = new QVBoxLayout(wrap);
  v->setContentsMargins(0, 0, 0, 0);
  auto* toggle = new QToolButton(wrap);
  toggle->setObjectName(QStringLiteral("advancedToggle"));
  toggle->setText(tr("Advanced: duration, replicas, clients, clock"));
  toggle->setCheckable(true);
  toggle->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
  toggle->setArrowType(Qt::RightArrow);
  toggle->setAutoRaise(true);
  auto* fields = new QWidget(wrap);
  fields->setObjectName(QStringLiteral("advancedFields"));
  auto* form = new QFormLayout(fields);
  form->setContentsMargins(0, 0, 0, 0);
  form->addRow(tr("Duration"), duration_);
  form->addRow(tr("Replicas"), replicas_);
  form->addRow(tr("Clients"), clients_);
  form->addRow(tr("Clock"), clock_);
  form->addRow(tr("Skew"), skew_);
  fields->hide();
  connect(toggle, &QToolButton::toggled, this, [toggle, fields](bool on) {
    fields->setVisible(on);
    toggle->setArrowType(on ? Qt::DownArrow : Qt::RightArrow);
  });
  advanced_ = toggle;
  v->addWidget(toggle);
  v->addWidget(fields);
  return wrap;
}

}  // namespace rl::ui
