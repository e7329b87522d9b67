#pragma once
// LanesPanel: one LaneChart per algorithm on a shared time axis (each keeps a
// readable plot height; lanes that do not fit scroll), one legend above them
// listing what they draw, the level
// chart (tokens, queue depth or window count against capacity) on the storm's
// timeline, and the TTL chart (PTTL of the limiter keys on the wall clock,
// sampled during the storm and after it; see ttl_chart.hpp).
//
// refresh() runs on the GUI thread from the controller's single-shot timer:
// it absorbs the model's pending batches (short lock), builds each lane's
// decimated points (about two per pixel column) and replaces each series once.
//
// Zoom and pan (lane_pointer.hpp) act on every lane and the level chart at once:
// the lanes show a part of the run, the rest stays built (up to kMaxZoomDetail
// times the columns), and a line above the lanes says which part and how to get
// back. A new storm shows its whole run.

#include <QList>
#include <optional>
#include <QWidget>
#include <vector>

#include "limiter/algorithm.hpp"
#include "storm/compared_runs.hpp"
#include "ui/charts/lane_model.hpp"
#include "ui/charts/theme.hpp"
#include "ui/charts/ttl_chart.hpp"

class QLabel;
class QSpinBox;
class QValueAxis;

namespace rl::ui {

class LaneChart;
class LaneLegend;
class SeriesChart;
class TtlChart;

/// The charts of a storm; see the file comment.
class LanesPanel : public QWidget {
  Q_OBJECT
 public:
  /// Above this many decisions the lanes are built on two threads.
  static constexpr std::size_t kParallelBuildAbove = 50'000;
  /// A zoomed view gets up to this many times the columns of the whole run's.
  static constexpr double kMaxZoomDetail = 50;
  /// A late burst drawn from its first decision (not zoomed) gets up to this many times.
  static constexpr double kLateBurstDetail = 20;

  explicit LanesPanel(QWidget* parent = nullptr);
  /// Rebuilds the lanes for a new storm (stormLanes(): one per algorithm of each
  /// run, a script beside the built-ins) and clears all charts; `ttl` says what
  /// the TTL chart can show (no keys, real-time or virtual-clock storm). `client` is the
  /// picker's start: kWorstClient for a storm, kAllClients for an audit (each probe its own keys).
  void setLanes(const std::vector<StormLane>& lanes, TtlSource ttl = TtlSource::WallClock, int client = kWorstClient);
  /// Redraws everything from `model` over [0, max(spanUs, last decision)].
  void refresh(LaneModel& model, std::int64_t spanUs);
  /// Every lane (also those scrolled out of view), the legend above them and the level and TTL
  /// charts below, as one image (File > Export charts as PNG).
  QPixmap grabAll() const;
  /// Adds one TTL sample (ms per algorithm lane, -2 = no key) at `atUs` wall time since the start.
  void addTtlSample(std::int64_t atUs, const QList<qint64>& pttlMs);
  /// The storm ended `wallUs` after it started (wall clock): marked on the TTL chart.
  void markRunEnd(std::int64_t wallUs);
  /// The line shown in the empty lanes before the first storm ("Pick a preset or press Space ...").
  void setHint(const QString& text);
  /// The hint label (tests).
  QLabel* hint() const { return hint_; }
  /// Applies a theme to every chart.
  void setTheme(Theme t);
  /// The lane charts (tests).
  const QList<LaneChart*>& lanes() const { return lanes_; }
  /// The lanes' one legend, above them (tests).
  LaneLegend* legend() const { return legend_; }
  /// The level chart (tests).
  SeriesChart* levelChart() const { return level_; }
  /// The TTL chart (tests).
  TtlChart* ttlChart() const { return ttl_; }
  /// Which client the lanes show: kWorstClient, kAllClients or a number (tests set it as a user does).
  QSpinBox* clientPicker() const { return client_; }
  /// The part of the run the lanes show when zoomed, seconds of the storm's timeline (none: all of it).
  std::optional<Span> zoomedTo() const { return view_; }
  /// The line that names the zoomed part (tests).
  QLabel* zoomLine() const { return zoomLine_; }
  /// Zooms around `atSeconds` by `factor` (below 1: in), pans by `seconds`, or shows the whole run.
  void zoomLanes(double atSeconds, double factor);
  void panLanes(double seconds);
  void showWholeRun();
  /// Milliseconds the last refresh took (build + replace), for the status bar and benchmarks.
  double lastRefreshMs() const { return lastRefreshMs_; }

 private:
  void resetLanes(const std::vector<StormLane>& lanes, TtlSource ttl, int client = kWorstClient);
  /// Keeps the view inside the run and at least a thousandth of it wide, then redraws.
  void setView(double from, double to);
  /// The lanes' and the level chart's time axes.
  QList<QValueAxis*> timeAxes() const;
  QWidget* lanesBox_;
  LaneLegend* legend_;  ///< lists what the lanes draw
  QWidget* bottom_ = nullptr;  ///< the level and TTL charts under the lanes
  QLabel* hint_;  ///< shown until the first storm
  QWidget* clientRow_;  ///< the client picker, shown when a lane has several clients
  QSpinBox* client_;    ///< a client, kWorstClient or kAllClients
  LaneModel* model_ = nullptr;  ///< the model last drawn (a new pick redraws it)
  std::int64_t spanUs_ = 0;     ///< the span last drawn
  bool stormShown_ = false;  ///< a storm (or serving) has set the lanes
  QList<LaneChart*> lanes_;
  std::vector<int> levelOf_;  ///< per lane, its series in the level chart (-1: none, an HTTP target's lane)
  SeriesChart* level_;
  TtlChart* ttl_;
  double xMax_ = 1;  ///< the lanes' span, seconds of the storm's timeline
  Span whole_{0, 1};          ///< the whole run's time axis as drawn (rounded out to ticks), seconds
  std::optional<Span> view_;  ///< zoomed part of whole_
  QWidget* zoomRow_;
  QLabel* zoomLine_;
  Theme theme_ = Theme::Light;
  double lastRefreshMs_ = 0;
};

}  // namespace rl::ui
