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

StormPanel::StormPanel(QWidget* parent) : QWidget(parent) {
  // The form scrolls; Start, the progress line and the error stay below it, always in view,
  // however long a preset's explanation is.
  auto* form = new QWidget(this);
  auto* layout = new QVBoxLayout(form);
  layout->setContentsMargins(0, 0, 0, 0);
  explanation_ = new QLabel(form);
  explanation_->setWordWrap(true);
  explanation_->setObjectName(QStringLiteral("presetExplanation"));
  explanation_->setFrameShape(QFrame::StyledPanel);
  explanation_->setMargin(6);
  explanation_->hide();
  layout->addWidget(explanation_);
  traceText_ = new QLabel(form);
  traceText_->setObjectName(QStringLiteral("stormTrace"));
  traceText_->setWordWrap(true);
  clearTrace_ = new QPushButton(tr("Use the pattern instead of the trace"), form);
  traceText_->hide();
  clearTrace_->hide();
  connect(clearTrace_, &QPushButton::clicked, this, [this] { setTrace(nullptr, {}); });
  layout->addWidget(traceText_);
  layout->addWidget(clearTrace_);
  layout->addWidget(buildAlgorithms());
  layout->addWidget(buildQuota());
  layout->addWidget(buildTraffic());
  layout->addStretch(1);
  auto* scroll = new QScrollArea(this);
  scroll->setObjectName(QStringLiteral("stormFormScroll"));
  scroll->setWidget(form);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  scroll->setMinimumWidth(form->minimumSizeHint().width() + style()->pixelMetric(QStyle::PM_ScrollBarExtent) + 4);
  auto* outer = new QVBoxLayout(this);
  outer->addWidget(scroll, 1);
  buildRunControls(outer);

  connect(start_, &QPushButton::clicked, this, &StormPanel::onStartClicked);
  connect(serve_, &QPushButton::clicked, this, [this](bool on) {
    if (!on) return emit serveStopRequested();
    serve_->setChecked(false);  // checked once the replicas answer (setServing)
    auto s = spec();
    if (!s) return showError(qs(s.error().message));
    showError({});
    emit serveRequested(*s);
  });
  for (LabeledSlider* s : {limit_, window_, refill_})
    connect(s, &LabeledSlider::valueChanged, this, &StormPanel::onQuotaEdited);
  connect(backend_, &QComboBox::activated, this, [this] { backendChosen_ = true; });
  resetToFirstRun();
}

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

void StormPanel::resetToFirstRun() {
  StormSpec first;  // a sensible first run: 1000 requests as fast as possible
  first.requests = 1000;
  first.concurrency = 4;
  setSpec(first);
  backendChosen_ = false;
  setExplanation({});
}

void StormPanel::setDefaultBackend(Backend b) {
  if (!backendChosen_ && !running_) setCombo(backend_, b);
}

Backend StormPanel::backend() const { return comboValue<Backend>(backend_); }

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

Quota StormPanel::quota() const {
  Quota q;
  q.limit = static_cast<std::int64_t>(std::llround(limit_->value()));
  q.window = Micros{static_cast<std::int64_t>(std::llround(window_->value())) * 1000};
  if (refill_->value() > 0) q.refillPerSecond = refill_->value();
  return q;
}

Result<std::vector<Micros>> StormPanel::parseSkew() const {
  std::vector<Micros> skew;
  const QString text = skew_->text().trimmed();
  if (text.isEmpty()) return skew;
  for (const QString& part : text.split(QLatin1Char(','))) {
    bool ok = false;
    const qlonglong v = part.trimmed().toLongLong(&ok);
    if (!ok)
      return invalidArgument("skew: '" + part.trimmed().toStdString() +
                             "' is not a whole number of milliseconds; allowed a comma-separated "
                             "list like 0,400,-400");
    skew.push_back(Micros{v * 1000});
  }
  return skew;
}

Result<StormSpec> StormPanel::spec() const {
  StormSpec s = loaded_;
  s.algorithms.clear();
  for (Algorithm a : kAllAlgorithms)
    if (algorithms_.at(a)->isChecked()) s.algorithms.push_back(a);
  if (s.algorithms.empty())
    return invalidArgument("algorithms: none checked; check at least one of the six algorithms");
  s.backend = comboValue<Backend>(backend_);
  s.quota = quota();
  s.pattern = comboValue<Pattern>(pattern_);
  s.rate = rate_->value();
  s.requests = requests_->value();
  s.duration = Micros{static_cast<std::int64_t>(duration_->value()) * 1000};
  s.concurrency = concurrency_->value();
  s.replicas = replicas_->value();
  s.clients = clients_->value();
  s.clock = comboValue<ClockMode>(clock_);
  auto skew = parseSkew();
  if (!skew) return skew.error();
  s.skew = *skew;
  s.onRedisError = policy_;
  s.redisUrl = redisUrl_.toStdString();
  scriptBox_->applyTo(s);
  if (s.backend == Backend::Http)
    if (auto ok = httpBox_->applyTo(s); !ok) return ok.error();
  if (!isRedisBackend(s.backend)) s.comparePolicies.clear();  // the policies decide Redis errors only
  if (auto ok = validate(s); !ok) return Error{ok.error().code, inFormWords(ok.error().message).toStdString()};
  return s;
}

void StormPanel::setSpec(const StormSpec& s) {
  loaded_ = s;
  setCombo(backend_, s.backend);
  scriptBox_->show(s);
  scriptBox_->setVisible(s.backend == Backend::RedisScript);
  httpBox_->show(s);
  httpBox_->setVisible(s.backend == Backend::Http);
  for (auto& [a, check] : algorithms_)
    check->setChecked(std::find(s.algorithms.begin(), s.algorithms.end(), a) != s.algorithms.end());
  limit_->setValue(static_cast<double>(s.quota.limit));
  window_->setValue(static_cast<double>(s.quota.window.count()) / 1000.0);
  refill_->setValue(s.quota.refillPerSecond.value_or(0));
  setCombo(pattern_, s.pattern);
  rate_->setValue(s.rate);
  requests_->setValue(static_cast<int>(std::min<std::int64_t>(s.requests, requests_->maximum())));
  duration_->setValue(static_cast<int>(s.duration.count() / 1000));
  concurrency_->setValue(s.concurrency);
  replicas_->setValue(s.replicas);
  clients_->setValue(s.clients);
  setCombo(clock_, s.clock);
  QStringList skew;
  for (Micros m : s.skew) skew << QString::number(m.count() / 1000);
  skew_->setText(skew.join(QLatin1Char(',')));
  policy_ = s.onRedisError;
  backendChosen_ = true;
  // Unfold the advanced fields when the spec uses them.
  const bool advanced = s.duration.count() > 0 || s.replicas != 1 || s.clients != 1 || s.clock != ClockMode::Virtual || !s.skew.empty();
  if (advanced) advanced_->setChecked(true);
  showError({});
  setTrace(s.traceData, s.trace);
  if (!s.trace.path.empty() && !s.traceData)  // a scenario names a trace file: reading it is the Tune panel's job
    showError(tr("The scenario's trace %1 is not replayed here: open it with File > Open trace, then click a quota")
                  .arg(qs(s.trace.path)));
}

void StormPanel::setTrace(const SharedTrace& trace, const TraceOptions& options) {
  loaded_.traceData = trace;
  loaded_.trace = trace ? options : TraceOptions{};
  loaded_.speed = 0;
  traceText_->setVisible(trace != nullptr);
  clearTrace_->setVisible(trace != nullptr);
  if (trace)
    traceText_->setText(tr("<b>Traffic: trace</b> %1 (the pattern, rate, requests and clients below are not used; "
                           "virtual clock replays it exactly, server/client clocks in real time)")
                            .arg(qs(trace->summary())));
  for (QWidget* w : std::initializer_list<QWidget*>{pattern_, rate_, requests_, duration_, clients_})
    w->setEnabled(!trace && !running_);
}

void StormPanel::setClock(ClockMode clock) { setCombo(clock_, clock); }

void StormPanel::setAlgorithmAndQuota(Algorithm algorithm, const Quota& q) {
  for (auto& [a, check] : algorithms_) check->setChecked(a == algorithm);
  limit_->setValue(static_cast<double>(q.limit));
  window_->setValue(static_cast<double>(q.window.count()) / 1000.0);
  refill_->setValue(q.refillPerSecond.value_or(0));
}

void StormPanel::onStartClicked() {
  if (running_) {
    emit stopRequested();
    return;
  }
  auto s = spec();
  if (!s) {
    showError(qs(s.error().message));
    return;
  }
  showError({});
  emit startRequested(*s);
}

void StormPanel::onQuotaEdited() {
  if (!running_) return;
  const Quota q = quota();
  for (Algorithm a : kAllAlgorithms) {
    if (!algorithms_.at(a)->isChecked()) continue;
    if (auto ok = q.validate(a); !ok) {
      showError(tr("Not applied: %1: %2").arg(qs(algorithmName(a)), qs(ok.error().message)));
      return;
    }
  }
  showError({});
  emit quotaTuned(q);
}

void StormPanel::setRunning(bool running) {
  running_ = running;
  start_->setText(running ? tr("Stop storm") : tr("Start storm"));
  serve_->setEnabled(!running);
  serveFront_->setEnabled(!running && !serve_->isChecked());
  for (QWidget* w : std::initializer_list<QWidget*>{backend_, pattern_, rate_, requests_, duration_, concurrency_,
                                                    replicas_, clients_, clock_, skew_, scriptBox_, httpBox_, config_})
    w->setEnabled(!running);
  if (loaded_.traceData)
    for (QWidget* w : std::initializer_list<QWidget*>{pattern_, rate_, requests_, duration_, clients_}) w->setEnabled(false);
  for (auto& [a, check] : algorithms_) check->setEnabled(!running);
  if (running) progress_->setValue(0);
}

QString StormPanel::serveFront() const { return serveFront_->currentText(); }

void StormPanel::setServing(bool serving, const QString& text) {
  serve_->setChecked(serving);
  serve_->setText(serving ? tr("Stop serving") : tr("Serve over HTTP"));
  start_->setEnabled(!serving);
  serveText_->setText(text);
  serveText_->setVisible(serving && !text.isEmpty());
}

void StormPanel::setProgress(const rl::StormProgress& p) {
  const double fraction = p.planned > 0 ? static_cast<double>(p.sent + p.dropped) / static_cast<double>(p.planned) : 0;
  progress_->setValue(static_cast<int>(std::clamp(fraction, 0.0, 1.0) * 1000));
  const double remainingS = p.finished ? 0.0 : static_cast<double>(p.remaining.count()) / 1e6;
  progressText_->setText(tr("elapsed %1 s, remaining %2 s, %3 of %4 sent, late %5, dropped %6, errors %7")
                             .arg(static_cast<double>(p.elapsed.count()) / 1e6, 0, 'f', 1)
                             .arg(remainingS, 0, 'f', 1)
                             .arg(p.sent)
                             .arg(p.planned)
                             .arg(p.late)
                             .arg(p.dropped)
                             .arg(p.errors));
}

void StormPanel::showError(const QString& message) {
  error_->setText(message);
  error_->setVisible(!message.isEmpty());
}

QString StormPanel::errorText() const { return error_->isHidden() ? QString() : error_->text(); }

void StormPanel::setExplanation(const QString& text) {
  explanation_->setText(text);
  explanation_->setVisible(!text.isEmpty());
}

}  // namespace rl::ui
