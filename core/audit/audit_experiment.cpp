#include "audit/audit_experiment.hpp"

#include <algorithm>
#include <map>

#include "audit/fingerprint.hpp"
#include "storm/model_replay.hpp"

namespace rl {

namespace {
// One lane of decisions: `allowed[i]` for the i-th replayed arrival, at its time since `originUs`.
// `levels` empty: unknown (the target's), left at 0 and not drawn (stormLanes: an http lane has no level).
StormOutcome outcomeOf(const std::vector<const Arrival*>& arrivals, const std::vector<bool>& allowed,
                       const std::vector<double>& levels, const std::map<std::string, std::uint32_t>& clients,
                       std::int64_t originUs, bool withLatency) {
  StormOutcome o;
  o.clockOriginUs = originUs;
  o.counters.resize(1);
  for (std::size_t i = 0; i < arrivals.size(); ++i) {
    DecisionFields f;
    f.intendedUs = f.atUs = seenAtUs(*arrivals[i]) - originUs;
    f.latencyUs = withLatency ? static_cast<std::uint32_t>(std::max<std::int64_t>(arrivals[i]->rttUs, 0)) : 0;
    f.client = clients.at(arrivals[i]->key);
    f.flags = allowed[i] ? kDecisionAllowed : 0;
    f.remaining = -1;
    if (i < levels.size()) f.level = static_cast<float>(levels[i]);
    o.records.emplace_back(f);
    ++(allowed[i] ? o.counters[0].admitted : o.counters[0].denied);
  }
  std::stable_sort(o.records.begin(), o.records.end(),
                   [](const DecisionRecord& a, const DecisionRecord& b) { return a.intendedUs() < b.intendedUs(); });
  const std::int64_t span = o.records.empty() ? 0 : o.records.back().intendedUs();
  o.wallDuration = Micros{span};
  o.progress.planned = o.progress.sent = static_cast<std::int64_t>(o.records.size());
  o.progress.elapsed = Micros{span};
  o.progress.finished = true;
  return o;
}
}  // namespace

ExperimentResult auditExperiment(const AuditReport& report) {
  ExperimentResult result;
  const auto named = modelOf(report.fingerprint);
  const std::vector<ModelDecision> model = fingerprintDecisions(report.arrivals, report.fingerprint);
  if (!named || model.empty()) return result;
  std::vector<const Arrival*> replayed;
  std::vector<bool> target, modelled;
  std::vector<double> levels;
  std::map<std::string, std::uint32_t> clients;  // each probe key is one client, in order of first use
  std::int64_t origin = seenAtUs(report.arrivals[model.front().arrival]);
  for (const ModelDecision& d : model) {
    const Arrival& a = report.arrivals[d.arrival];
    replayed.push_back(&a);
    target.push_back(a.allowed);
    modelled.push_back(d.allowed);
    levels.push_back(d.level);
    clients.emplace(a.key, static_cast<std::uint32_t>(clients.size()));
    origin = std::min(origin, seenAtUs(a));
  }
  StormSpec s;
  s.backend = Backend::Http;
  s.http.targets = report.urls;
  if (s.http.targets.empty()) s.http.targets.push_back("the audited target");
  s.algorithms = {named->algorithm};
  s.quota = named->quota;
  s.clock = ClockMode::Client;
  s.clients = static_cast<int>(clients.size());
  s.requests = static_cast<std::int64_t>(replayed.size());
  s.runTag = "audit-";
  result.spec = s;
  result.runs.push_back({s, 0, outcomeOf(replayed, target, {}, clients, origin, true), std::nullopt, std::nullopt});
  StormSpec m = comparedRuns(s).at(1);  // the model run of an http storm
  result.runs.push_back({m, 1, outcomeOf(replayed, modelled, levels, clients, origin, false), std::nullopt, std::nullopt});
  return result;
}

}  // namespace rl
