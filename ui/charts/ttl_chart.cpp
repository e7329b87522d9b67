#include "ui/charts/ttl_chart.hpp"

#include <QChart>
#include <algorithm>

namespace rl::ui {

namespace {
QString titleOf(TtlSource source, double runEndSeconds) {
  switch (source) {
    case TtlSource::NoKeys: return TtlChart::tr("PTTL of the limiter keys: none, the memory backend keeps no Redis keys");
    case TtlSource::NotSampled: return TtlChart::tr("PTTL: not sampled here; the key inspector lists these keys");
    case TtlSource::WallClock: return TtlChart::tr("PTTL of the limiter keys, during and after the run");
    case TtlSource::VirtualClock:
      if (runEndSeconds < 0) return TtlChart::tr("PTTL after the run (the virtual-clock storm is running)");
      return TtlChart::tr("PTTL after the run: a virtual-clock storm runs faster than real time, so its keys "
                          "are read once it ends");
  }
  return {};
}

/// What the title says in a narrow chart; the whole title is its tooltip.
QString shortTitleOf(TtlSource source, double runEndSeconds) {
  switch (source) {
    case TtlSource::NoKeys: return TtlChart::tr("PTTL: memory keeps no keys");
    case TtlSource::NotSampled: return TtlChart::tr("PTTL: not sampled here");
    case TtlSource::WallClock: return TtlChart::tr("PTTL of the limiter keys");
    case TtlSource::VirtualClock:
      return runEndSeconds < 0 ? TtlChart::tr("PTTL: read after the run") : TtlChart::tr("PTTL after the run");
  }
  return {};
}
}  // namespace

TtlSource ttlSourceOf(Backend backend, ClockMode clock) {
  if (backend == Backend::Memory) return TtlSource::NoKeys;
  if (backend == Backend::Http || backend == Backend::RedisScript) return TtlSource::NotSampled;  // keys RateLab does not name
  return clock == ClockMode::Virtual ? TtlSource::VirtualClock : TtlSource::WallClock;
}

TtlChart::TtlChart(QWidget* parent)
    : SeriesChart(titleOf(TtlSource::WallClock, -1), tr("ms"), tr("storm ended"), parent) {
  setXTitle(tr("wall-clock s since the start"));  // fits under a 240 px chart (1024 px window)
  setTitles(titleOf(TtlSource::WallClock, -1), shortTitleOf(TtlSource::WallClock, -1));
  setToolTip(titleOf(TtlSource::WallClock, -1));
  setPointsVisible(true);
}

void TtlChart::reset(const std::vector<Algorithm>& algorithms, TtlSource source, const QStringList& labels) {
  source_ = source;
  setAlgorithms(algorithms, labels);
  pieces_.assign(algorithms.size(), {});
  gap_.assign(algorithms.size(), false);
  yMax_ = 1;
  xMax_ = 0;
  lanesSpan_ = 0;
  runEnd_ = -1;
  setTitles(titleOf(source_, runEnd_), shortTitleOf(source_, runEnd_));
  setToolTip(titleOf(source_, runEnd_));
  updateRanges();
}

void TtlChart::addSample(std::int64_t atUs, const QList<qint64>& pttlMs) {
  const double x = static_cast<double>(atUs) / 1e6;
  for (int i = 0; i < pttlMs.size() && i < static_cast<int>(pieces_.size()); ++i) {
    auto& pieces = pieces_[static_cast<std::size_t>(i)];
    if (pttlMs[i] < 0) {  // no key (expired, or Redis down): a gap, not a zero
      gap_[static_cast<std::size_t>(i)] = !pieces.empty();
      continue;
    }
    if (pieces.empty() || gap_[static_cast<std::size_t>(i)]) pieces.emplace_back();
    gap_[static_cast<std::size_t>(i)] = false;
    pieces.back().append(QPointF(x, static_cast<double>(pttlMs[i])));
    yMax_ = std::max(yMax_, static_cast<double>(pttlMs[i]));
    setSegments(i, pieces);
  }
  xMax_ = std::max(xMax_, x);
  updateRanges();
}

void TtlChart::markRunEnd(std::int64_t wallUs) {
  if (source_ != TtlSource::WallClock && source_ != TtlSource::VirtualClock) return;  // no samples to relate it to
  runEnd_ = static_cast<double>(wallUs) / 1e6;
  setTitles(titleOf(source_, runEnd_), shortTitleOf(source_, runEnd_));
  setToolTip(titleOf(source_, runEnd_));
  updateRanges();
}

void TtlChart::setLanesSpan(double seconds) {
  lanesSpan_ = seconds;
  updateRanges();
}

void TtlChart::updateRanges() {
  const double top = yMax_ * 1.1;
  // Virtual seconds are not wall seconds: only a real-time storm shares the lanes' span.
  const double x = source_ == TtlSource::VirtualClock ? xMax_ : std::max(xMax_, lanesSpan_);
  const double span = std::max(x, runEnd_);
  setRanges(span > 0 ? span : 1.0, top);  // nothing yet: a plain 0..1 s axis
  if (runEnd_ >= 0) setReference({QPointF(runEnd_, 0), QPointF(runEnd_, top)});
}

}  // namespace rl::ui
