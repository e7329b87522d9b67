#pragma once
// StormSpec: one storm = traffic pattern x replicas x clients x algorithms x
// backend. Built from CLI flags, a JSON scenario or the GUI form; validate()
// names the bad field and what is allowed.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"
#include "http/http_client.hpp"
#include "limiter/algorithm.hpp"
#include "limiter/quota.hpp"
#include "redis/script_settings.hpp"
#include "store/backend.hpp"
#include "store/failure_policy.hpp"
#include "storm/fault_schedule.hpp"
#include "storm/quota_schedule.hpp"
#include "trace/trace.hpp"

namespace rl {

/// Shape of the offered traffic (`--pattern`).
enum class Pattern {
  Burst,     ///< every request at t = 0 (as fast as concurrency allows)
  Constant,  ///< evenly spaced at `rate`
  Boundary,  ///< two bursts straddling a window boundary (fixed window's 2x)
  Ramp,      ///< rate rising linearly from 0 to `rate`
  Poisson,   ///< exponential gaps at mean `rate`, seeded
};

/// Where `now` comes from (`--clock`).
enum class ClockMode {
  Server,   ///< Redis TIME inside the script: one clock for all replicas
  Client,   ///< each replica's own clock, optionally skewed
  Virtual,  ///< the request's scheduled time: deterministic, as fast as possible
};

/// A failover during a storm on a managed Redis Cluster (`--failover`), times
/// from the storm's start: the replication link of the master holding the
/// storm's first key is broken at `breakAt` (its replica stopped and the link
/// killed, so the replica lags), the master is killed at `killAt`, and the
/// replica is promoted (CLUSTER FAILOVER TAKEOVER) at `promoteAt`; optionally
/// the old master is restarted at `rejoinAt` and rejoins as the new master's replica.
///
/// Natural failovers are Redis's own (storm/natural_failover.hpp): `natural:kill@MS`
/// SIGKILLs the master holding the storm's first key at `killAt` and lets the
/// Sentinels or the Cluster elect a successor; `sentinel-failover@MS` sends
/// `SENTINEL FAILOVER` at `killAt` (the old master stays up and is demoted).
struct FailoverPlan {
  Micros breakAt{0};    ///< replication broken
  Micros killAt{0};     ///< master killed (writes since breakAt are lost)
  Micros promoteAt{0};  ///< replica promoted; decisions are served again
  Micros rejoinAt{0};   ///< old master restarted as a replica; 0 = it stays down
  /// Who performs the failover.
  enum class Kind {
    Scripted,          ///< break, kill, promote (CLUSTER FAILOVER TAKEOVER), on a schedule
    NaturalKill,       ///< SIGKILL the master; Sentinel or the Cluster elects
    SentinelFailover,  ///< SENTINEL FAILOVER
  } kind = Kind::Scripted;  ///< the plan's kind
};

/// The most replicas `--wait-replicas` (scenario key "wait_replicas") may wait for.
inline constexpr int kMaxWaitReplicas = 100;

/// Backend http: the target(s) and how each request is made and its answer read.
struct HttpTargetOptions {
  std::vector<std::string> targets;  ///< base URLs, round-robin
  std::string method = "GET";        ///< request method
  std::vector<std::string> headers;  ///< extra "Name: value" fields
  std::string body;                  ///< request body ("" = none)
  std::string key = "header:x-api-key";  ///< how the client travels: header:NAME | source-addr
  std::vector<int> denyStatus{429};  ///< statuses that mean "denied" (2xx = admitted)
  std::string caFile;                ///< https targets: trusted CAs (PEM; "" = the system's)
  bool insecure = false;             ///< https targets: accept any certificate
  Micros timeout = kDefaultHttpTimeout;  ///< bound of each connect / send / receive (--http-timeout-ms)
};

/// What a store error decides, and how a Redis write is confirmed and a count read.
struct ResilienceOptions {
  FailurePolicy onRedisError = FailurePolicy::Open;  ///< decision when the store errs
  int waitReplicas = 0;              ///< redis-lua: WAIT for this many replicas after each admitting write
  Micros waitTimeout{50'000};        ///< WAIT's timeout
  bool readFromReplica = false;      ///< redis-naive: read the count from a replica (Python limits' use_replicas=True)
};

/// One storm, fully specified. Defaults are a sensible first run. With a
/// trace (`trace.path` set) the traffic is the trace's requests, not the
/// pattern: clients are its keys, `requests`/`rate`/`pattern` are ignored.
struct StormSpec {
  std::vector<Algorithm> algorithms{Algorithm::FixedWindow};  ///< compared on one request sequence
  Backend backend = Backend::Memory;                          ///< where state lives
  std::string redisUrl;              ///< redis://[user:password@]host:port[/db]; empty = embedded default
  std::string prefix = "ratelab:";   ///< key prefix
  std::string runTag;                ///< prepended to client names ("<tag>client-<i>"): a fresh key space per run
  Quota quota;                       ///< limit, window, optional refill rate (at the start)
  std::vector<QuotaChange> quotaChanges;  ///< --quota-change: the quota changes during the run, time order
  std::int64_t cost = 1;             ///< weight of each request
  int replicas = 1;                  ///< simulated API replicas behind round-robin
  int clients = 1;                   ///< distinct client keys, requests spread round-robin
  std::int64_t requests = 0;         ///< total requests; 0 = duration x rate
  Micros duration{0};                ///< run length for rate-driven patterns
  double rate = 0;                   ///< offered requests per second; 0 = as fast as possible
  int concurrency = 1;               ///< requests in flight at once (worker threads)
  Pattern pattern = Pattern::Burst;  ///< traffic shape
  ClockMode clock = ClockMode::Virtual;  ///< source of `now`
  std::vector<Micros> skew;          ///< per-replica clock offset (client and virtual clocks; the server clock has none)
  ResilienceOptions resilience;      ///< what a store error decides; WAIT; replica reads
  std::uint64_t seed = 1;            ///< poisson gaps and any other randomness
  Micros thinkTime{0};               ///< redis-naive: pause between read and write (race demo)
  TraceOptions trace;                ///< --trace and --trace-*: replay this file (path empty = pattern traffic)
  SharedTrace traceData;             ///< the loaded trace (loadStormTrace), required when trace.path is set
  double speed = 0;                  ///< --speed X: wall-clock replay X times faster (needs a real clock); 0 = 1x
  HttpTargetOptions http;            ///< backend http: the target and how requests are made (--http-*)
  ScriptSettings script;             ///< backend redis-script: the user's Lua limiter (--script*)
  std::vector<Backend> compareBackends;  ///< run: the same storm again on these backends, reported beside it
  std::vector<FailurePolicy> comparePolicies;  ///< the same storm once per failure policy, all at the same time
  std::vector<int> compareWaitReplicas;  ///< a failover storm once per WAIT setting, one after the other
  std::optional<FailoverPlan> failover;  ///< a failover on a managed cluster during the storm
  std::vector<FaultEvent> faults;        ///< --fault: done to the managed redis-server during the run (time order)
  /// Set by comparedRuns on an http storm's model run: the listed algorithms decide the target run's
  /// arrivals again, in memory on the virtual clock (its trace is those arrivals; model_replay.hpp).
  bool modelsTarget = false;
};

/// How long the run's sends span, as planned (trace: its span / speed; rate-driven patterns:
/// requests / rate, twice that for ramp, or the duration; burst and boundary: 0).
Micros plannedSpan(const StormSpec& spec);

/// Wall-clock replay speed of a trace on a real clock: `speed`, or 1 when unset.
double replaySpeed(const StormSpec& spec);

/// Reads `spec.trace` into `spec.traceData` (a no-op without --trace). Errors
/// name the --trace flag at fault (see loadTrace).
Result<void> loadStormTrace(StormSpec& spec, const std::function<void(std::int64_t)>& progress = {},
                            const std::atomic<bool>* cancel = nullptr);

/// Parses `break@MS,kill@MS,promote@MS[,rejoin@MS]` (times increasing), `natural:kill@MS` or
/// `sentinel-failover@MS`. InvalidArgument names the part and what is allowed.
Result<FailoverPlan> parseFailoverPlan(std::string_view text);
/// `break@MS,kill@MS,promote@MS[,rejoin@MS]`, `natural:kill@MS` or `sentinel-failover@MS`.
std::string failoverPlanText(const FailoverPlan& plan);

std::string_view patternName(Pattern p);        ///< "burst", "constant", ...
std::optional<Pattern> parsePattern(std::string_view s);  ///< nullopt if unknown
std::string patternChoices();                   ///< "burst, constant, boundary, ramp or poisson"
std::string_view clockModeName(ClockMode c);    ///< "server", "client", "virtual"
std::optional<ClockMode> parseClockMode(std::string_view s);  ///< nullopt if unknown
std::string clockModeChoices();                 ///< "server, client or virtual"

/// Checks every field; the error names the field (as its flag) and what is allowed.
Result<void> validate(const StormSpec& spec);

}  // namespace rl
