#pragma once
// A storm and the same storm on other backends (--compare-backend, the
// window's "beside" choice): one list of runs, each in its own key space, and
// the words that name what decided each run (a team's script by its file name).

#include <string>
#include <vector>

#include "storm/storm_spec.hpp"

namespace rl {

/// `spec` first, then one copy per `spec.compareBackends` entry with that
/// backend, no compare list of its own, and its own run tag suffix (two runs
/// on one Redis never meet each other's keys). A redis-script run decides one
/// lane (the script is one limiter, whatever the algorithm list says: the
/// first algorithm only gives its quota rules); the built-ins beside it keep
/// every listed algorithm. An http run is likewise one lane, the target's, and is followed by
/// its model run (model_replay.hpp): the listed algorithms on the target's own arrivals.
std::vector<StormSpec> comparedRuns(const StormSpec& spec);

/// One lane of a storm: the algorithm whose quota rules it follows, and its name.
struct StormLane {
  Algorithm algorithm = Algorithm::FixedWindow;
  std::string label;
  FailurePolicy policy = FailurePolicy::Open;  ///< decides the lane's store errors (names its bands)
  std::string heading;  ///< "<algorithm> · <backend>[ · <variant>]": what the lane chart's title calls it
  bool hasLevel = true;  ///< the decisions say the limiter's level (an HTTP target's do not: no level chart line)
};

/// The lanes of every run of comparedRuns(spec), in order; names carry the
/// backend when there is more than one run.
std::vector<StormLane> stormLanes(const StormSpec& spec);

/// The storm once per failure policy, to run at the same time (the window's
/// outage preset: one outage, every policy): each with its own run tag suffix.
std::vector<StormSpec> policyRuns(const StormSpec& spec, const std::vector<FailurePolicy>& policies);

/// The lanes of policyRuns(): "<algorithm> · fail-open", "· fail-closed", "· local".
std::vector<StormLane> policyLanes(const StormSpec& spec, const std::vector<FailurePolicy>& policies);

/// The failover storm once per WAIT setting (the window's failover preset:
/// without WAIT, then with it), one after the other, each with its own run tag suffix.
std::vector<StormSpec> waitRuns(const StormSpec& spec, const std::vector<int>& waitReplicas);

/// The lanes of waitRuns(): "<algorithm> · no WAIT", "<algorithm> · WAIT 1".
std::vector<StormLane> waitLanes(const StormSpec& spec, const std::vector<int>& waitReplicas);

/// The file name of a redis-script run's script ("seed_token_bucket.lua"), "" otherwise.
std::string scriptName(const StormSpec& spec);

/// What decided the run: "redis-script (seed_token_bucket.lua)", "http (http://..)", "redis-lua".
std::string backendLabel(const StormSpec& spec);

/// One lane's name: the script's file name for redis-script, "target" for http, else the algorithm;
/// `withBackend` adds " · <backend>" to a built-in algorithm (runs side by side).
std::string laneLabel(const StormSpec& spec, Algorithm algorithm, bool withBackend);

}  // namespace rl
