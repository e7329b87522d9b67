#include "ui/lane_model.hpp"

#include <algorithm>

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

/// Count of samples matching `want` in the trailing window (t - w, t], kept by two pointers.
class WindowCounter {
 public:
  WindowCounter(const std::vector<LaneSample>& s, bool want) : s_(s), want_(want) {}
  /// Advances to sample `i` with window `w` (us); returns the count.
  std::int64_t at(std::size_t i, std::int64_t w) {
    if (s_[i].allowed == want_ && !s_[i].error) ++count_;
    const std::int64_t from = s_[i].t - w;
    while (lo_ <= i && s_[lo_].t <= from) drop(lo_++);
    while (lo_ > 0 && s_[lo_ - 1].t > from) take(--lo_);  // the window grew (tuning)
    return count_;
  }
  /// Time of the first sample inside the current window.
  std::int64_t from() const { return s_[lo_].t; }

 private:
  void drop(std::size_t k) { count_ -= (s_[k].allowed == want_ && !s_[k].error); }
  void take(std::size_t k) { count_ += (s_[k].allowed == want_ && !s_[k].error); }
  const std::vector<LaneSample>& s_;
  bool want_;
  std::size_t lo_ = 0;
  std::int64_t count_ = 0;
};

/// The most a correct limiter admits in one window: the limit, plus for rate
/// algorithms what refills during the window (a full bucket, then the rate).
std::int64_t windowBound(Algorithm a, const Quota& q) {
  if (!isRateBased(a)) return q.limit;
  return q.limit + static_cast<std::int64_t>(q.ratePerSecond() * static_cast<double>(q.window.count()) / 1e6);
}

void addSpan(std::vector<Span>& spans, double from, double to) {
  if (!spans.empty() && from <= spans.back().to) {
    spans.back().to = std::max(spans.back().to, to);
    return;
  }
  spans.push_back({from, to});
}
}  // namespace

void LaneModel::reset(const std::vector<Algorithm>& algorithms, const Quota& quota) {
  std::lock_guard lock(mutex_);
  pending_.clear();
  marks_ = {QuotaMark{0, quota}};
  algorithms_ = algorithms;
  lanes_.assign(algorithms.size(), {});
  lastTime_ = 0;
}

void LaneModel::push(int lane, std::vector<LaneSample> batch) {
  if (batch.empty()) return;
  std::lock_guard lock(mutex_);
  pending_.push_back({lane, std::move(batch)});
}

void LaneModel::markQuota(std::int64_t t, const Quota& quota) {
  std::lock_guard lock(mutex_);
  auto at = std::upper_bound(marks_.begin(), marks_.end(), t,
                             [](std::int64_t v, const QuotaMark& m) { return v < m.t; });
  marks_.insert(at, QuotaMark{t, quota});
}

std::vector<QuotaMark> LaneModel::quotaMarks() const {
  std::lock_guard lock(mutex_);
  return marks_;
}

bool LaneModel::absorb() {
  std::vector<Pending> taken;
  {
    std::lock_guard lock(mutex_);
    taken.swap(pending_);
  }
  const auto byTime = [](const LaneSample& a, const LaneSample& b) { return a.t < b.t; };
  for (Pending& p : taken) {
    if (p.lane < 0 || p.lane >= static_cast<int>(lanes_.size())) continue;
    auto& lane = lanes_[p.lane];
    std::stable_sort(p.batch.begin(), p.batch.end(), byTime);
    const std::size_t old = lane.size();
    lane.insert(lane.end(), p.batch.begin(), p.batch.end());
    // Late samples only overlap the tail: merge from the first one they precede.
    auto mid = lane.begin() + static_cast<std::ptrdiff_t>(old);
    auto from = std::upper_bound(lane.begin(), mid, p.batch.front(), byTime);
    if (from != mid) std::inplace_merge(from, mid, lane.end(), byTime);
    lastTime_ = std::max(lastTime_, lane.back().t);
  }
  return !taken.empty();
}

std::size_t LaneModel::size() const {
  std::size_t n = 0;
  for (const auto& lane : lanes_) n += lane.size();
  return n;
}

LanePoints LaneModel::build(int lane, int columns, std::int64_t span) const {
  LanePoints out;
  const auto marks = quotaMarks();
  const auto& s = lanes_.at(lane);
  span = std::max<std::int64_t>(span, 1);
  {
    ColumnDecimator admitted(out.admittedInWindow, columns, span);
    ColumnDecimator denied(out.deniedInWindow, columns, span);
    ColumnDecimator level(out.level, columns, span);
    WindowCounter admittedCount(s, true);
    WindowCounter deniedCount(s, false);
    QuotaCursor quota(marks);
    for (std::size_t i = 0; i < s.size(); ++i) {
      const Quota& q = quota.at(s[i].t);
      const std::int64_t a = admittedCount.at(i, q.window.count());
      const std::int64_t d = deniedCount.at(i, q.window.count());
      out.errors += s[i].error;
      (s[i].allowed ? out.admitted : out.denied) += 1;
      admitted.add(s[i].t, static_cast<double>(a));
      denied.add(s[i].t, static_cast<double>(d));
      level.add(s[i].t, s[i].level);
      out.peak = std::max({out.peak, static_cast<double>(a), static_cast<double>(d),
                           static_cast<double>(s[i].level)});
      if (a > windowBound(algorithms_.at(static_cast<std::size_t>(lane)), q))  // this window's requests exceed it
        addSpan(out.overLimit, static_cast<double>(admittedCount.from()) / kUsPerSecond,
                static_cast<double>(s[i].t) / kUsPerSecond);
    }
    admitted.finish();
    denied.finish();
    level.finish();
  }
  const double end = static_cast<double>(span) / kUsPerSecond;
  for (std::size_t m = 0; m < marks.size(); ++m) {
    const double x = static_cast<double>(marks[m].t) / kUsPerSecond;
    const double y = static_cast<double>(marks[m].quota.limit);
    if (m > 0) {
      out.limit.append({x, out.limit.back().y()});
      out.marks.append({x, y});
    }
    out.limit.append({x, y});
    out.peak = std::max(out.peak, y);
  }
  if (!out.limit.isEmpty()) out.limit.append({std::max(end, out.limit.back().x()), out.limit.back().y()});
  for (Span& sp : out.overLimit) sp.from = std::max(0.0, sp.from);
  return out;
}

ColumnDecimator::ColumnDecimator(QList<QPointF>& out, int columns, std::int64_t span)
    : out_(out), perColumn_(static_cast<double>(span) / std::max(columns, 1)) {
  out_.clear();
  out_.reserve(2 * std::max(columns, 1) + 2);
}

void ColumnDecimator::add(std::int64_t t, double y) {
  const auto column = static_cast<std::int64_t>(static_cast<double>(t) / perColumn_);
  const QPointF p(static_cast<double>(t) / kUsPerSecond, y);
  if (column != column_) {
    flush();
    column_ = column;
    min_ = max_ = p;
    minFirst_ = true;
    return;
  }
  if (y < min_.y()) {
    min_ = p;
    minFirst_ = false;
  } else if (y > max_.y()) {
    max_ = p;
    minFirst_ = true;
  }
}

void ColumnDecimator::flush() {
  if (column_ < 0) return;
  const QPointF& first = minFirst_ ? min_ : max_;
  const QPointF& second = minFirst_ ? max_ : min_;
  out_.append(first);
  if (second != first) out_.append(second);
}

void ColumnDecimator::finish() {
  flush();
  column_ = -1;
}

}  // namespace rl::ui
