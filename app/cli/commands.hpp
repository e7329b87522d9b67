#pragma once
// The subcommands of ratelab-cli. Each takes the arguments after its name and
// returns the process exit code: 0 done, 2 bad input (one line on stderr
// naming the flag and what is allowed), 3 cannot reach Redis at start.

#include <string>
#include <vector>

namespace rl::cli {

using Args = std::vector<std::string>;

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailed = 1;    ///< the run itself failed (not bad input)
inline constexpr int kExitBadInput = 2;
inline constexpr int kExitNoRedis = 3;    ///< Redis (or an audited HTTP target) cannot be reached at start

int cmdRun(const Args& args);     ///< one storm; table or --json           (cmd_run.cpp)
int cmdRace(const Args& args);    ///< naive vs watch vs lua on one key     (cmd_race.cpp)
int cmdBench(const Args& args);   ///< max decisions/s per backend/algorithm (cmd_bench.cpp)
int cmdKeys(const Args& args);    ///< limiter keys under the prefix        (cmd_keys.cpp)
int cmdScript(const Args& args);  ///< print an algorithm's Lua script      (cmd_script.cpp)
int cmdServe(const Args& args);   ///< HTTP limiter replicas on loopback    (cmd_serve.cpp)
int cmdCluster(const Args& args); ///< a private Redis Cluster until Ctrl-C (cmd_cluster.cpp)
int cmdTune(const Args& args);    ///< sweep a quota grid over a trace      (cmd_tune.cpp)
int cmdExplain(const Args& args); ///< a config as quotas, or a quota as config (cmd_explain.cpp)
int cmdAudit(const Args& args);   ///< probe an HTTP limiter, fingerprint, verdict (cmd_audit.cpp)

}  // namespace rl::cli
