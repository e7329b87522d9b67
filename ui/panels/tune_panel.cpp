#include "ui/panels/tune_panel.hpp"

#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGuiApplication>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMimeData>
#include <QProgressBar>
#include <QResizeEvent>
#include <QPushButton>
#include <QSplitter>
#include <QToolButton>
#include <QVBoxLayout>

#include "report/html_report.hpp"
#include "storm/storm_settings.hpp"
#include "tune/tune_document.hpp"
#include "ui/charts/peak_distribution_chart.hpp"
#include "ui/charts/tune_heatmap.hpp"
#include "ui/panels/save_path.hpp"
#include "ui/qt_text.hpp"
#include "ui/workers/worker_controller.hpp"

namespace rl::ui {

namespace {

QLineEdit* edit(const QString& text, const QString& name, const QString& tip, QWidget* parent) {
  auto* e = new QLineEdit(text, parent);
  e->setObjectName(name);
  e->setToolTip(tip);
  e->setCursorPosition(0);  // a narrow field shows the start of its list, not the end
  return e;
}

QString windowText(Micros w) { return qs(windowWords(w)); }
}  // namespace

TunePanel::TunePanel(WorkerController& workers, QWidget* parent) : QWidget(parent), worker_(new TuneWorker) {
  qRegisterMetaType<std::shared_ptr<const TraceSummary>>();
  qRegisterMetaType<std::shared_ptr<const TuneResult>>();
  qRegisterMetaType<CutSummary>();
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(buildRecommendationRow());  // at the top: the answer is never below the fold
  layout->addWidget(buildForm());
  layout->addWidget(buildCharts(), 1);
  connect(worker_, &TuneWorker::traceLoaded, this, &TunePanel::onTraceLoaded);
  connect(worker_, &TuneWorker::swept, this, &TunePanel::onSwept);
  connect(worker_, &TuneWorker::progressed, this, [this](int done, int total) {
    progress_->setRange(0, std::max(total, 1));
    progress_->setValue(done);
  });
  connect(worker_, &TuneWorker::failed, this, [this](const QString& m) {
    sweeping_ = false;
    sweep_->setEnabled(trace_ != nullptr);
    cancel_->setEnabled(false);
    showStatus(m, true);
  });
  connect(worker_, &TuneWorker::cutCounted, this, [this](const CutSummary& c) {
    cutInFlight_ = false;
    distribution_->setCaption(tr("%1 clients and %2 requests would be cut by %3 req per %4")
                                  .arg(c.clients)
                                  .arg(c.requests)
                                  .arg(c.limit)
                                  .arg(windowText(Micros{c.windowUs})));
    if (std::exchange(cutPending_, false)) requestCut();
  });
  workers.adopt(worker_, QStringLiteral("ratelab-tune"), [w = worker_] { w->cancel(); });
}

QWidget* TunePanel::buildForm() {
  auto* box = new QWidget(this);
  auto* grid = new QGridLayout(box);
  grid->setContentsMargins(0, 0, 0, 0);
  open_ = new QPushButton(tr("Open trace..."), box);
  open_->setObjectName(QStringLiteral("openTrace"));
  traceText_ = new QLabel(tr("No trace: open an access log (combined, common, nginx log_format, JSONL, CSV; .gz too) "
                             "or drop one on the window"), box);
  traceText_->setWordWrap(true);
  format_ = edit(QStringLiteral("auto"), QStringLiteral("traceFormat"), tr("combined | common | nginx:'<log_format>' | jsonl | csv | auto"), box);
  key_ = edit(QStringLiteral("addr"), QStringLiteral("traceKey"), tr("addr | header:NAME (e.g. header:x-api-key) | field:NAME"), box);
  filter_ = edit({}, QStringLiteral("traceFilter"), tr("path=/exact, path=/prefix* or an RE2 regex on the request line"), box);
  burst_ = new QCheckBox(tr("one-second times as bursts"), box);
  burst_->setToolTip(tr("Keep $time_local times as same-instant bursts (worst case); by default requests logged "
                        "in one second are spread evenly within it"));
  algorithms_ = edit(QStringLiteral("token_bucket,gcra,sliding_log"), QStringLiteral("tuneAlgorithms"),
                     tr("algorithms to sweep, comma-separated, or all"), box);
  limits_ = edit(QStringLiteral("5:150:5"), QStringLiteral("tuneLimits"), tr("limits (burst / capacity): start:stop:step or a,b,c"), box);
  refill_ = edit({}, QStringLiteral("tuneRefill"), tr("rate algorithms: refill rates per second (start:stop:step or a,b,c); empty = limit per window"), box);
  windows_ = edit(QStringLiteral("1000,5000,10000,60000"), QStringLiteral("tuneWindows"), tr("windows in ms (start:stop:step or a,b,c)"), box);
  target_ = edit(QStringLiteral("0.1%"), QStringLiteral("tuneTarget"), tr("share of legitimate requests that may be denied"), box);
  legit_ = edit(QStringLiteral("p99"), QStringLiteral("tuneLegit"), tr("legitimate clients: all, or pNN (peak in 1 s at or below the NNth percentile)"), box);
  sweep_ = new QPushButton(tr("Sweep"), box);
  sweep_->setObjectName(QStringLiteral("tuneSweep"));
  sweep_->setEnabled(false);
  cancel_ = new QPushButton(tr("Cancel"), box);
  cancel_->setEnabled(false);
  progress_ = new QProgressBar(box);
  status_ = new QLabel(box);
  status_->setWordWrap(true);
  form_ = grid;
  const auto label = [box](const QString& text) { return new QLabel(text, box); };
  formSlots_ = {{label(tr("Format")), format_},      {label(tr("Key")), key_},         {label(tr("Filter")), filter_},
                {burst_, nullptr},                    {label(tr("Algorithms")), algorithms_}, {label(tr("Limits")), limits_},
                {label(tr("Refill /s")), refill_},   {label(tr("Windows ms")), windows_}, {label(tr("Target")), target_},
                {label(tr("Legit")), legit_},         {sweep_, cancel_},                {progress_, nullptr}};
  layOutForm(4);
  connect(open_, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open trace"), QString(),
                                                      tr("Logs (*.log *.gz *.jsonl *.csv *.txt);;All files (*)"));
    if (!path.isEmpty()) openTrace(path);
  });
  connect(sweep_, &QPushButton::clicked, this, [this] { startSweep(); });
  connect(cancel_, &QPushButton::clicked, this, [this] { worker_->cancel(); });
  return box;
}

QHBoxLayout* TunePanel::buildRecommendationRow() {
  recommendation_ = new QLabel(tr("The recommendation appears here after a sweep."), this);
  recommendation_->setWordWrap(true);
  recommendation_->setObjectName(QStringLiteral("tuneRecommendation"));
  copyAs_ = new QToolButton(this);  // the recommendation as the team's config, on the clipboard
  copyAs_->setObjectName(QStringLiteral("tuneCopyAs"));
  copyAs_->setText(tr("Copy as..."));
  copyAs_->setPopupMode(QToolButton::InstantPopup);
  copyAs_->setEnabled(false);
  auto* menu = new QMenu(copyAs_);
  for (const Dialect& d : allDialects())
    menu->addAction(qs(d.name), this, [this, &d] { copyRecommendation(d); })->setToolTip(qs(d.summary));
  copyAs_->setMenu(menu);
  report_ = new QPushButton(tr("Export report..."), this);
  report_->setObjectName(QStringLiteral("tuneReport"));
  report_->setToolTip(tr("The sweep as one HTML file to share: the recommendation, the heatmaps and the tune document, "
                         "as ratelab-cli tune --report writes it"));
  report_->setEnabled(false);
  connect(report_, &QPushButton::clicked, this, [this] {
    const QString path = askReportPath(this, tr("Export tune report"), "tune");
    if (path.isEmpty()) return;
    const Result<void> ok = exportReport(path);  // a sweep's page: the grid's cells, written at once
    showStatus(ok ? tr("Export report: %1").arg(path) : qs(ok.error().message), !ok);
  });
  realTime_ = new QCheckBox(tr("replay in real time"), this);
  realTime_->setObjectName(QStringLiteral("tuneRealTime"));
  realTime_->setToolTip(tr("Unchecked, a cell's replay runs on the virtual clock: exact (the decisions the sweep "
                           "counted) and done in moments. Checked, it runs on the storm form's clock, as long as the trace."));
  auto* actions = new QVBoxLayout;
  actions->addWidget(copyAs_);
  actions->addWidget(report_);
  actions->addWidget(realTime_);
  actions->addStretch(1);
  auto* row = new QHBoxLayout;
  row->addWidget(recommendation_, 1);
  row->addLayout(actions);
  return row;
}

Result<void> TunePanel::exportReport(const QString& path) const {
  if (!result_ || !summary_) return invalidArgument("No sweep has finished yet: open a trace and Sweep first");
  const ReportHeader header{"Tune: a quota for this traffic", "the RateLab window, Tune panel", "", "", ""};
  const Json doc = tuneDocument(*summary_->trace, lastSpec_, *result_, summary_->readTime);
  return writeReport(path.toStdString(), tuneReportHtml(summary_->trace->summary(), lastSpec_, *result_, doc, header));
}

bool TunePanel::replayInRealTime() const { return realTime_->isChecked(); }

QWidget* TunePanel::buildCharts() {
  auto* split = new QSplitter(Qt::Horizontal, this);
  auto* left = new QWidget(split);
  auto* l = new QVBoxLayout(left);
  peakWindow_ = new QComboBox(left);
  for (auto s : {1, 10, 60, 3600}) peakWindow_->addItem(windowText(Micros{s * 1'000'000LL}));
  distribution_ = new PeakDistributionChart(left);
  l->addWidget(peakWindow_);
  l->addWidget(distribution_, 1);
  auto* right = new QWidget(split);
  auto* r = new QVBoxLayout(right);
  shown_ = new QComboBox(right);
  heatmap_ = new TuneHeatmap(right);
  r->addWidget(shown_);
  r->addWidget(heatmap_, 1);
  connect(peakWindow_, &QComboBox::currentIndexChanged, this, [this] { showDistribution(); });
  connect(distribution_, &PeakDistributionChart::limitChanged, this, [this] { requestCut(); });
  connect(shown_, &QComboBox::currentIndexChanged, this, [this] { showHeatmap(); });
  connect(heatmap_, &TuneHeatmap::cellClicked, this, &TunePanel::replayPoint);
  return split;
}

QString TunePanel::statusText() const { return status_->text(); }

void TunePanel::showStatus(const QString& text, bool error) {
  status_->setStyleSheet(error ? QStringLiteral("QLabel { color: #d73a49; font-weight: bold; }") : QString());
  status_->setText(text);
}

Result<TraceOptions> TunePanel::traceOptions(const QString& path) const {
  StormSpec s;  // the storm settings table parses trace options for the CLI, scenarios and this form
  s.trace.path = path.toStdString();
  for (auto [key, text] : std::initializer_list<std::pair<const char*, QString>>{
           {"trace_format", format_->text().trimmed()}, {"trace_key", key_->text().trimmed()}}) {
    if (auto ok = applyStormSetting(s, key, text.toStdString(), key); !ok) return ok.error();
  }
  s.trace.filter = filter_->text().trimmed().toStdString();
  s.trace.burst = burst_->isChecked();
  return s.trace;
}

void TunePanel::openTrace(const QString& path) {
  auto o = traceOptions(path);
  if (!o) return showStatus(qs(o.error().message), true);
  options_ = *o;
  sweep_->setEnabled(false);
  showStatus(tr("Reading %1...").arg(QFileInfo(path).fileName()));
  QMetaObject::invokeMethod(worker_, [w = worker_, opts = *o] { w->open(opts); }, Qt::QueuedConnection);
}

void TunePanel::onTraceLoaded(const std::shared_ptr<const TraceSummary>& summary) {
  summary_ = summary;
  trace_ = summary->trace;
  result_.reset();
  report_->setEnabled(false);
  heatmap_->setResult(nullptr, Algorithm::TokenBucket, 0.001);
  traceText_->setText(qs(trace_->path + ": " + trace_->summary()));
  sweep_->setEnabled(true);
  showStatus(tr("Trace read. Choose a grid and Sweep."));
  showDistribution();
  emit traceOpened();
}

void TunePanel::showDistribution() {
  if (!summary_) return;
  const auto& w = summary_->peaks[static_cast<std::size_t>(std::max(peakWindow_->currentIndex(), 0))];
  distribution_->setPeaks(w.peaks, windowText(w.window));
  distribution_->setLimit(std::max<std::int64_t>(1, w.percentiles[2].second));  // start at p99
  requestCut();
}

void TunePanel::requestCut() {
  if (!summary_) return;
  if (cutInFlight_) {
    cutPending_ = true;
    return;
  }
  cutInFlight_ = true;
  const qint64 windowUs = summary_->peaks[static_cast<std::size_t>(std::max(peakWindow_->currentIndex(), 0))].window.count();
  QMetaObject::invokeMethod(worker_, [w = worker_, l = distribution_->limit(), windowUs] { w->countCut(l, windowUs); },
                            Qt::QueuedConnection);
}

Result<TuneSpec> TunePanel::tuneSpec() const {
  TuneSpec spec;
  StormSpec s;
  if (auto ok = applyStormSetting(s, "algorithm", algorithms_->text().trimmed().toStdString(), "Algorithms"); !ok)
    return ok.error();
  spec.algorithms = s.algorithms;
  auto limits = parseIntAxis(limits_->text().trimmed().toStdString(), "Limits");
  if (!limits) return limits.error();
  spec.grid.limits = *limits;
  if (!refill_->text().trimmed().isEmpty()) {
    auto r = parseRateAxis(refill_->text().trimmed().toStdString(), "Refill");
    if (!r) return r.error();
    spec.grid.refillRates = *r;
  }
  if (!windows_->text().trimmed().isEmpty()) {
    auto w = parseIntAxis(windows_->text().trimmed().toStdString(), "Windows");
    if (!w) return w.error();
    for (auto ms : *w) spec.grid.windows.push_back(Micros{ms * 1000});
  }
  auto target = parseTargetDenied(target_->text().trimmed().toStdString());
  if (!target) return target.error();
  spec.targetDenied = *target;
  auto legit = parseLegit(legit_->text().trimmed().toStdString());
  if (!legit) return legit.error();
  spec.legit = *legit;
  for (Algorithm a : spec.algorithms)
    if (auto q = tuneGridQuotas(a, spec.grid); !q) return q.error();
  return spec;
}

bool TunePanel::startSweep() {
  if (sweeping_ || !trace_) return false;
  auto spec = tuneSpec();
  if (!spec) {
    showStatus(qs(spec.error().message), true);
    return false;
  }
  lastSpec_ = *spec;
  sweeping_ = true;
  sweep_->setEnabled(false);
  cancel_->setEnabled(true);
  progress_->setValue(0);
  showStatus(tr("Sweeping..."));
  QMetaObject::invokeMethod(worker_, [w = worker_, s = *spec] { w->sweep(s); }, Qt::QueuedConnection);
  return true;
}

void TunePanel::onSwept(const std::shared_ptr<const TuneResult>& result) {
  sweeping_ = false;
  result_ = result;
  report_->setEnabled(true);
  sweep_->setEnabled(true);
  cancel_->setEnabled(false);
  progress_->setRange(0, std::max<int>(static_cast<int>(result->points.size()), 1));
  progress_->setValue(static_cast<int>(std::count_if(result->points.begin(), result->points.end(), [](auto& p) { return p.computed; })));
  const double secs = static_cast<double>(result->elapsed.count()) / 1e6;
  showStatus(tr("%1 points, %2 decisions in %3 s%4. Click a cell to replay the trace with that quota.")
                 .arg(result->points.size())
                 .arg(result->decisions)
                 .arg(secs, 0, 'f', 2)
                 .arg(result->cancelled ? tr(" (cancelled: computed cells only)") : QString()));
  const QSignalBlocker block(shown_);
  shown_->clear();
  for (Algorithm a : lastSpec_.algorithms) shown_->addItem(qs(algorithmName(a)), static_cast<int>(a));
  showHeatmap();
  emit sweepFinished();
}

void TunePanel::showHeatmap() {
  if (!result_ || shown_->count() == 0) return;
  const auto a = static_cast<Algorithm>(shown_->currentData().toInt());
  heatmap_->setResult(result_, a, lastSpec_.targetDenied);
  copyAs_->setEnabled(heatmap_->recommended().has_value());
  if (auto best = heatmap_->recommended()) {
    const TunePoint& p = result_->points[*best];
    recommendation_->setText(tr("<b>Recommended for %1: %2</b>: %3% of legitimate requests denied (%4 of %5), "
                                "%6 clients ever denied, at most %7 admitted to one client in %8.")
                                 .arg(qs(algorithmName(a)), TuneHeatmap::quotaWords(p.quota))
                                 .arg(100.0 * p.legitDeniedShare(), 0, 'f', 4)
                                 .arg(p.outcome.legitDenied)
                                 .arg(p.outcome.legitOffered)
                                 .arg(p.outcome.clientsDenied)
                                 .arg(p.outcome.worstAdmitted)
                                 .arg(windowText(lastSpec_.peakWindow)));
  } else {
    recommendation_->setText(tr("No quota of the grid meets the target for %1: widen the limits.").arg(qs(algorithmName(a))));
  }
}

void TunePanel::replayPoint(std::size_t i) {
  if (!result_ || !trace_) return;
  const TunePoint& p = result_->points[i];
  showStatus(tr("Replaying the trace with %1 (%2) in the storm lanes").arg(TuneHeatmap::quotaWords(p.quota), qs(algorithmName(p.algorithm))));
  emit replayRequested(trace_, options_, p.algorithm, p.quota);
}

void TunePanel::copyRecommendation(const Dialect& dialect) {
  const auto best = heatmap_->recommended();
  if (!result_ || !best) return;
  const TunePoint& p = result_->points[*best];
  const Emitted e = dialect.emitConfig(p.algorithm, p.quota);
  QGuiApplication::clipboard()->setText(qs(e.text));
  QStringList differs;
  for (const std::string& d : e.differences) differs << qs(d);
  showStatus(tr("Copied %1 (%2) as %3 config%4").arg(TuneHeatmap::quotaWords(p.quota), qs(algorithmName(p.algorithm)),
                                                    qs(dialect.name), differs.isEmpty() ? QString() : tr("; differs: ") + differs.join("; ")));
}

bool TunePanel::replayRecommended() {
  const auto best = heatmap_->recommended();
  if (best) replayPoint(*best);
  return best.has_value();
}

void TunePanel::acceptDropsOn(QWidget* window) {
  window->setAcceptDrops(true);
  window->installEventFilter(this);
}

void TunePanel::layOutForm(int slotsPerRow) {
  // Each slot is two grid columns: a label and its field, one wide widget, or two buttons.
  formSlotsPerRow_ = slotsPerRow;
  for (QWidget* w : {static_cast<QWidget*>(open_), static_cast<QWidget*>(traceText_), static_cast<QWidget*>(status_)})
    form_->removeWidget(w);
  for (const auto& [a, b] : formSlots_) {
    form_->removeWidget(a);
    if (b) form_->removeWidget(b);
  }
  const int columns = 2 * slotsPerRow;
  form_->addWidget(open_, 0, 0, 1, 2);
  form_->addWidget(traceText_, 0, 2, 1, columns - 2);
  int k = 0;
  for (const auto& [a, b] : formSlots_) {
    const int row = 1 + k / slotsPerRow, col = 2 * (k % slotsPerRow);
    if (b) {
      form_->addWidget(a, row, col);
      form_->addWidget(b, row, col + 1);
    } else {
      form_->addWidget(a, row, col, 1, 2);
    }
    ++k;
  }
  form_->addWidget(status_, 1 + (k + slotsPerRow - 1) / slotsPerRow, 0, 1, columns);
}

void TunePanel::resizeEvent(QResizeEvent* event) {
  // Narrow (a 1024 px window's dock), two slots a row, so every field keeps enough width to read its list.
  const int wanted = event->size().width() >= kWideForm ? 4 : 2;
  if (wanted != formSlotsPerRow_) layOutForm(wanted);
  QWidget::resizeEvent(event);
}

bool TunePanel::eventFilter(QObject* watched, QEvent* event) {
  if (event->type() == QEvent::DragEnter) {
    auto* e = static_cast<QDragEnterEvent*>(event);
    if (e->mimeData()->hasUrls() && e->mimeData()->urls().first().isLocalFile()) {
      e->acceptProposedAction();
      return true;
    }
  } else if (event->type() == QEvent::Drop) {
    auto* e = static_cast<QDropEvent*>(event);
    if (e->mimeData()->hasUrls() && e->mimeData()->urls().first().isLocalFile()) {
      openTrace(e->mimeData()->urls().first().toLocalFile());
      e->acceptProposedAction();
      return true;
    }
  }
  return QWidget::eventFilter(watched, event);
}

}  // namespace rl::ui
