#include "ui/panels/lanes_panel.hpp"

#include <QHBoxLayout>
#include <QLabel>
#include <QPainter>
#include <QPixmap>
#include <QPushButton>
#include <QSpinBox>
#include <QValueAxis>

#include <QElapsedTimer>
#include <QScrollArea>
#include <QSplitter>
#include <QVBoxLayout>
#include <algorithm>
#include <future>

#include "metrics/chart_axis.hpp"
#include "ui/charts/chart_lane.hpp"
#include "ui/charts/series_chart.hpp"
#include "ui/charts/lane_legend.hpp"
#include "ui/charts/lane_model.hpp"
#include "ui/charts/lane_pointer.hpp"
#include "ui/qt_text.hpp"

namespace rl::ui {

namespace {
// The client picker: a client's number, or "the worst" (kWorstClient) or "all" (kAllClients) below 0.
class ClientPicker final : public QSpinBox {
 public:
  ClientPicker() {
    setRange(kAllClients, 0);
    setToolTip(tr("Each lane draws one client's own decisions against the per-client limit: the client whose "
                  "admission went furthest over it, one picked here, or all clients' decisions together "
                  "(counted over every client, so without the per-client limit line)"));
  }

 protected:
  QString textFromValue(int value) const override {
    if (value == kAllClients) return tr("all");
    if (value == kWorstClient) return tr("the worst");
    return QSpinBox::textFromValue(value);
  }
  int valueFromText(const QString& text) const override {
    if (text.trimmed() == tr("all")) return kAllClients;
    if (text.trimmed() == tr("the worst")) return kWorstClient;
    return QSpinBox::valueFromText(text);
  }
  QValidator::State validate(QString& text, int& pos) const override {
    const QString t = text.trimmed();
    for (const QString& word : {tr("all"), tr("the worst")})
      if (word.startsWith(t, Qt::CaseInsensitive)) return t == word ? QValidator::Acceptable : QValidator::Intermediate;
    return QSpinBox::validate(text, pos);
  }
};
}  // namespace

LanesPanel::LanesPanel(QWidget* parent)
    : QWidget(parent),
      lanesBox_(new QWidget),
      legend_(new LaneLegend),
      level_(new SeriesChart(tr("Level vs capacity"), tr("level"), tr("capacity"))),
      ttl_(new TtlChart) {
  level_->setXTitle(tr("s on the storm's timeline"));
  level_->setToolTip(tr("Level of each algorithm against its capacity: tokens, queue depth or window count"));
  new QVBoxLayout(lanesBox_);
  lanesBox_->layout()->setContentsMargins(0, 0, 0, 0);
  lanesBox_->layout()->setSpacing(2);
  hint_ = new QLabel(lanesBox_);
  hint_->setObjectName(QStringLiteral("lanesHint"));
  hint_->setAlignment(Qt::AlignCenter);
  hint_->setWordWrap(true);
  hint_->setStyleSheet(QStringLiteral("QLabel { font-size: 15pt; color: palette(mid); padding: 40px; }"));
  lanesBox_->layout()->addWidget(hint_);
  // Each lane keeps its minimum height (LaneChart::kMinPlotHeight of plot); lanes that do not fit scroll.
  auto* scroll = new QScrollArea;
  scroll->setObjectName(QStringLiteral("lanesScroll"));
  scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  scroll->setWidget(lanesBox_);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  auto* bottom = new QSplitter(Qt::Horizontal);
  bottom_ = bottom;
  bottom->addWidget(level_);
  bottom->addWidget(ttl_);
  auto* lanesArea = new QWidget;  // the one legend above the lanes, outside every plot
  auto* lanesColumn = new QVBoxLayout(lanesArea);
  lanesColumn->setContentsMargins(0, 0, 0, 0);
  lanesColumn->setSpacing(0);
  lanesColumn->addWidget(legend_);
  lanesColumn->addWidget(scroll, 1);
  legend_->hide();
  auto* split = new QSplitter(Qt::Vertical);
  split->setChildrenCollapsible(false);
  split->addWidget(lanesArea);
  split->addWidget(bottom);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 1);
  split->setSizes({750, 250});
  // Several clients: which one the lanes show (the worst by default, all of them for an audit).
  clientRow_ = new QWidget;
  auto* row = new QHBoxLayout(clientRow_);
  row->setContentsMargins(4, 0, 4, 0);
  row->addWidget(new QLabel(tr("Lanes show client:")));
  client_ = new ClientPicker;
  client_->setObjectName(QStringLiteral("laneClient"));
  row->addWidget(client_);
  row->addStretch(1);
  clientRow_->setVisible(false);
  connect(client_, &QSpinBox::valueChanged, this, [this] {
    if (model_) refresh(*model_, spanUs_);
  });
  // Zoomed: which part of the run the lanes show, and the way back.
  zoomRow_ = new QWidget;
  auto* zoomRow = new QHBoxLayout(zoomRow_);
  zoomRow->setContentsMargins(4, 0, 4, 0);
  zoomLine_ = new QLabel;
  zoomLine_->setObjectName(QStringLiteral("lanesZoom"));
  zoomLine_->setWordWrap(true);  // never widens the lanes
  zoomLine_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  auto* whole = new QPushButton(tr("Whole run"));
  whole->setObjectName(QStringLiteral("lanesWholeRun"));
  zoomRow->addWidget(zoomLine_, 1);
  zoomRow->addWidget(whole);
  zoomRow_->setVisible(false);
  connect(whole, &QPushButton::clicked, this, &LanesPanel::showWholeRun);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(clientRow_);
  layout->addWidget(zoomRow_);
  layout->addWidget(split);
  resetLanes({{Algorithm::FixedWindow, "fixed_window", FailurePolicy::Open, ""}}, TtlSource::WallClock);  // an empty lane until the first storm
}

void LanesPanel::setHint(const QString& text) {
  hint_->setText(text);
  const bool show = !stormShown_ && !text.isEmpty();
  hint_->setVisible(show);
  for (LaneChart* lane : lanes_) lane->setVisible(!show);  // the hint stands in for the empty lane
}

void LanesPanel::setLanes(const std::vector<StormLane>& lanes, TtlSource ttl, int client) {
  stormShown_ = true;  // the first storm replaces the hint for good
  hint_->hide();
  resetLanes(lanes, ttl, client);
}

void LanesPanel::resetLanes(const std::vector<StormLane>& lanes, TtlSource ttl, int client) {
  model_ = nullptr;  // a new storm: the worst client again (an audit: all of them)
  {
    const QSignalBlocker quiet(client_);
    client_->setValue(client);
  }
  clientRow_->setVisible(false);
  for (LaneChart* lane : lanes_) delete lane;
  lanes_.clear();
  std::vector<Algorithm> algorithms, levelAlgorithms;  // every lane's; the lanes that tell a level
  QStringList labels, levelLabels;
  levelOf_.clear();
  for (std::size_t i = 0; i < lanes.size(); ++i) {
    auto* lane = new LaneChart(lanes[i].algorithm, lanesBox_);
    lane->setLabel(qs(lanes[i].label));
    lane->setHeading(qs(lanes[i].heading));
    lane->setPolicy(lanes[i].policy);
    lane->setTheme(theme_);
    connect(lane->pointer(), &LanePointer::zoomRequested, this, &LanesPanel::zoomLanes);
    connect(lane->pointer(), &LanePointer::panRequested, this, &LanesPanel::panLanes);
    connect(lane->pointer(), &LanePointer::resetRequested, this, &LanesPanel::showWholeRun);
    lanesBox_->layout()->addWidget(lane);
    lanes_.append(lane);
    algorithms.push_back(lanes[i].algorithm);
    labels << lane->label();
    levelOf_.push_back(lanes[i].hasLevel ? static_cast<int>(levelAlgorithms.size()) : -1);  // a target tells no level
    if (!lanes[i].hasLevel) continue;
    levelAlgorithms.push_back(lanes[i].algorithm);
    levelLabels << lane->label();
  }
  level_->setAlgorithms(levelAlgorithms, levelLabels);
  ttl_->reset(algorithms, ttl, labels);
  // Only a storm whose keys are sampled draws PTTL; otherwise the level chart takes the width.
  ttl_->setVisible(ttl == TtlSource::WallClock || ttl == TtlSource::VirtualClock);
  level_->setTimeScale({});
  level_->setRanges(1.0, 1.0);  // a plain 0..1 s axis until the first refresh
  xMax_ = 1;
  whole_ = Span{0, 1};
  view_.reset();  // a new storm: its whole run
  zoomRow_->setVisible(false);
  legend_->hide();
}

QList<QValueAxis*> LanesPanel::timeAxes() const {
  QList<QValueAxis*> out{level_->timeAxis()};
  for (LaneChart* lane : lanes_) out << lane->timeAxis();
  return out;
}

void LanesPanel::zoomLanes(double atSeconds, double factor) {
  const Span now = view_.value_or(whole_);
  const double from = atSeconds - (atSeconds - now.from) * factor;  // the instant under the pointer stays put
  setView(from, from + (now.to - now.from) * factor);
}

void LanesPanel::panLanes(double seconds) {
  if (!view_) return;  // the whole run: nothing to pan to
  setView(view_->from + seconds, view_->to + seconds);  // setView keeps it inside the run
}

void LanesPanel::showWholeRun() {
  if (!view_) return;
  view_.reset();
  zoomRow_->setVisible(false);
  if (model_) refresh(*model_, spanUs_);
}

void LanesPanel::setView(double from, double to) {
  const double whole = whole_.to - whole_.from;
  if (!model_ || whole <= 0 || to - from >= whole * 0.999) return showWholeRun();
  const double width = std::max(to - from, whole / 1000);
  from = std::clamp(from, whole_.from, whole_.to - width);
  view_ = Span{from, from + width};
  const TimeScale scale = model_->fasterThanTime() ? decisionScale() : timeScaleFor(view_->to);
  const auto at = [&](double s) { return QString::number(s * scale.perSecond, 'f', width * scale.perSecond < 10 ? 3 : 1); };
  zoomLine_->setText(tr("Zoomed: %1 to %2 %3 of %4 to %5 %3 (wheel zooms, drag pans, double-click: all)")
                         .arg(at(view_->from), at(view_->to), scale.unit, at(whole_.from), at(whole_.to)));
  zoomRow_->setVisible(true);
  refresh(*model_, spanUs_);
}

void LanesPanel::refresh(LaneModel& model, std::int64_t spanUs) {
  QElapsedTimer timer;
  timer.start();
  model.absorb();
  model_ = &model;
  spanUs_ = spanUs;
  // A burst faster than the clock's microseconds is drawn by decision number, not as a line at 0.
  const bool byDecision = model.fasterThanTime();
  const std::int64_t span = byDecision ? static_cast<std::int64_t>(model.mostInALane())
                                       : std::max({spanUs, model.lastTime(), std::int64_t{1000}});
  xMax_ = static_cast<double>(span) / 1e6;
  // A late burst (the boundary preset's at 59 s) is drawn from its first decision (chart_axis.hpp),
  // with as many columns in the part shown as a whole-span axis would have.
  const double start = byDecision || model.firstTime() < 0 ? 0 : axisStartSeconds(static_cast<double>(model.firstTime()) / 1e6, xMax_);
  // Zoomed in (zoomLanes), the lanes show that part of the run; else from `start` to the end.
  const double xMin = view_ ? view_->from : start;
  const double xEnd = view_ ? view_->to : xMax_;
  const double zoom = std::min(view_ ? kMaxZoomDetail : kLateBurstDetail, xMax_ / std::max(xEnd - xMin, 1e-9));
  double levelMax = 1;
  const int n = std::min(static_cast<int>(model.algorithms().size()), static_cast<int>(lanes_.size()));
  // The lanes are built in parallel (the model is only read: absorb() ran above,
  // on this thread), then each series is replaced once, here on the GUI thread.
  std::vector<LanePoints> points(static_cast<std::size_t>(n));
  std::vector<int> columns(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) columns[static_cast<std::size_t>(i)] = static_cast<int>(lanes_[i]->columns() * zoom);
  const auto buildRange = [&](int from, int step) {
    for (int i = from; i < n; i += step)
      points[static_cast<std::size_t>(i)] = model.build(i, columns[static_cast<std::size_t>(i)], span, client_->value(), byDecision);
  };
  if (n > 1 && model.size() > kParallelBuildAbove) {
    auto helper = std::async(std::launch::async, buildRange, 1, 2);
    buildRange(0, 2);
    helper.get();
  } else {
    buildRange(0, 1);
  }
  std::size_t clients = 0;
  for (const LanePoints& p : points) clients = std::max(clients, p.clients);
  clientRow_->setVisible(clients > 1);
  {
    const QSignalBlocker quiet(client_);
    client_->setMaximum(std::max(0, static_cast<int>(clients) - 1));
  }
  const TimeScale scale = byDecision ? decisionScale() : timeScaleFor(xEnd);
  level_->setTimeScale(scale);
  level_->setXTitle(byDecision ? tr("decision number") : tr("%1 on the storm's timeline").arg(scale.unit));
  QList<LegendEntry> drawn;
  for (int i = 0; i < n; ++i) {
    const LanePoints& p = points[static_cast<std::size_t>(i)];
    lanes_[i]->showPoints(p, xEnd, xMin);
    drawn << lanes_[i]->drawnEntries();
    const int level = i < static_cast<int>(levelOf_.size()) ? levelOf_[static_cast<std::size_t>(i)] : i;
    if (level >= 0) level_->setSegments(level, p.level);
    if (i == 0) level_->setReference(p.limit);
    for (const QList<QPointF>& piece : p.level)
      for (const QPointF& q : piece) levelMax = std::max(levelMax, q.y());
    for (const QPointF& q : p.limit) levelMax = std::max(levelMax, q.y());
  }
  legend_->setEntries(drawn);
  level_->setRanges(xEnd, levelMax * 1.1, xMin);
  if (view_)  // exactly the part asked for (not rounded out to ticks), so the instant under the pointer stays put
    for (QValueAxis* axis : timeAxes()) axis->setRange(view_->from * scale.perSecond, view_->to * scale.perSecond);
  else if (!lanes_.isEmpty())  // the whole run as drawn (rounded out to ticks): what zoom and pan move within
    whole_ = Span{lanes_[0]->timeAxis()->min() / scale.perSecond, lanes_[0]->timeAxis()->max() / scale.perSecond};
  if (!byDecision) ttl_->setLanesSpan(xMax_);
  lastRefreshMs_ = static_cast<double>(timer.nsecsElapsed()) / 1e6;
}

QPixmap LanesPanel::grabAll() const {
  // The lanes' box has the height of every lane (the scroll area shows a part of it).
  QList<QPixmap> parts;
  if (legend_->isVisible()) parts << legend_->grab();
  parts << lanesBox_->grab() << bottom_->grab();
  int width = 0, height = 0;
  for (const QPixmap& p : parts) {
    width = std::max(width, p.width());
    height += p.height();
  }
  QPixmap all(width, height);
  all.fill(palette().color(QPalette::Window));
  QPainter painter(&all);
  int y = 0;
  for (const QPixmap& p : parts) {
    painter.drawPixmap(0, y, p);
    y += p.height();
  }
  return all;
}

void LanesPanel::addTtlSample(std::int64_t atUs, const QList<qint64>& pttlMs) { ttl_->addSample(atUs, pttlMs); }

void LanesPanel::markRunEnd(std::int64_t wallUs) { ttl_->markRunEnd(wallUs); }

void LanesPanel::setTheme(Theme t) {
  theme_ = t;
  for (LaneChart* lane : lanes_) lane->setTheme(t);
  level_->setTheme(t);
  ttl_->setTheme(t);
}

}  // namespace rl::ui
