#include "ui/charts/lane_model.hpp"

#include <algorithm>
#include <optional>

#include "metrics/time_unit.hpp"

namespace rl::ui {

namespace {
constexpr double kUsPerSecond = 1e6;

/// The quota in force at `t`, walking `marks` forward (t non-decreasing).
class QuotaCursor {
 public:
  explicit QuotaCursor(const std::vector<QuotaMark>& marks) : marks_(marks) {}
  const Quota& at(std::int64_t t) {
    while (next_ + 1 < marks_.size() && marks_[next_ + 1].t <= t) ++next_;
    return marks_[next_].quota;
  }

 private:
  const std::vector<QuotaMark>& marks_;
  std::size_t next_ = 0;
};

/// Judge checkpoints stay this far behind the newest sample, where late batches do not reach.
constexpr std::int64_t kCheckpointBehindUs = 250'000;

/// A ColumnDecimator that starts a new piece after each gap.
class PieceDecimator {
 public:
  PieceDecimator(std::vector<QList<QPointF>>& out, int columns, std::int64_t span)
      : out_(out), columns_(columns), span_(span) {}
  void addInColumn(std::int64_t column, std::int64_t t, double y) {
    if (!piece_) {
      out_.emplace_back();
      piece_.emplace(out_.back(), columns_, span_);
    }
    piece_->addInColumn(column, t, y);
  }
  void gap() {
    if (!piece_) return;
    piece_->finish();
    peak_ = std::max(peak_, piece_->peak());
    piece_.reset();
  }
  double peak() const { return peak_; }

 private:
  std::vector<QList<QPointF>>& out_;
  int columns_;
  std::int64_t span_;
  std::optional<ColumnDecimator> piece_;  ///< the open piece (the last in out_)
  double peak_ = 0;
};

/// Adds an over at x (the lane's x unit: µs, or decision number) to spans, extending the last span
/// when x is within mergeGap of its end. Compared in whole units, so adjacent overs never split on
/// rounding; seconds only where a span is stored.
void addOver(std::vector<Span>& spans, std::int64_t& lastEnd, std::int64_t x, std::int64_t mergeGap) {
  if (!spans.empty() && x <= lastEnd + mergeGap) {
    lastEnd = std::max(lastEnd, x);
    spans.back().to = static_cast<double>(lastEnd) / kUsPerSecond;
    return;
  }
  lastEnd = x;
  spans.push_back({static_cast<double>(x) / kUsPerSecond, static_cast<double>(x) / kUsPerSecond});
}
}  // namespace

static OverLimitRule ruleOf(Algorithm algorithm, const std::vector<QuotaMark>& marks, std::int64_t cost, std::int64_t origin) {
  OverLimitRule rule{algorithm, {}, cost, origin};
  for (const QuotaMark& m : marks) rule.quotas.push_back({m.t, m.quota});
  return rule;
}

void LaneModel::reset(const std::vector<Algorithm>& algorithms, const Quota& quota, std::int64_t cost) {
  std::lock_guard lock(mutex_);
  cost_ = std::max<std::int64_t>(cost, 1);
  origins_.assign(algorithms.size(), 0);
  originChanged_.assign(algorithms.size(), 0);
  pending_.clear();
  marks_ = {QuotaMark{0, quota}};
  noMasterFrom_ = noMasterTo_ = -1;
  markedAt_ = -1;
  algorithms_ = algorithms;
  lanes_.assign(algorithms.size(), {});
  lastTime_ = 0;
  firstTime_ = -1;
}

void LaneModel::push(int lane, std::vector<LaneSample> batch) {
  if (batch.empty()) return;
  std::lock_guard lock(mutex_);
  pending_.push_back({lane, std::move(batch)});
}

void LaneModel::setClockOrigin(int first, int count, std::int64_t originUs) {
  std::lock_guard lock(mutex_);
  for (int i = std::max(first, 0); i < first + count && i < static_cast<int>(origins_.size()); ++i) {
    const auto at = static_cast<std::size_t>(i);
    if (origins_[at] == originUs) continue;
    origins_[at] = originUs;
    originChanged_[at] = 1;
  }
}

std::uint32_t LaneModel::worstClient(int lane) const {
  const Lane& l = lanes_.at(static_cast<std::size_t>(lane));
  return l.judge ? l.judge->worst().client : 0;
}

void LaneModel::markQuota(std::int64_t t, const Quota& quota) {
  std::lock_guard lock(mutex_);
  auto at = std::upper_bound(marks_.begin(), marks_.end(), t,
                             [](std::int64_t v, const QuotaMark& m) { return v < m.t; });
  marks_.insert(at, QuotaMark{t, quota});
  markedAt_ = markedAt_ < 0 ? t : std::min(markedAt_, t);
}

void LaneModel::markWithoutMaster(std::int64_t from, std::int64_t to) {
  std::lock_guard lock(mutex_);
  noMasterFrom_ = from;
  noMasterTo_ = to;
}

std::vector<QuotaMark> LaneModel::quotaMarks(int lane) const {
  if (lane >= 0 && static_cast<std::size_t>(lane) < lanes_.size() && lanes_[static_cast<std::size_t>(lane)].ownMarks)
    return *lanes_[static_cast<std::size_t>(lane)].ownMarks;
  std::lock_guard lock(mutex_);
  return marks_;
}

void LaneModel::load(std::vector<LaneRun> lanes) {
  std::vector<Algorithm> algorithms;
  for (const LaneRun& l : lanes) algorithms.push_back(l.algorithm);
  reset(algorithms, lanes.empty() || lanes.front().marks.empty() ? Quota{} : lanes.front().marks.front().quota);
  for (std::size_t i = 0; i < lanes.size(); ++i) {
    Lane& lane = lanes_[i];
    if (!lanes[i].marks.empty()) lane.ownMarks = std::move(lanes[i].marks);
    lane.ownCost = std::max<std::int64_t>(lanes[i].cost, 1);
    setClockOrigin(static_cast<int>(i), 1, lanes[i].origin);
    push(static_cast<int>(i), std::move(lanes[i].samples));
  }
  absorb();
}

bool LaneModel::absorb() {
  std::vector<Pending> taken;
  std::vector<QuotaMark> marks;
  std::int64_t markedAt = -1;
  std::vector<std::uint8_t> originChanged(lanes_.size(), 0);
  std::vector<std::int64_t> origins;
  {
    std::lock_guard lock(mutex_);
    taken.swap(pending_);
    marks = marks_;
    std::swap(markedAt, markedAt_);
    originChanged.swap(originChanged_);
    originChanged_.assign(lanes_.size(), 0);
    origins = origins_;
  }
  const auto byTime = [](const LaneSample& a, const LaneSample& b) { return a.t < b.t; };
  for (Pending& p : taken) {
    if (p.lane < 0 || p.lane >= static_cast<int>(lanes_.size())) continue;
    Lane& lane = lanes_[static_cast<std::size_t>(p.lane)];
    auto& s = lane.samples;
    std::stable_sort(p.batch.begin(), p.batch.end(), byTime);
    for (const LaneSample& x : p.batch) {
      lane.errors += x.error;
      (x.allowed ? lane.totals.admitted : lane.totals.denied) += 1;
      lane.totals.errors += x.error;
      if (x.client >= lane.seen.size()) lane.seen.resize(x.client + std::size_t{1}, 0);
      lane.clients += lane.seen[x.client] == 0;
      lane.seen[x.client] = 1;
    }
    const std::size_t old = s.size();
    s.insert(s.end(), p.batch.begin(), p.batch.end());
    // Late samples only overlap the tail: merge from the first one they precede.
    auto mid = s.begin() + static_cast<std::ptrdiff_t>(old);
    auto from = std::upper_bound(s.begin(), mid, p.batch.front(), byTime);
    if (from != mid) std::inplace_merge(from, mid, s.end(), byTime);
    lane.dirtyFrom = std::min(lane.dirtyFrom, static_cast<std::size_t>(from - s.begin()));
    lastTime_ = std::max(lastTime_, s.back().t);
    firstTime_ = firstTime_ < 0 ? s.front().t : std::min(firstTime_, s.front().t);
  }
  for (std::size_t i = 0; i < lanes_.size(); ++i) {
    Lane& lane = lanes_[i];
    if (markedAt >= 0) {  // a quota change: later samples are judged by the new quota
      const auto at = std::lower_bound(lane.samples.begin(), lane.samples.end(), markedAt,
                                       [](const LaneSample& x, std::int64_t t) { return x.t < t; });
      lane.dirtyFrom = std::min(lane.dirtyFrom, static_cast<std::size_t>(at - lane.samples.begin()));
    }
    const std::size_t from = lane.dirtyFrom;
    const std::vector<QuotaMark>& quota = lane.ownMarks ? *lane.ownMarks : marks;
    if (lane.dirtyFrom < lane.samples.size()) derive(lane, quota);
    judge(lane, algorithms_[i], from, quota, origins.at(i), markedAt >= 0 || originChanged.at(i) != 0);
  }
  return !taken.empty() || markedAt >= 0;
}

void LaneModel::judge(Lane& lane, Algorithm algorithm, std::size_t from, const std::vector<QuotaMark>& marks,
                      std::int64_t origin, bool rebuild) {
  const auto& s = lane.samples;
  const auto fresh = [&] {
    lane.judge.emplace(ruleOf(algorithm, marks, lane.ownCost > 0 ? lane.ownCost : cost_, origin));
    lane.saved.reset();
    lane.savedAt = 0;
    lane.judged = 0;
  };
  if (rebuild || !lane.judge) {
    fresh();
  } else if (from < lane.judged) {  // late samples landed among judged ones
    if (lane.saved && lane.savedAt <= from) {
      lane.judge->restore(*lane.saved);
      lane.judged = lane.savedAt;
    } else {
      fresh();
    }
  }
  if (lane.judged >= s.size()) return;
  lane.over.resize(s.size());
  const auto behind = std::lower_bound(s.begin(), s.end(), s.back().t - kCheckpointBehindUs,
                                       [](const LaneSample& x, std::int64_t t) { return x.t < t; });
  const auto target = static_cast<std::size_t>(behind - s.begin());
  for (std::size_t i = lane.judged; i < s.size(); ++i) {
    if (i == target && target > lane.savedAt) {
      lane.saved = lane.judge->checkpoint();
      lane.savedAt = i;
    }
    lane.over[i] = s[i].allowed && lane.judge->admit(s[i].client, s[i].t, s[i].serviceUs).over;
  }
  lane.judged = s.size();
}

void LaneModel::derive(Lane& lane, const std::vector<QuotaMark>& marks) const {
  const auto& s = lane.samples;
  auto& d = lane.derived;
  d.resize(s.size());
  const std::size_t k = lane.dirtyFrom;
  // Resume the two-pointer window from the state after sample k - 1.
  std::int64_t admitted = k > 0 ? d[k - 1].admittedInWindow : 0;
  std::int64_t denied = k > 0 ? d[k - 1].deniedInWindow : 0;
  std::int64_t open = k > 0 ? d[k - 1].openErrorsInWindow : 0;
  std::int64_t closed = k > 0 ? d[k - 1].closedErrorsInWindow : 0;
  std::size_t lo = k > 0 ? static_cast<std::size_t>(d[k - 1].windowStart) : 0;
  const auto add = [&](const LaneSample& x, int sign) {
    (x.allowed ? admitted : denied) += sign;  // a policy decision counts as what it did
    if (x.error) (x.allowed ? open : closed) += sign;
  };
  QuotaCursor quota(marks);
  for (std::size_t i = k; i < s.size(); ++i) {
    const Quota& q = quota.at(s[i].t);
    add(s[i], 1);
    const std::int64_t from = s[i].t - q.window.count();
    while (lo <= i && s[lo].t <= from) add(s[lo++], -1);
    while (lo > 0 && s[lo - 1].t > from) add(s[--lo], 1);  // the window grew (tuning)
    d[i] = {static_cast<std::int32_t>(admitted), static_cast<std::int32_t>(denied), static_cast<std::int32_t>(open),
            static_cast<std::int32_t>(closed), static_cast<std::int32_t>(lo)};
  }
  lane.dirtyFrom = s.size();
}

std::size_t LaneModel::size() const {
  std::size_t n = 0;
  for (const auto& lane : lanes_) n += lane.samples.size();
  return n;
}

std::size_t LaneModel::mostInALane() const {
  std::size_t most = 0;
  for (const Lane& l : lanes_) most = std::max(most, l.samples.size());
  return most;
}

bool LaneModel::fasterThanTime() const { return drawnByDecision(lastTime_, mostInALane()); }

LanePoints LaneModel::build(int lane, int columns, std::int64_t span, int client, bool byDecision) const {
  LanePoints out = buildLane(lane, columns, span, client, byDecision);
  std::lock_guard lock(mutex_);
  if (noMasterFrom_ >= 0 && !out.byDecision)
    out.withoutMaster = Span{noMasterFrom_ / 1e6, (noMasterTo_ >= 0 ? noMasterTo_ : std::max(lastTime_, noMasterFrom_)) / 1e6};
  return out;
}

LanePoints LaneModel::buildLane(int lane, int columns, std::int64_t span, int client, bool byDecision) const {
  const auto marks = quotaMarks(lane);
  const Lane& l = lanes_.at(static_cast<std::size_t>(lane));
  const std::int64_t overAll = l.judge ? l.judge->overCount() : 0;
  if (client == kAllClients || (l.clients <= 1 && client < 0)) {
    const bool all = l.clients > 1;
    LanePoints out = buildFrom(l, columns, span, marks, byDecision, all);
    out.client = worstClient(lane);
    out.clients = l.clients;
    out.allClients = all;
    out.overAdmittedAll = overAll;
    return out;
  }
  // One client's samples, derived on their own: its trailing window, level and overs.
  const std::uint32_t shown = client >= 0 ? static_cast<std::uint32_t>(client) : worstClient(lane);
  Lane one;
  const std::size_t n = std::min({l.dirtyFrom, l.judged, l.samples.size()});
  for (std::size_t i = 0; i < n; ++i) {
    if (l.samples[i].client != shown) continue;
    one.samples.push_back(l.samples[i]);
    one.over.push_back(l.over[i]);
    one.errors += l.samples[i].error;
  }
  derive(one, marks);
  one.judged = one.samples.size();
  LanePoints out = buildFrom(one, columns, span, marks, byDecision);
  out.client = shown;
  out.clients = l.clients;
  out.picked = client >= 0;
  out.overAdmittedAll = overAll;
  return out;
}

LanePoints LaneModel::buildFrom(const Lane& l, int columns, std::int64_t span,
                                const std::vector<QuotaMark>& marks, bool byDecision, bool levelPerClient) const {
  LanePoints out;
  out.byDecision = byDecision;
  const auto& s = l.samples;
  const auto& d = l.derived;
  const std::size_t n = std::min(l.dirtyFrom, s.size());  // derived by absorb()
  span = std::max<std::int64_t>(span, 1);
  {
    ColumnDecimator admitted(out.admittedInWindow, columns, span);
    ColumnDecimator denied(out.deniedInWindow, columns, span);
    PieceDecimator level(out.level, columns, span);
    ColumnDecimator open(out.openErrorsInWindow, columns, span);
    ColumnDecimator closed(out.closedErrorsInWindow, columns, span);
    const bool errors = l.errors > 0;  // most storms have none: skip the two error series
    // Overs closer than two columns are one band; by decision, consecutive decisions always are.
    const std::int64_t mergeGap = std::max<std::int64_t>(2 * span / std::max(columns, 1), byDecision ? 1 : 0);
    std::int64_t lastOver = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const LaneSample& x = s[i];
      const LaneDerived& y = d[i];
      const std::int64_t t = byDecision ? static_cast<std::int64_t>(i) : x.t;  // the x of this sample
      out.admitted += x.allowed;
      const std::int64_t column = admitted.columnOf(t);
      admitted.addInColumn(column, t, y.admittedInWindow);
      denied.addInColumn(column, t, y.deniedInWindow);
      if (levelPerClient && i > 0 && s[i - 1].client != x.client) level.gap();  // one bucket's level per line
      if (x.error)
        level.gap();  // the store failed: no level to show
      else
        level.addInColumn(column, t, x.level);
      if (errors) {
        out.openErrors += x.error && x.allowed;
        out.closedErrors += x.error && !x.allowed;
        open.addInColumn(column, t, y.openErrorsInWindow);
        closed.addInColumn(column, t, y.closedErrorsInWindow);
      }
      if (i < l.judged && l.over[i] != 0) {  // this admission broke the algorithm's own limit
        ++out.overAdmitted;
        addOver(out.overLimit, lastOver, t, mergeGap);
      }
    }
    out.denied = static_cast<std::int64_t>(n) - out.admitted;
    out.errors = out.openErrors + out.closedErrors;
    for (ColumnDecimator* c : {&admitted, &denied, &open, &closed}) c->finish();
    level.gap();
    if (out.openErrors == 0) out.openErrorsInWindow.clear();  // only the policy in force draws
    if (out.closedErrors == 0) out.closedErrorsInWindow.clear();
    out.peak = std::max({admitted.peak(), denied.peak(), level.peak()});
  }
  const double end = static_cast<double>(span) / kUsPerSecond;
  const auto xOfMark = [&](std::int64_t t) {  // by decision: the first decision at or after the change
    if (!byDecision) return static_cast<double>(t) / kUsPerSecond;
    const auto at = std::lower_bound(l.samples.begin(), l.samples.end(), t,
                                     [](const LaneSample& a, std::int64_t v) { return a.t < v; });
    return static_cast<double>(at - l.samples.begin()) / kUsPerSecond;
  };
  for (std::size_t m = 0; m < marks.size(); ++m) {
    const double x = xOfMark(marks[m].t);
    const double y = static_cast<double>(marks[m].quota.limit);
    if (m > 0) {
      out.limit.append({x, out.limit.back().y()});
      out.marks.append({x, y});
    }
    out.limit.append({x, y});
    out.peak = std::max(out.peak, y);
  }
  if (!out.limit.isEmpty()) out.limit.append({std::max(end, out.limit.back().x()), out.limit.back().y()});
  return out;
}

ColumnDecimator::ColumnDecimator(QList<QPointF>& out, int columns, std::int64_t span)
    : out_(out), perColumnInverse_(std::max(columns, 1) / static_cast<double>(std::max<std::int64_t>(span, 1))) {
  out_.clear();
  out_.reserve(2 * std::max(columns, 1) + 2);
}

void ColumnDecimator::startColumn(std::int64_t column, std::int64_t t, double y) {
  flush();
  column_ = column;
  minT_ = maxT_ = t;
  minY_ = maxY_ = y;
  minFirst_ = true;
}

void ColumnDecimator::flush() {
  if (column_ < 0) return;
  peak_ = std::max(peak_, maxY_);
  const QPointF min(static_cast<double>(minT_) / kUsPerSecond, minY_);
  const QPointF max(static_cast<double>(maxT_) / kUsPerSecond, maxY_);
  out_.append(minFirst_ ? min : max);
  if (min != max) out_.append(minFirst_ ? max : min);
}

void ColumnDecimator::finish() {
  flush();
  column_ = -1;
}

}  // namespace rl::ui
