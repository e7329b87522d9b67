#pragma once
// RunHistory: the window's last finished storms, newest last, each with what
// drawing it again takes: its result (every decision), its lanes, the TTL
// samples taken during it and its tail, its title and when it ended. At most
// kKept runs and kMaxDecisions decisions in all are kept; the oldest go first
// (the newest always stays). GUI thread only.
//
// comparedRun() puts two runs side by side, lane by lane: the first run's
// lanes, then the second's, each named by its run number, each judged by its
// own quota (LaneModel::load), so "memory, then redis-lua" shows as one picture.

#include <QDateTime>
#include <QList>
#include <QString>
#include <deque>
#include <memory>
#include <vector>

#include "storm/compared_runs.hpp"
#include "ui/charts/lane_model.hpp"
#include "ui/charts/ttl_chart.hpp"
#include "ui/workers/storm_types.hpp"

namespace rl::ui {

/// One TTL sample of a run: ms per lane (-2 = no key) at `atUs` wall time since its start.
struct TtlSample {
  qint64 atUs = 0;
  QList<qint64> pttlMs;
};

/// One finished storm; see the file comment.
struct PastRun {
  int number = 0;         ///< 1 for the window's first storm, counting up
  QDateTime finished;     ///< when it ended
  QString title;          ///< the preset's title, or "Storm"
  std::vector<StormLane> lanes;  ///< as the lanes named them
  StormResult result;     ///< the Summary's rows and every decision
  TtlSource ttl = TtlSource::NoKeys;
  std::shared_ptr<std::vector<TtlSample>> ttlSamples;  ///< still filled by the run's TTL tail
  std::int64_t wallUs = -1;  ///< wall time from its start to its end (the TTL chart's end mark)
  std::int64_t spanUs = 0;   ///< its planned timeline (the lanes' axis)
  bool live = true;          ///< a storm the controller ran (its model drew it); false: an audit drawn from its arrivals

  /// Its decisions over all runs of its experiment.
  std::size_t decisions() const;
  /// "fixed_window · memory 400/400, 4.00x": each lane's heading, admitted of offered and overshoot.
  QString outcomeText() const;
};

/// What the lanes, the TTL chart and the Summary show for two runs side by side.
struct ComparedRun {
  std::vector<StormLane> lanes;  ///< `a`'s lanes, then `b`'s, named "#N <heading>"
  std::vector<LaneRun> laneRuns;  ///< their decisions, each lane with its own quota
  std::vector<TtlSample> ttlSamples;  ///< both runs' samples, each padded with "no key" for the other's lanes
  StormResult result;  ///< both runs' Summary rows, named like the lanes (experiment: `a`'s)
  std::int64_t spanUs = 0;  ///< the longer timeline
};

/// The lanes of `a` and `b` side by side; see the file comment.
ComparedRun comparedRun(const PastRun& a, const PastRun& b);

/// The window's last runs; see the file comment.
class RunHistory {
 public:
  /// Runs kept.
  static constexpr std::size_t kKept = 10;
  /// Decisions kept over all runs (about 32 bytes each in the result, 24 in a lane drawn again).
  static constexpr std::size_t kMaxDecisions = 5'000'000;

  /// Adds `run` as the newest (its number: the next one) and drops the oldest beyond the bounds.
  const PastRun& add(PastRun run);
  /// The run numbered `number`, or null when it is not (or no longer) kept.
  const PastRun* find(int number) const;
  /// The newest run, or null before the first.
  const PastRun* latest() const { return runs_.empty() ? nullptr : &runs_.back(); }
  /// The run before the newest, or null.
  const PastRun* previous() const { return runs_.size() < 2 ? nullptr : &runs_[runs_.size() - 2]; }
  /// Oldest first.
  const std::deque<PastRun>& runs() const { return runs_; }

 private:
  std::deque<PastRun> runs_;
  int next_ = 1;
};

}  // namespace rl::ui
