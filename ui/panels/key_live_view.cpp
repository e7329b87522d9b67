#include "ui/panels/key_live_view.hpp"

#include <QChart>
#include <QChartView>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineSeries>
#include <QPushButton>
#include <QTimer>
#include <QValueAxis>
#include <QVBoxLayout>

namespace rl::ui {

namespace {
QChart* chartWith(const QString& title, QValueAxis* x, QValueAxis* y) {
  auto* chart = new QChart;
  chart->setTitle(title);
  x->setTitleText(QObject::tr("s since Start"));
  x->setLabelFormat(QStringLiteral("%.1f"));
  chart->addAxis(x, Qt::AlignBottom);
  chart->addAxis(y, Qt::AlignLeft);
  chart->legend()->setAlignment(Qt::AlignBottom);
  chart->setMargins(QMargins(2, 2, 2, 2));
  return chart;
}
}  // namespace

KeyLiveView::KeyLiveView(QWidget* parent)
    : QWidget(parent),
      start_(new QPushButton(tr("Start"), this)),
      status_(new QLabel(tr("Select keys in the list, then Start: their used / limit and TTL over time."), this)),
      usedX_(new QValueAxis),
      usedY_(new QValueAxis),
      ttlX_(new QValueAxis),
      ttlY_(new QValueAxis),
      next_(new QTimer(this)) {
  start_->setObjectName(QStringLiteral("liveStart"));
  status_->setWordWrap(true);
  usedY_->setTitleText(tr("used / limit"));
  ttlY_->setTitleText(tr("TTL (s)"));
  usedChart_ = chartWith(tr("Used / limit"), usedX_, usedY_);
  ttlChart_ = chartWith(tr("TTL"), ttlX_, ttlY_);
  auto* top = new QHBoxLayout;
  top->addWidget(start_);
  top->addWidget(status_, 1);
  auto* charts = new QHBoxLayout;
  charts->addWidget(new QChartView(usedChart_, this));
  charts->addWidget(new QChartView(ttlChart_, this));
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(top);
  layout->addLayout(charts, 1);
  next_->setSingleShot(true);
  next_->setInterval(kIntervalMs);
  connect(next_, &QTimer::timeout, this, [this] {
    if (running_) emit sampleRequested(keys_, originMs_);
  });
  connect(start_, &QPushButton::clicked, this, [this] { setRunning(!running_); });
}

void KeyLiveView::setKeys(const QStringList& keys) { selected_ = keys.mid(0, kMaxKeys); }

void KeyLiveView::setRunning(bool on) {
  if (on && selected_.isEmpty()) {
    status_->setText(tr("Select one or more keys in the Keys tab first."));
    return;
  }
  running_ = on;
  start_->setText(on ? tr("Stop") : tr("Start"));
  if (!on) {
    next_->stop();
    status_->setText(tr("Stopped."));
    return;
  }
  usedChart_->removeAllSeries();
  ttlChart_->removeAllSeries();
  lines_.clear();
  keys_ = selected_;
  originMs_ = KeyAuditWorker::steadyNowMs();
  ttlMax_ = usedMax_ = 1;
  status_->setText(tr("Drawing %1 key(s)…").arg(keys_.size()));
  emit sampleRequested(keys_, originMs_);
}

KeyLiveView::Line& KeyLiveView::lineOf(const QString& key) {
  auto it = lines_.find(key);
  if (it != lines_.end()) return *it;
  Line l;
  l.used = new QLineSeries;
  l.ttl = new QLineSeries;
  l.used->setName(key);
  l.ttl->setName(key);
  usedChart_->addSeries(l.used);
  ttlChart_->addSeries(l.ttl);
  l.used->attachAxis(usedX_);
  l.used->attachAxis(usedY_);
  l.ttl->attachAxis(ttlX_);
  l.ttl->attachAxis(ttlY_);
  return *lines_.insert(key, l);
}

void KeyLiveView::addSample(qint64 tMs, const QList<LiveKeySample>& keys) {
  if (!running_) return;
  const double t = static_cast<double>(tMs) / 1000.0;
  int unknown = 0;
  for (const LiveKeySample& k : keys) {
    Line& l = lineOf(k.name);
    if (k.used >= 0 && k.limit > 0) {
      const double ratio = static_cast<double>(k.used) / static_cast<double>(k.limit);
      l.usedPts << QPointF(t, ratio);
      usedMax_ = std::max(usedMax_, ratio);
    } else {
      ++unknown;
    }
    const double ttl = k.pttlMs >= 0 ? static_cast<double>(k.pttlMs) / 1000.0 : 0.0;
    l.ttlPts << QPointF(t, ttl);
    ttlMax_ = std::max(ttlMax_, ttl);
    l.used->replace(l.usedPts);
    l.ttl->replace(l.ttlPts);
  }
  for (QValueAxis* x : {usedX_, ttlX_}) x->setRange(0, std::max(1.0, t));
  usedY_->setRange(0, usedMax_ * 1.1);
  ttlY_->setRange(0, ttlMax_ * 1.1);
  usedY_->applyNiceNumbers();
  ttlY_->applyNiceNumbers();
  status_->setText(unknown ? tr("%1 s: %2 key(s) without a known limit (the Assume field gives it, e.g. limit=100)")
                                 .arg(t, 0, 'f', 1).arg(unknown)
                           : tr("%1 s, %2 key(s)").arg(t, 0, 'f', 1).arg(keys.size()));
  next_->start();  // the next sample only after this one arrived
}

void KeyLiveView::showError(const QString& message) {
  if (running_) setRunning(false);
  status_->setText(message);
}

QList<QPointF> KeyLiveView::usedPoints(const QString& key) const { return lines_.value(key).usedPts; }

QList<QPointF> KeyLiveView::ttlPoints(const QString& key) const { return lines_.value(key).ttlPts; }

QString KeyLiveView::statusText() const { return status_->text(); }

}  // namespace rl::ui
