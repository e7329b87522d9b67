// ratelab-cli run: one storm; a summary table, --json, --csv FILE, --report FILE.html.
#include <algorithm>
#include <csignal>
#include <cstdio>

#include "cli_flags.hpp"
#include "common/file_read.hpp"
#include "common/json.hpp"
#include "common/printable_text.hpp"
#include "commands.hpp"
#include "fault_report.hpp"
#include "interrupt.hpp"
#include "metrics/storm_metrics.hpp"
#include "progress_line.hpp"
#include "redis_target.hpp"
#include "report/html_report.hpp"
#include "report_flag.hpp"
#include "run_report.hpp"
#include "storm/compared_runs.hpp"
#include "storm/experiment.hpp"
#include "storm/run_tag.hpp"
#include "storm/model_replay.hpp"
#include "storm/natural_failover.hpp"
#include "storm/store_factory.hpp"
#include "storm/storm_settings.hpp"

namespace rl::cli {

namespace {
constexpr const char* kRunHelp =
    "usage: ratelab-cli run [options]\n"
    "  --scenario FILE      a JSON scenario (keys as below with _); flags override it\n"
    "  --backend B          memory | redis-lua | redis-naive | redis-watch | redis-script | http\n"
    "                       (default memory)\n"
    "  --redis URL          redis://[user:password@]host:port[/db] | redis+cluster://host:port[,host:port..]\n"
    "                       | redis+sentinel://[user:password@]host:port[,host:port..]/service_name[/db]\n"
    "                       | managed (a private redis-server, stopped on exit) | cluster (a private 3+3\n"
    "                       cluster) | sentinel (a private master, 2 replicas, 3 Sentinels)\n"
    "                       (default: 127.0.0.1:6379 if it answers, else managed)\n"
    "  --algorithm A[,A..]  fixed_window sliding_log sliding_counter token_bucket\n"
    "                       leaky_bucket gcra | all                          (default fixed_window)\n"
    "  --limit N --window-ms MS --refill-rate R --cost N\n"
    "  --replicas K --clients N --requests N --duration-ms MS --rate RPS --concurrency C\n"
    "                       (--requests defaults to twice the limit, at most 1000000)\n"
    "  --pattern burst|constant|boundary|ramp|poisson --seed N\n"
    "  --clock server|client|virtual (default virtual) --skew-ms a,b,..\n"
    "  --on-redis-error open|closed|local --think-ms MS --prefix P --run-tag T\n"
    "trace replay (real traffic instead of --pattern; clients are the log's keys):\n"
    "  --trace FILE         an access log, JSONL or CSV file; .gz is read directly\n"
    "  --trace-format F     combined | common | nginx:'<log_format>' | jsonl | csv\n"
    "                       (default: detected from the first lines when unambiguous)\n"
    "  --trace-key K        addr | header:NAME (e.g. header:x-api-key) | field:NAME   (default addr)\n"
    "  --trace-time FIELD[:s|ms|us]  jsonl: the time field (default time, seconds; strings ISO 8601)\n"
    "  --trace-filter F     path=/exact | path=/prefix* | an RE2 regex on the request line\n"
    "  --trace-burst        keep one-second log times ($time_local) as same-instant bursts\n"
    "                       (the worst case); by default the requests logged in one second\n"
    "                       are spread evenly within it. $msec and fractional times are exact.\n"
    "  --strict             any malformed line is an error (exit 2); by default they are\n"
    "                       counted and the first line numbers reported\n"
    "  --speed X            replay on the wall clock X times faster than logged (open model:\n"
    "                       late and dropped sends counted); implies --clock client unless\n"
    "                       --clock server is given. Without it: virtual clock, as fast as\n"
    "                       possible, decisions on the logged times exactly.\n"
    "  --compare-backend B[,B..]  the same storm again on these backends, reported beside it\n"
    "  --compare-policies P[,P..]  open,closed,local: the same storm once per --on-redis-error policy, all\n"
    "                       at the same time (one --fault schedule hits them all)\n"
    "  --compare-wait-replicas N[,N..]  with --failover on redis-lua: the failover storm once per WAIT\n"
    "                       setting, one after the other, each on a fresh private cluster\n"
    "  --http-target URL[,URL..]  --backend http: RateLab replicas (see `serve`) or any HTTP limiter:\n"
    "                       2xx admitted, --http-deny-status (default 429) denied, anything else an error\n"
    "  --http-method M --http-header 'Name: value' (repeatable) --http-body TEXT\n"
    "  --http-key header:NAME|source-addr   the client as a header (default header:x-api-key) or as\n"
    "                       its own 127.x.y.z, fresh per run (per-IP limits, e.g. nginx $binary_remote_addr)\n"
    "  --http-deny-status S[,S..]  e.g. 429,503 (nginx's default limit_req_status is 503)\n"
    "  --http-timeout-ms N  bound of each connect / send / answer (default 2000, 1 to 60000). A request\n"
    "                       without an answer is an outage for --on-redis-error; after 3 in a row the\n"
    "                       target is down: requests fail at once for 100 ms (doubling to 1 s), then one\n"
    "                       probe goes through. The first outage is printed (target and cause)\n"
    "  --cacert FILE --insecure   https targets: trust this PEM's CAs, or accept any certificate\n"
    "  --script FILE        --backend redis-script: your Lua limiter; --script-keys T --script-argv T\n"
    "                       (placeholders {client} {prefix} {limit} {window_ms} {window_s} {refill_rate}\n"
    "                       {now_us} {now_ms} {now_s} {cost}); --script-reply 'allowed,remaining'\n"
    "  --wait-replicas N [--wait-timeout-ms T]  redis-lua: WAIT N T after each admitting write;\n"
    "                       fewer acks make the decision an error for --on-redis-error (default T 50)\n"
    "  --read-from master|replica  redis-naive: read the count from a replica the Sentinels name, write to the\n"
    "                       master (Python limits' use_replicas=True): stale reads under lag or a failover\n"
    "  --failover break@MS,kill@MS,promote@MS[,rejoin@MS]  with --redis cluster: break the replication of\n"
    "                       the master holding the first key, kill it, promote its replica; reports lost writes\n"
    "  --failover natural:kill@MS  with --redis sentinel or cluster: SIGKILL the master holding the first key\n"
    "                       and let the Sentinels or the Cluster elect; reports lost writes per algorithm, the\n"
    "                       time without a master, the policy's decisions, NOSCRIPT reloads, overshoot\n"
    "  --failover sentinel-failover@MS  with a redis+sentinel:// URL or --redis sentinel: SENTINEL FAILOVER\n"
    "fault injection (on the managed redis-server only; needs --clock client|server and rate-driven traffic):\n"
    "  --fault F[,F..]      kill@T          SIGKILL the server (down until a restart)\n"
    "                       restart@T       start it again, same port and dir (its data is gone)\n"
    "                       pause@S:E       SIGSTOP from S to E (connects succeed, nothing answers)\n"
    "                       latency@S:E:MS  the server stalls MS at a time (DEBUG SLEEP, 1 ms apart)\n"
    "                       oom@S:E         CONFIG SET maxmemory 1, noeviction: writes get OOM\n"
    "                       readonly@S:E    REPLICAOF a dead port: writes get READONLY\n"
    "                       T, S, E: ms since the run's start; a window may be S+DURATION; windows\n"
    "                       may not overlap. E.g. --fault pause@1000:2500,kill@3000,restart@4000\n"
    "                       Reported per fault: decisions, admitted / denied / errors by cause, the\n"
    "                       policy's decisions, p99 and max latency, answers later than the command\n"
    "                       timeout + 50 ms, and the time to the first good answer after it\n"
    "  --json               one JSON document on stdout\n"
    "  --csv FILE           every decision as a row\n"
    "  --report FILE.html   one self-contained HTML report (what ran, the table, the lanes and\n"
    "                       levels, the run document as JSON); opens offline\n"
    "  --settings           every setting: its flag, its scenario key, what it allows\n";

// Ctrl-C cancels the run and prints what was recorded. With a private
// redis-server its own handler (stop the server, exit) stays in charge.
void cancelOnInterrupt(const std::optional<RedisTarget>& redis) {
  if (!(redis && redis->managed())) catchInterrupt();
}


// Reachability of the HTTP target(s) at start: exit 3 when down.
int checkHttp(const StormSpec& spec) {
  if (spec.backend != Backend::Http) return kExitOk;
  if (auto ok = checkHttpTargets(spec.http.targets, spec.http.timeout, {spec.http.caFile, spec.http.insecure}); !ok) {
    if (ok.error().code != ErrorCode::Unavailable) return badInput("run", ok.error());
    std::fprintf(stderr, "ratelab-cli run: cannot reach the HTTP target: %s\n", ok.error().message.c_str());
    return kExitNoRedis;
  }
  return kExitOk;
}

// The Redis of a run: --redis, the embedded default, or (--fault, --redis managed) a private
// server the faults are done to (DEBUG allowed for latency faults).
int resolveRunTarget(const StormSpec& spec, std::optional<RedisTarget>& redis) {
  std::optional<std::string> url;
  if (!spec.redisUrl.empty()) url = spec.redisUrl;
  ManagedServerOptions managed;
  if (!spec.faults.empty()) {
    if (url && *url != kManagedRedis)
      return badInput("run", invalidArgument("--fault acts on the redis-server RateLab starts itself: allowed with "
                                             "--redis managed or without --redis, not --redis " + redactRedisUrl(*url)));
    url = std::string(kManagedRedis);
    for (const FaultEvent& e : spec.faults)
      if (e.kind == FaultKind::Latency) managed.extraArgs = {"--enable-debug-command", "local"};
  }
  return resolveRedisTarget(url, "run", redis, managed);
}

std::string differenceLine(const ExperimentRun& first, const ExperimentRun& other) {
  if (other.spec.modelsTarget) {  // each model against the target, request by request
    const auto agreement = modelAgreement(first.outcome, other.outcome, other.spec.algorithms.size());
    std::string line = "decisions that differ from the target's, on its arrivals:";
    for (std::size_t i = 0; i < agreement.size(); ++i)
      line += (i == 0 ? " " : ", ") + std::string(algorithmName(other.spec.algorithms[i])) + " " +
              std::to_string(agreement[i].differing) + " of " + std::to_string(agreement[i].compared);
    return line;
  }
  const DecisionDifferences d = decisionDifferences(first, other);
  std::string line = "decisions that differ between " + std::string(backendName(first.spec.backend)) + " and " +
                     std::string(backendName(other.spec.backend)) + ": " + std::to_string(d.count) + " of " +
                     std::to_string(d.compared);
  for (std::size_t i = 0; i < d.firstAtUs.size(); ++i)
    line += (i == 0 ? " (at " : ", ") + std::to_string(d.firstAtUs[i] / 1000) + " ms";
  return line + (d.firstAtUs.empty() ? "" : d.count > 6 ? ", ...)" : ")");
}

// The Redis version for the report, when a Redis backend ran ("" otherwise).
std::string redisVersionOf(const ExperimentResult& result, const std::optional<RedisTarget>& redis) {
  return ranOnRedis(result) && redis ? redisVersion(redis->endpoint) : std::string();
}

// --report FILE.html: the experiment's self-contained report.
int writeRunReport(const ExperimentResult& result, const Args& args, const Flags& flags,
                   const std::optional<RedisTarget>& redis) {
  if (!flags.has("report")) return kExitOk;
  ReportHeader header;
  header.scenario = flags.get("scenario").value_or("");
  header.title = "ratelab-cli run";
  if (!header.scenario.empty())  // the scenario's own name ("Window boundary"); it was read and checked already
    if (auto text = readWholeFile(header.scenario, "--scenario"))
      if (auto doc = parseJson(*text); doc && doc->is_object() && doc->value("name", Json()).is_string())
        header.title = (*doc)["name"].get<std::string>();
  header.command = commandLine("run", args);
  header.redisVersion = redisVersionOf(result, redis);
  return writeReportFlag("run", flags, experimentReportHtml(result, header));
}

int reportRuns(const ExperimentResult& result, const Flags& flags) {
  const auto& runs = result.runs;
  if (auto csv = flags.get("csv"); csv && !runs.empty()) {
    if (auto ok = writeDecisionsCsv(*csv, runs.front().spec, runs.front().outcome); !ok)
      return badInput("run", invalidArgument("--csv: " + ok.error().message));
  }
  if (flags.has("json")) {
    std::printf("%s\n", dumpJson(runDocument(result), 2).c_str());
    return kExitOk;
  }
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const ExperimentRun& run = runs[i];
    if (i > 0) std::printf("\n");
    if (runs.size() > 1)
      std::printf("run %zu of %zu: %s, --on-redis-error %s\n", i + 1, runs.size(), backendLabel(run.spec).c_str(),
                  std::string(failurePolicyName(run.spec.resilience.onRedisError)).c_str());
    const auto metrics = computeMetrics(run.spec, run.outcome);
    printRunTable(stdout, run.spec, run.outcome, metrics);
    if (run.failover) printFailover(stdout, failoverWithOvershoot(run, metrics));
    if (run.faults) printFaultReport(stdout, run.spec, run.outcome, *run.faults);
  }
  if (runs.size() > 1 && runs[0].spec.backend != runs[1].spec.backend)
    for (std::size_t i = 1; i < runs.size(); ++i) std::printf("%s\n", differenceLine(runs[0], runs[i]).c_str());
  return kExitOk;
}

// The CLI's face of the experiment: the progress line, and what a failed start means.
class CliObserver final : public ExperimentObserver {
 public:
  void progressed(const StormProgress& p) override {
    if (progress_) progress_(p);
  }
  void records(int, const StormRunner&, std::vector<DecisionRecord>&) override {}

 private:
  std::function<void(const StormProgress&)> progress_ = progressLine();
};

int runAndReport(const StormSpec& spec, std::optional<RedisTarget>& redis, const Args& args, const Flags& flags) {
  ExperimentTarget target;
  if (redis)
    target = {redis->endpoint, redis->server ? &*redis->server : nullptr, redis->cluster ? &*redis->cluster : nullptr,
              redis->sentinel ? &*redis->sentinel : nullptr, false};
  CliObserver observer;
  auto result = runExperiment(spec, target, observer, &interruptFlag(), storeRetries);
  endProgressLine();
  if (!result) {
    if (result.error().code == ErrorCode::InvalidArgument) return badInput("run", result.error());
    std::fprintf(stderr, "ratelab-cli run: %s\n", printableText(result.error().message).c_str());
    return kExitFailed;
  }
  for (const ExperimentRun& run : result->runs) {
    const StormOutcome& o = run.outcome;
    if (o.failure) {
      const bool down = o.failure->code == ErrorCode::Unavailable;
      const bool bad = o.failure->code == ErrorCode::InvalidArgument;
      std::fprintf(stderr, "ratelab-cli run: %s%s\n",
                   down && redis ? ("cannot reach Redis at " + redis->endpoint.address() + ": ").c_str() : "",
                   printableText(o.failure->message).c_str());
      return down ? kExitNoRedis : bad ? kExitBadInput : kExitFailed;
    }
    if (o.firstDecisionError)
      std::fprintf(stderr, "ratelab-cli run: %s: first error: %s\n", std::string(backendName(run.spec.backend)).c_str(),
                   printableText(o.firstDecisionError->message).c_str());
    if (o.firstOutage)  // one line: which server was down and why; the table counts what the policy decided
      std::fprintf(stderr, "ratelab-cli run: %s: down, --on-redis-error %s decided: first outage: %s\n",
                   std::string(backendName(run.spec.backend)).c_str(),
                   std::string(failurePolicyName(run.spec.resilience.onRedisError)).c_str(),
                   printableText(o.firstOutage->message).c_str());
  }
  if (const int rc = writeRunReport(*result, args, flags, redis); rc != kExitOk) return rc;
  if (const int rc = reportRuns(*result, flags); rc != kExitOk) return rc;
  if (result->cancelled) return interruptedExitCode();  // Ctrl-C: what was recorded, then 130
  // A decision error that no failure policy covers (a wrong script reply, a
  // looping script, an unexpected HTTP status) fails the run; an outage (Redis
  // or the HTTP target down) is the policy's, as --on-redis-error says.
  for (const ExperimentRun& r : result->runs) {
    if (r.faults && !faultActionsOk(*r.faults)) return kExitFailed;  // the faults asked for did not all happen
    if (r.outcome.firstDecisionError && r.outcome.firstDecisionError->code != ErrorCode::Unavailable) return kExitFailed;
    if (r.failover && r.spec.failover->kind != FailoverPlan::Kind::Scripted && r.failover->electedAt.count() < 0)
      return kExitFailed;  // nobody was elected
  }
  return kExitOk;
}
}  // namespace

int cmdRun(const Args& args) {
  auto allowed = stormFlags();
  allowed.insert(allowed.end(), {{"json", false}, {"csv", true}, {"report", true}, {"help", false}, {"settings", false}});
  auto flags = Flags::parse(args, allowed);
  if (!flags) return badInput("run", flags.error());
  if (flags->has("help")) {
    std::fputs(kRunHelp, stdout);
    return kExitOk;
  }
  if (flags->has("settings")) {
    std::fputs(stormSettingsTable().c_str(), stdout);
    return kExitOk;
  }
  auto parsed = specFromFlags(flags.value());
  if (!parsed) return badInput("run", parsed.error());
  StormSpec spec = std::move(parsed.value());
  if (flags->has("speed") && !flags->has("clock")) spec.clock = ClockMode::Client;  // documented in --help
  if (auto ok = loadStormTrace(spec); !ok) return badInput("run", ok.error());
  if (spec.traceData && flags->has("json")) std::fprintf(stderr, "trace: %s\n", spec.traceData->summary().c_str());
  if (spec.requests == 0 && spec.duration.count() == 0)  // documented default: twice the limit, at most 1,000,000
    spec.requests = std::min<std::int64_t>(2 * spec.quota.limit, 1'000'000);
  if (auto ok = validate(spec); !ok) return badInput("run", ok.error());
  printScriptWarnings(spec.script);
  if (int rc = checkReportFlag("run", *flags); rc != kExitOk) return rc;  // before the run, not after it

  if (int rc = checkHttp(spec); rc != kExitOk) return rc;
  std::optional<RedisTarget> redis;
  const auto specs = experimentRuns(spec);
  // Redis and HTTP targets keep state between runs: every run gets its own client keys.
  if (spec.runTag.empty() && std::any_of(specs.begin(), specs.end(), [](const StormSpec& s) {
        return isRedisBackend(s.backend) || s.backend == Backend::Http;
      }))
    spec.runTag = freshRunTag("run");
  if (std::any_of(specs.begin(), specs.end(), [](const StormSpec& s) { return isRedisBackend(s.backend); })) {
    const bool freshSets = spec.failover && !spec.compareWaitReplicas.empty();  // each run starts its own
    if (!freshSets)
      if (int rc = resolveRunTarget(spec, redis); rc != kExitOk) return rc;
  }
  if (spec.failover && !spec.compareBackends.empty())
    return badInput("run", invalidArgument("--failover runs one storm: allowed without --compare-backend"));
  if (spec.failover && spec.failover->kind == FailoverPlan::Kind::Scripted && spec.compareWaitReplicas.empty() &&
      !(redis && redis->cluster))
    return badInput("run", invalidArgument("--failover needs --redis cluster (a private cluster whose nodes RateLab "
                                           "may kill): allowed with a Redis backend only"));
  cancelOnInterrupt(redis);
  return runAndReport(spec, redis, args, flags.value());
}

}  // namespace rl::cli
