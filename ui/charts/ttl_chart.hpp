#pragma once
// TtlChart: PTTL of the limiter keys, sampled on the window's own Redis
// connection during a storm and after it until the keys expire. Its time axis
// is always the wall clock since the storm started. A storm on the server or
// client clock runs in real time, so the lanes' seconds are (about) these and
// the two axes share a range. A virtual-clock storm replays seconds of
// scheduled time in a few milliseconds of wall time: its samples all come
// after the run, the title says so and gives the run's wall time, and the
// axis is not stretched to the lanes' virtual seconds. A vertical line marks
// when the storm ended on this clock. A sample without the key (expired, or
// Redis down in an outage) breaks the line: no line is drawn across a gap.

#include <QList>
#include <QPointF>
#include <vector>

#include "limiter/algorithm.hpp"
#include "storm/storm_spec.hpp"
#include "ui/charts/series_chart.hpp"

namespace rl::ui {

/// What the TTL chart can show for the lanes' current source.
enum class TtlSource {
  NoKeys,        ///< memory backend: no Redis keys to sample
  NotSampled,    ///< serving, a script or an HTTP target: keys RateLab does not name; the key inspector lists them
  WallClock,     ///< server or client clock: the storm runs in real time
  VirtualClock,  ///< virtual clock: the storm takes milliseconds of wall time
};

/// What the TTL chart shows for a storm on `backend` with `clock`.
TtlSource ttlSourceOf(Backend backend, ClockMode clock);

/// PTTL per algorithm against wall-clock seconds; see the file comment.
class TtlChart : public SeriesChart {
  Q_OBJECT
 public:
  explicit TtlChart(QWidget* parent = nullptr);
  /// A new storm (or HTTP serving): one line per algorithm, cleared; `source` sets the title.
  void reset(const std::vector<Algorithm>& algorithms, TtlSource source, const QStringList& labels = {});
  /// One sample at `atUs` wall time since the storm started (ms per lane, < 0 = no key: a gap).
  void addSample(std::int64_t atUs, const QList<qint64>& pttlMs);
  /// The storm ended at `wallUs` since it started: drawn as a vertical line (and named in the
  /// title); ignored when nothing is sampled (memory backend, serving).
  void markRunEnd(std::int64_t wallUs);
  /// The lanes' span in seconds: shared by the axis only when the storm runs in real time.
  void setLanesSpan(double seconds);
  /// What the chart shows now.
  TtlSource source() const { return source_; }
  /// When the storm ended, seconds of wall time (-1 = still running).
  double runEndSeconds() const { return runEnd_; }

 private:
  void updateRanges();
  TtlSource source_ = TtlSource::WallClock;
  std::vector<std::vector<QList<QPointF>>> pieces_;  ///< per lane: runs of samples (wall s -> ms) between gaps
  std::vector<bool> gap_;                             ///< per lane: the last sample had no key
  double yMax_ = 1;                     ///< largest PTTL seen (ms)
  double xMax_ = 0;                     ///< latest sample (wall seconds)
  double lanesSpan_ = 0;                ///< the lanes' span (seconds of the storm's timeline)
  double runEnd_ = -1;                  ///< storm end (wall seconds), -1 = running
};

}  // namespace rl::ui
