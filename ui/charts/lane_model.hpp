#pragma once
// LaneModel: every decision of a storm, per algorithm, and the decimated
// point lists the lanes draw.
//
// Threading: workers call push() from any thread (one short lock per batch);
// the GUI thread calls absorb() from its refresh timer, which swaps the
// pending batches out under the same short lock, merges them into the
// per-algorithm arrays (GUI thread only from there on) and derives, for the
// new samples only, the trailing-window counts (the truth). A decision the
// failure policy made (the store failed) counts as what it was: admitted
// under fail-open, denied under fail-closed; the error counts say how many of
// them the policy decided, so an outage shows as what it let through. build() then
// makes, in one O(n) pass per algorithm, about two points per pixel column;
// it only reads, so lanes can be built on several threads at once.

#include <QList>
#include <QPointF>
#include <cstdint>
#include <mutex>
#include <optional>
#include <vector>

#include "limiter/algorithm.hpp"
#include "limiter/quota.hpp"
#include "metrics/over_limit.hpp"

namespace rl::ui {

/// One recorded decision as the lanes need it (t in us since the storm started).
struct LaneSample {
  std::int64_t t = 0;     ///< decision time, us since storm start
  float level = 0;        ///< tokens / window count / queue depth
  bool allowed = false;   ///< admitted or denied
  bool error = false;     ///< the store failed; the failure policy decided
  std::uint32_t client = 0;     ///< which client (the over-limit judgement is per client)
  std::uint32_t serviceUs = 0;  ///< real clocks: how long the decision took (0 on the virtual clock)
};

/// What the lanes derive from one sample, computed once when it arrives (absorb()).
struct LaneDerived {
  std::int32_t admittedInWindow = 0;  ///< admitted in (t - window, t] up to this sample: the truth
  std::int32_t deniedInWindow = 0;    ///< denied in the same window
  std::int32_t openErrorsInWindow = 0;    ///< of the admitted: let through by fail-open (store failed)
  std::int32_t closedErrorsInWindow = 0;  ///< of the denied: refused by fail-closed (store failed)
  std::int32_t windowStart = 0;       ///< index of the first sample inside the window
};

/// A quota change during the storm (interactive tuning), or the starting quota.
struct QuotaMark {
  std::int64_t t = 0;  ///< us since storm start
  Quota quota;         ///< the quota from then on
};

/// Live counts of one lane (GUI thread, after absorb()).
struct LaneTotals {
  std::int64_t admitted = 0;  ///< let through (the failure policy's admissions included)
  std::int64_t denied = 0;    ///< refused
  std::int64_t errors = 0;    ///< decided by the failure policy
};

/// A closed time span in seconds since storm start.
struct Span {
  double from = 0;  ///< seconds
  double to = 0;    ///< seconds
};

/// LaneModel::build's `client`: the lane's worst client (largest need / limit) ...
inline constexpr int kWorstClient = -1;
/// ... or every client's decisions together (an audit: each probe has its own keys).
inline constexpr int kAllClients = -2;

/// What one lane draws, already decimated: ready for one replace() per series.
struct LanePoints {
  QList<QPointF> admittedInWindow;  ///< truth: admitted in the trailing window (fail-open errors included)
  QList<QPointF> deniedInWindow;    ///< denied in the trailing window (fail-closed errors included)
  QList<QPointF> openErrorsInWindow;    ///< of the admitted in the window: fail-open errors (empty if none)
  QList<QPointF> closedErrorsInWindow;  ///< of the denied in the window: fail-closed errors (empty if none)
  std::vector<QList<QPointF>> level;  ///< decision level, in pieces: a store error has no level and breaks the line
  QList<QPointF> limit;             ///< the limit as a step line (changes with tuning)
  QList<QPointF> marks;             ///< one point per quota change after the start
  /// A natural failover's time without a master (kill to successor; to the last decision while none).
  std::optional<Span> withoutMaster;
  /// When the shown client's admissions broke the algorithm's own limit
  /// (metrics/over_limit.hpp): only those instants, merged within two pixel columns.
  std::vector<Span> overLimit;
  std::uint32_t client = 0;         ///< the client shown (the worst one unless one was picked)
  std::size_t clients = 0;          ///< clients in the lane (1: the lane is that client)
  bool picked = false;              ///< the client was picked, not the worst
  /// Every client's decisions together (kAllClients): the counts are of all clients, so
  /// there is no per-client limit line; the level breaks wherever the client changes.
  bool allClients = false;
  std::int64_t overAdmitted = 0;    ///< the shown client's admissions over the limit
  std::int64_t overAdmittedAll = 0; ///< every client's
  std::int64_t admitted = 0;        ///< totals
  std::int64_t denied = 0;          ///< totals
  std::int64_t errors = 0;          ///< decisions made by the failure policy (openErrors + closedErrors)
  std::int64_t openErrors = 0;      ///< of those, admitted (fail-open)
  std::int64_t closedErrors = 0;    ///< of those, denied (fail-closed)
  double peak = 0;                  ///< largest y value (for the axis)
  /// x is the decision's number in the lane, not its time: a burst faster than one decision
  /// per microsecond (virtual clock) has no time axis to speak of. x is then number / 1e6, so
  /// every series keeps one unit ("seconds") and the chart scales it by 1e6 (time_scale.hpp).
  bool byDecision = false;
};

/// One lane of a finished run as a whole (the run history, comparisons): its decisions,
/// judged by its own quota, cost and limiter clock origin.
struct LaneRun {
  Algorithm algorithm = Algorithm::FixedWindow;
  std::vector<LaneSample> samples;  ///< any order
  std::vector<QuotaMark> marks;     ///< the starting quota first, then each change
  std::int64_t cost = 1;            ///< cost of every request
  std::int64_t origin = 0;          ///< the limiters' clock at the run's start
};

/// Every decision of one storm, per algorithm; see the file comment for threading.
class LaneModel {
 public:
  /// Starts a new storm: forgets everything, sets the algorithms, starting quota and cost.
  void reset(const std::vector<Algorithm>& algorithms, const Quota& quota, std::int64_t cost = 1);
  /// Any thread: the limiters' clock at the start of the run drawn in lanes
  /// [first, first + count) (aligns fixed windows for the over-limit judgement).
  void setClockOrigin(int first, int count, std::int64_t originUs);
  /// Any thread: queues a batch of samples of the algorithm at `lane` (index in algorithms()).
  void push(int lane, std::vector<LaneSample> batch);
  /// Any thread: records a quota change at `t` us since start.
  void markQuota(std::int64_t t, const Quota& quota);
  /// Any thread: the master went at `from` us, a successor was seen at `to` (-1: none yet).
  void markWithoutMaster(std::int64_t from, std::int64_t to);
  /// GUI thread: moves queued batches into the model; true if anything arrived.
  bool absorb();
  /// GUI thread: replaces everything by `lanes`, each judged by its own quota (a past run
  /// shown again, or two runs side by side), absorbed at once.
  void load(std::vector<LaneRun> lanes);

  /// Builds the decimated points of `lane` for `columns` pixel columns over [0, span] us,
  /// for client `client`: kWorstClient the lane's worst, kAllClients every client's. `byDecision`: x is the
  /// decision's number and span a number of decisions (LanePoints::byDecision).
  LanePoints build(int lane, int columns, std::int64_t span, int client = kWorstClient, bool byDecision = false) const;
  /// True when the decisions came faster than one per microsecond of their clock (a virtual-clock
  /// burst): the lanes then draw them by decision number.
  bool fasterThanTime() const;
  /// The most decisions in one lane.
  std::size_t mostInALane() const;
  /// The lane's worst client so far (largest need / limit).
  std::uint32_t worstClient(int lane) const;
  /// The lane's counts so far.
  LaneTotals totals(int lane) const { return lanes_.at(static_cast<std::size_t>(lane)).totals; }
  /// The algorithms in lane order.
  const std::vector<Algorithm>& algorithms() const { return algorithms_; }
  /// Latest decision time of all lanes (us since start).
  std::int64_t lastTime() const { return lastTime_; }
  /// The earliest sample's time (us), -1 before any.
  std::int64_t firstTime() const { return firstTime_; }
  /// Recorded decisions over all lanes.
  std::size_t size() const;
  /// The samples of one lane, sorted by time (GUI thread).
  const std::vector<LaneSample>& samples(int lane) const { return lanes_.at(static_cast<std::size_t>(lane)).samples; }
  /// Quota changes, the starting quota first (a lane load() gave its own quota: that lane's).
  std::vector<QuotaMark> quotaMarks(int lane = -1) const;

 private:
  /// build() without the failover's span.
  LanePoints buildLane(int lane, int columns, std::int64_t span, int client, bool byDecision) const;
  struct Pending {
    int lane = 0;                    ///< which lane
    std::vector<LaneSample> batch;   ///< samples in arrival order
  };
  struct Lane {
    std::vector<LaneSample> samples;   ///< sorted by t
    std::vector<LaneDerived> derived;  ///< one per sample, valid below dirtyFrom
    std::size_t dirtyFrom = 0;         ///< first sample whose derived values must be recomputed
    std::size_t errors = 0;            ///< samples with error set (0: build() skips the error series)
    std::vector<std::uint8_t> over;    ///< per sample: an admission over the limit (valid below judged)
    std::size_t judged = 0;            ///< samples judged by `judge`
    std::optional<OverLimitJudge> judge;          ///< the over-limit judgement, in time order
    std::optional<OverLimitJudge::Checkpoint> saved;  ///< the judge after `savedAt` samples
    std::size_t savedAt = 0;           ///< see `saved`
    std::vector<std::uint8_t> seen;    ///< per client index: has samples
    std::size_t clients = 0;           ///< clients with samples
    LaneTotals totals;                 ///< counts of every sample
    std::optional<std::vector<QuotaMark>> ownMarks;  ///< load(): the lane's own quota over the model's
    std::int64_t ownCost = 0;          ///< load(): the lane's own cost (0: the model's)
  };
  void derive(Lane& lane, const std::vector<QuotaMark>& marks) const;
  void judge(Lane& lane, Algorithm algorithm, std::size_t from, const std::vector<QuotaMark>& marks,
             std::int64_t origin, bool rebuild);
  LanePoints buildFrom(const Lane& l, int columns, std::int64_t span, const std::vector<QuotaMark>& marks,
                       bool byDecision, bool levelPerClient = false) const;

  mutable std::mutex mutex_;              ///< guards pending_, marks_ and markedAt_
  std::vector<Pending> pending_;          ///< batches not yet absorbed
  std::vector<QuotaMark> marks_;          ///< quota changes, by time
  std::int64_t markedAt_ = -1;            ///< earliest quota change not yet absorbed (-1 = none)
  std::vector<Algorithm> algorithms_;     ///< lane order
  std::vector<Lane> lanes_;               ///< per algorithm
  std::int64_t lastTime_ = 0;             ///< max t seen
  std::int64_t noMasterFrom_ = -1;        ///< guarded by mutex_: the failover's kill (-1: none)
  std::int64_t noMasterTo_ = -1;          ///< guarded by mutex_: the successor seen (-1: not yet)
  std::int64_t firstTime_ = -1;           ///< min t seen (-1: none)
  std::int64_t cost_ = 1;                 ///< cost of every request
  std::vector<std::int64_t> origins_;     ///< per lane: the limiters' clock at its run's start (guarded)
  std::vector<std::uint8_t> originChanged_;  ///< per lane: set since the last absorb() (guarded)
};

/// Appends at most two points per pixel column (the column's min and max, in
/// time order) of the (x, y) values offered in increasing x. O(1) per value.
class ColumnDecimator {
 public:
  /// `columns` pixel columns over [0, span] us; x is reported in seconds.
  ColumnDecimator(QList<QPointF>& out, int columns, std::int64_t span);
  /// The pixel column of time t (us).
  std::int64_t columnOf(std::int64_t t) const { return static_cast<std::int64_t>(static_cast<double>(t) * perColumnInverse_); }
  /// Offers one value at time t (us, non-decreasing).
  void add(std::int64_t t, double y) { addInColumn(columnOf(t), t, y); }
  /// Same, when the caller already knows the column (several series on one time axis).
  void addInColumn(std::int64_t column, std::int64_t t, double y) {
    if (column != column_) {
      startColumn(column, t, y);
    } else if (y < minY_) {
      minT_ = t;
      minY_ = y;
      minFirst_ = false;
    } else if (y > maxY_) {
      maxT_ = t;
      maxY_ = y;
      minFirst_ = true;
    }
  }
  /// Emits the last column.
  void finish();
  /// Largest value emitted so far.
  double peak() const { return peak_; }

 private:
  void flush();
  void startColumn(std::int64_t column, std::int64_t t, double y);
  QList<QPointF>& out_;
  double perColumnInverse_ = 1;  ///< columns per us
  std::int64_t column_ = -1;     ///< current column
  std::int64_t minT_ = 0, maxT_ = 0;  ///< times of the extremes in the current column
  double minY_ = 0, maxY_ = 0;   ///< extremes in the current column
  bool minFirst_ = true;         ///< min came before max
  double peak_ = 0;              ///< max over all columns
};

}  // namespace rl::ui
