#include "ui/run_history.hpp"

#include <algorithm>

#include "ui/charts/lane_runs.hpp"
#include "ui/qt_text.hpp"

namespace rl::ui {

std::size_t PastRun::decisions() const {
  std::size_t n = 0;
  if (result.experiment)
    for (const ExperimentRun& r : result.experiment->runs) n += r.outcome.records.size();
  return n;
}

QString PastRun::outcomeText() const {
  QStringList rows;
  for (std::size_t i = 0; i < result.algorithms.size(); ++i) {
    const AlgorithmResult& r = result.algorithms[i];
    const QString name = i < lanes.size() && !lanes[i].heading.empty() ? qs(lanes[i].heading) : r.label;  // with its backend
    rows << QObject::tr("%1 %2/%3, %4x").arg(name).arg(r.admitted).arg(r.offered).arg(r.overshoot, 0, 'f', 2);
  }
  return rows.join(QStringLiteral("; "));
}

namespace {
StormLane numbered(StormLane lane, int number) {
  const std::string tag = "#" + std::to_string(number) + " ";
  lane.heading = tag + (lane.heading.empty() ? lane.label : lane.heading);
  lane.label = lane.heading;  // the backend too: two runs of one algorithm differ by it
  return lane;
}

void addSamples(std::vector<TtlSample>& out, const PastRun& run, int before, int after) {
  if (!run.ttlSamples) return;
  for (const TtlSample& s : *run.ttlSamples) {
    TtlSample padded{s.atUs, {}};
    for (int i = 0; i < before; ++i) padded.pttlMs << -2;
    padded.pttlMs << s.pttlMs;
    for (int i = 0; i < after; ++i) padded.pttlMs << -2;
    out.push_back(std::move(padded));
  }
}
}  // namespace

ComparedRun comparedRun(const PastRun& a, const PastRun& b) {
  ComparedRun out;
  for (const StormLane& l : a.lanes) out.lanes.push_back(numbered(l, a.number));
  for (const StormLane& l : b.lanes) out.lanes.push_back(numbered(l, b.number));
  for (const PastRun* run : {&a, &b}) {
    std::vector<LaneRun> lanes = run->result.experiment ? laneRunsOf(*run->result.experiment) : std::vector<LaneRun>{};
    lanes.resize(run->lanes.size());  // one per named lane, whatever the result held
    for (LaneRun& l : lanes) out.laneRuns.push_back(std::move(l));
    for (AlgorithmResult r : run->result.algorithms) {
      r.label = QStringLiteral("#%1 %2").arg(run->number).arg(r.label);
      out.result.algorithms.push_back(std::move(r));
    }
    out.spanUs = std::max(out.spanUs, run->spanUs);
  }
  for (std::size_t i = 0; i < out.lanes.size() && i < out.laneRuns.size(); ++i) out.laneRuns[i].algorithm = out.lanes[i].algorithm;
  const int na = static_cast<int>(a.lanes.size());
  const int nb = static_cast<int>(b.lanes.size());
  addSamples(out.ttlSamples, a, 0, nb);
  addSamples(out.ttlSamples, b, na, 0);
  out.result.durationMs = std::max(a.result.durationMs, b.result.durationMs);
  out.result.cancelled = a.result.cancelled || b.result.cancelled;
  out.result.experiment = a.result.experiment;
  return out;
}

const PastRun& RunHistory::add(PastRun run) {
  run.number = next_++;
  runs_.push_back(std::move(run));
  std::size_t total = 0;
  for (const PastRun& r : runs_) total += r.decisions();
  while (runs_.size() > 1 && (runs_.size() > kKept || total > kMaxDecisions)) {
    total -= runs_.front().decisions();
    runs_.pop_front();
  }
  return runs_.back();
}

const PastRun* RunHistory::find(int number) const {
  for (const PastRun& r : runs_)
    if (r.number == number) return &r;
  return nullptr;
}

}  // namespace rl::ui
