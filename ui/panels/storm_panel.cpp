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
  s.resilience.onRedisError = policy_;
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
  policy_ = s.resilience.onRedisError;
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
