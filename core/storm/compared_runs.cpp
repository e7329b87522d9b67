#include "storm/compared_runs.hpp"

#include "storm/model_replay.hpp"

namespace rl {

namespace {
// A copy of `spec` that runs beside it: no compare list of its own, and its own keys.
StormSpec besideRun(const StormSpec& spec, std::string_view tag) {
  StormSpec run = spec;
  run.compareBackends.clear();
  run.comparePolicies.clear();
  run.compareWaitReplicas.clear();
  run.runTag += std::string(tag) + "-";
  return run;
}

constexpr const char* kDot = " \xC2\xB7 ";

// "<algorithm or script> · <backend>" and " · <variant>" when one sets the run apart; an http storm's model
// lanes say what they model.
std::string headingOf(const StormSpec& run, Algorithm a, const std::string& variant) {
  if (run.modelsTarget) return laneLabel(run, a, false) + kDot + "model on the target's arrivals";
  std::string heading = laneLabel(run, a, false) + kDot + std::string(backendName(run.backend));
  return variant.empty() ? heading : heading + kDot + variant;
}

// One lane per algorithm of each run, named "<algorithm> · <what sets the run apart>".
template <class Suffix>
std::vector<StormLane> lanesOf(const std::vector<StormSpec>& runs, Suffix suffix) {
  std::vector<StormLane> lanes;
  for (const StormSpec& run : runs)
    for (Algorithm a : run.algorithms)
      lanes.push_back({a, laneLabel(run, a, false) + kDot + suffix(run), run.resilience.onRedisError, headingOf(run, a, suffix(run)),
                       run.backend != Backend::Http});
  return lanes;
}
}  // namespace

std::vector<StormSpec> comparedRuns(const StormSpec& spec) {
  std::vector<StormSpec> out{spec};
  // A script, or an HTTP target, is one limiter: one lane, whatever the algorithm list says.
  if ((spec.backend == Backend::RedisScript || spec.backend == Backend::Http) && spec.algorithms.size() > 1)
    out.front().algorithms.resize(1);
  if (spec.backend == Backend::Http) out.push_back(modelRunOf(spec));  // the algorithms, on the target's arrivals
  for (Backend b : spec.compareBackends) {
    out.push_back(besideRun(spec, backendName(b)));
    out.back().backend = b;
  }
  return out;
}

std::string scriptName(const StormSpec& spec) {
  if (spec.backend != Backend::RedisScript) return {};
  const auto slash = spec.script.file.rfind('/');
  return slash == std::string::npos ? spec.script.file : spec.script.file.substr(slash + 1);
}

std::string backendLabel(const StormSpec& spec) {
  if (spec.backend == Backend::RedisScript) return "redis-script (" + scriptName(spec) + ")";
  if (spec.backend == Backend::Http && !spec.http.targets.empty()) return "http (" + spec.http.targets.front() + ")";
  if (spec.modelsTarget) return "memory, on the target's arrivals (virtual clock)";
  return std::string(backendName(spec.backend));
}

std::string laneLabel(const StormSpec& spec, Algorithm algorithm, bool withBackend) {
  if (spec.backend == Backend::RedisScript) return scriptName(spec);
  if (spec.backend == Backend::Http) return "target";
  std::string label(algorithmName(algorithm));
  if (spec.modelsTarget) return withBackend ? label + " \xC2\xB7 model" : label;
  if (withBackend) label += " \xC2\xB7 " + std::string(backendName(spec.backend));
  return label;
}

std::vector<StormLane> stormLanes(const StormSpec& spec) {
  const auto runs = comparedRuns(spec);
  std::vector<StormLane> lanes;
  for (const StormSpec& run : runs)
    for (Algorithm a : run.algorithms)
      lanes.push_back({a, laneLabel(run, a, runs.size() > 1), run.resilience.onRedisError, headingOf(run, a, {}),
                       run.backend != Backend::Http});
  return lanes;
}

namespace {
// The policy as the connection panel names it.
std::string policyLabel(FailurePolicy p) {
  return p == FailurePolicy::Local ? "local" : "fail-" + std::string(failurePolicyName(p));
}
}  // namespace

std::vector<StormSpec> policyRuns(const StormSpec& spec, const std::vector<FailurePolicy>& policies) {
  std::vector<StormSpec> out;
  for (FailurePolicy p : policies) {
    out.push_back(besideRun(spec, failurePolicyName(p)));
    out.back().resilience.onRedisError = p;
  }
  return out;
}

std::vector<StormLane> policyLanes(const StormSpec& spec, const std::vector<FailurePolicy>& policies) {
  return lanesOf(policyRuns(spec, policies), [](const StormSpec& run) { return policyLabel(run.resilience.onRedisError); });
}

std::vector<StormSpec> waitRuns(const StormSpec& spec, const std::vector<int>& waitReplicas) {
  std::vector<StormSpec> out;
  for (int n : waitReplicas) {
    out.push_back(besideRun(spec, "wait" + std::to_string(n)));
    out.back().resilience.waitReplicas = n;
  }
  return out;
}

std::vector<StormLane> waitLanes(const StormSpec& spec, const std::vector<int>& waitReplicas) {
  return lanesOf(waitRuns(spec, waitReplicas), [](const StormSpec& run) {
    return run.resilience.waitReplicas > 0 ? "WAIT " + std::to_string(run.resilience.waitReplicas) : std::string("no WAIT");
  });
}

}  // namespace rl
