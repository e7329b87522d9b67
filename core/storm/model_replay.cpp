#include "storm/model_replay.hpp"

#include <algorithm>

namespace rl {

StormSpec modelRunOf(const StormSpec& spec) {
  StormSpec model = spec;
  model.modelsTarget = true;
  model.backend = Backend::Memory;
  model.clock = ClockMode::Virtual;  // exact: the decisions at the arrival times, in moments
  model.skew.clear();
  model.replicas = 1;                // one limiter: what the target should behave as
  model.http.targets.clear();
  model.compareBackends.clear();
  model.comparePolicies.clear();
  model.compareWaitReplicas.clear();
  model.faults.clear();
  model.runTag += "model-";
  model.trace = TraceOptions{};
  model.trace.path = "the target's arrivals";
  model.speed = 0;
  return model;
}

StormSpec withArrivals(StormSpec model, const StormOutcome& target) {
  auto trace = std::make_shared<Trace>();
  trace->path = model.trace.path;
  const auto clients = static_cast<std::uint32_t>(std::max(model.clients, 1));
  for (std::uint32_t c = 0; c < clients; ++c) trace->keys.push_back("client-" + std::to_string(c));
  trace->requests.reserve(target.records.size());
  const auto cost = static_cast<std::uint32_t>(std::max<std::int64_t>(model.cost, 1));
  for (const DecisionRecord& r : target.records)
    trace->requests.push_back({target.clockOriginUs + r.atUs(), std::min(r.client(), clients - 1), cost});
  std::stable_sort(trace->requests.begin(), trace->requests.end(),
                   [](const TraceRequest& a, const TraceRequest& b) { return a.timeUs < b.timeUs; });
  trace->stats.accepted = static_cast<std::int64_t>(trace->requests.size());
  trace->stats.lines = trace->stats.accepted;
  model.requests = trace->stats.accepted;
  model.traceData = std::move(trace);
  return model;
}

namespace {
// Each client's decisions in arrival order (when each was sent; a model on the virtual clock decides at
// exactly that time): the allowed bit of its k-th request.
std::vector<std::vector<bool>> perClient(const StormOutcome& o, std::size_t lane) {
  std::vector<const DecisionRecord*> rs;
  for (const DecisionRecord& r : o.records)
    if (r.algorithm() == lane) rs.push_back(&r);
  std::stable_sort(rs.begin(), rs.end(), [](const DecisionRecord* a, const DecisionRecord* b) { return a->atUs() < b->atUs(); });
  std::vector<std::vector<bool>> out;
  for (const DecisionRecord* r : rs) {
    if (r->client() >= out.size()) out.resize(r->client() + 1);
    out[r->client()].push_back(r->allowed());
  }
  return out;
}
}  // namespace

std::vector<ModelAgreement> modelAgreement(const StormOutcome& target, const StormOutcome& model, std::size_t modelLanes) {
  const auto theirs = perClient(target, 0);
  std::vector<ModelAgreement> out(modelLanes);
  for (std::size_t lane = 0; lane < modelLanes; ++lane) {
    const auto ours = perClient(model, lane);
    for (std::size_t c = 0; c < theirs.size() && c < ours.size(); ++c)
      for (std::size_t k = 0; k < theirs[c].size() && k < ours[c].size(); ++k) {
        ++out[lane].compared;
        out[lane].differing += theirs[c][k] != ours[c][k] ? 1 : 0;
      }
  }
  return out;
}

}  // namespace rl
