#pragma once
// LaneModel: every decision of a storm, per algorithm, and the decimated
// point lists the lanes draw.
//
// Threading: workers call push() from any thread (one short lock per batch);
// the GUI thread calls absorb() from its refresh timer, which swaps the
// pending batches out under the same short lock and merges them into the
// per-algorithm arrays (GUI thread only from there on). build() then makes,
// in one O(n) pass per algorithm, about two points per pixel column.

#include <QList>
#include <QPointF>
#include <cstdint>
#include <mutex>
#include <vector>

#include "limiter/algorithm.hpp"
#include "limiter/quota.hpp"

namespace rl::ui {

/// One recorded decision as the lanes need it (t in us since the storm started).
struct LaneSample {
  std::int64_t t = 0;     ///< decision time, us since storm start
  float level = 0;        ///< tokens / window count / queue depth
  bool allowed = false;   ///< admitted or denied
  bool error = false;     ///< the store failed; the failure policy decided
};

/// A quota change during the storm (interactive tuning), or the starting quota.
struct QuotaMark {
  std::int64_t t = 0;  ///< us since storm start
  Quota quota;         ///< the quota from then on
};

/// A closed time span in seconds since storm start.
struct Span {
  double from = 0;  ///< seconds
  double to = 0;    ///< seconds
};

/// What one lane draws, already decimated: ready for one replace() per series.
struct LanePoints {
  QList<QPointF> admittedInWindow;  ///< truth: admitted in the trailing window, per admitted decision
  QList<QPointF> deniedInWindow;    ///< denied in the trailing window
  QList<QPointF> level;             ///< decision level
  QList<QPointF> limit;             ///< the limit as a step line (changes with tuning)
  QList<QPointF> marks;             ///< one point per quota change after the start
  /// Spans where the truth exceeded what a correct limiter admits in one window:
  /// the limit (window algorithms) or limit + refill x window (rate algorithms).
  std::vector<Span> overLimit;
  std::int64_t admitted = 0;        ///< totals
  std::int64_t denied = 0;          ///< totals
  std::int64_t errors = 0;          ///< decisions made by the failure policy
  double peak = 0;                  ///< largest y value (for the axis)
};

/// Every decision of one storm, per algorithm; see the file comment for threading.
class LaneModel {
 public:
  /// Starts a new storm: forgets everything, sets the algorithms and starting quota.
  void reset(const std::vector<Algorithm>& algorithms, const Quota& quota);
  /// Any thread: queues a batch of samples of the algorithm at `lane` (index in algorithms()).
  void push(int lane, std::vector<LaneSample> batch);
  /// Any thread: records a quota change at `t` us since start.
  void markQuota(std::int64_t t, const Quota& quota);
  /// GUI thread: moves queued batches into the model; true if anything arrived.
  bool absorb();

  /// Builds the decimated points of `lane` for `columns` pixel columns over [0, span] us.
  LanePoints build(int lane, int columns, std::int64_t span) const;
  /// The algorithms in lane order.
  const std::vector<Algorithm>& algorithms() const { return algorithms_; }
  /// Latest decision time of all lanes (us since start).
  std::int64_t lastTime() const { return lastTime_; }
  /// Recorded decisions over all lanes.
  std::size_t size() const;
  /// The samples of one lane, sorted by time (GUI thread).
  const std::vector<LaneSample>& samples(int lane) const { return lanes_.at(lane); }
  /// Quota changes, the starting quota first.
  std::vector<QuotaMark> quotaMarks() const;

 private:
  struct Pending {
    int lane = 0;                    ///< which lane
    std::vector<LaneSample> batch;   ///< samples in arrival order
  };
  mutable std::mutex mutex_;              ///< guards pending_ and marks_
  std::vector<Pending> pending_;          ///< batches not yet absorbed
  std::vector<QuotaMark> marks_;          ///< quota changes, by time
  std::vector<Algorithm> algorithms_;     ///< lane order
  std::vector<std::vector<LaneSample>> lanes_;  ///< samples per lane, sorted by t
  std::int64_t lastTime_ = 0;             ///< max t seen
};

/// Appends at most two points per pixel column (the column's min and max, in
/// time order) of the (x, y) values offered in increasing x. O(1) per value.
class ColumnDecimator {
 public:
  /// `columns` pixel columns over [0, span] us; x is reported in seconds.
  ColumnDecimator(QList<QPointF>& out, int columns, std::int64_t span);
  /// Offers one value at time t (us, non-decreasing).
  void add(std::int64_t t, double y);
  /// Emits the last column.
  void finish();

 private:
  void flush();
  QList<QPointF>& out_;
  double perColumn_ = 1;        ///< us per column
  std::int64_t column_ = -1;    ///< current column
  QPointF min_, max_;           ///< extremes in the current column
  bool minFirst_ = true;        ///< min came before max
};

}  // namespace rl::ui
