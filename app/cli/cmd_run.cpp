// ratelab-cli run: one storm; a summary table, --json, --csv FILE.
#include <algorithm>
#include <csignal>
#include <cstdio>

#include "cli_flags.hpp"
#include "common/printable_text.hpp"
#include "commands.hpp"
#include "fault_report.hpp"
#include "interrupt.hpp"
#include "metrics/storm_metrics.hpp"
#include "progress_line.hpp"
#include "redis_target.hpp"
#include "run_report.hpp"
#include "storm/compared_runs.hpp"
#include "storm/key_tag.hpp"
#include "storm/natural_failover.hpp"
#include "storm/store_factory.hpp"
#if RATELAB_HAVE_HTTP
#include "http/http_store.hpp"
#endif

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
    "  --on-redis-error open|closed|local --think-ms MS --prefix P --key-tag T\n"
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
    "  --http-target URL[,URL..]  --backend http: RateLab replicas (see `serve`) or any HTTP limiter:\n"
    "                       2xx admitted, --http-deny-status (default 429) denied, anything else an error\n"
    "  --http-method M --http-header 'Name: value' (repeatable) --http-body TEXT\n"
    "  --http-key header:NAME|source-addr   the client as a header (default header:x-api-key) or as\n"
    "                       the source address 127.0.0.2+i (per-IP limits, e.g. nginx $binary_remote_addr)\n"
    "  --http-deny-status S[,S..]  e.g. 429,503 (nginx's default limit_req_status is 503)\n"
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
    "  --csv FILE           every decision as a row\n";

// Ctrl-C cancels the run and prints what was recorded. With a private
// redis-server its own handler (stop the server, exit) stays in charge.
void cancelOnInterrupt(const std::optional<RedisTarget>& redis) {
  if (!(redis && redis->managed())) catchInterrupt();
}


Result<StoreFactory> makeFactory(const StormSpec& spec, const std::optional<RedisTarget>& redis) {
#if RATELAB_HAVE_HTTP
  if (spec.backend == Backend::Http) return httpStoreFactory(spec.httpTargets, httpStoreOptions(spec));
#endif
  return storeFactoryFor(spec, redis ? redis->endpoint : RedisEndpoint{});
}

// Reachability of the HTTP target(s) at start: exit 3 when down.
int checkHttp(const StormSpec& spec) {
#if RATELAB_HAVE_HTTP
  if (spec.backend != Backend::Http) return kExitOk;
  if (auto ok = checkHttpTargets(spec.httpTargets, Micros{2'000'000}, {spec.httpCaFile, spec.httpInsecure}); !ok) {
    if (ok.error().code != ErrorCode::Unavailable) return badInput("run", ok.error());
    std::fprintf(stderr, "ratelab-cli run: cannot reach the HTTP target: %s\n", ok.error().message.c_str());
    return kExitNoRedis;
  }
#else
  (void)spec;
#endif
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

struct Ran {
  StormSpec spec;        ///< what ran
  StormOutcome outcome;  ///< what it recorded
  std::optional<FaultRun> faults;  ///< --fault: what the injector did
};

// Decisions of `b` that differ from `a` (same plan, same order), and the first few times.
struct Differences {
  std::int64_t count = 0;                 ///< decisions with a different allowed bit
  std::int64_t compared = 0;              ///< decisions compared
  std::vector<std::int64_t> firstAtUs;    ///< intended times of the first few
};

// Lane by lane: the decisions of each of a's algorithms beside the same
// algorithm's decisions in b (a script run has one lane; the built-ins beside it may have six).
Differences differences(const Ran& a, const Ran& b) {
  Differences d;
  for (std::size_t la = 0; la < a.spec.algorithms.size(); ++la) {
    const auto it = std::find(b.spec.algorithms.begin(), b.spec.algorithms.end(), a.spec.algorithms[la]);
    if (it == b.spec.algorithms.end()) continue;
    const auto lb = static_cast<std::size_t>(it - b.spec.algorithms.begin());
    std::vector<const DecisionRecord*> theirs;
    for (const DecisionRecord& r : b.outcome.records)
      if (r.algorithm() == lb) theirs.push_back(&r);
    std::size_t i = 0;
    for (const DecisionRecord& r : a.outcome.records) {
      if (r.algorithm() != la) continue;
      if (i >= theirs.size()) break;
      ++d.compared;
      if (r.allowed() != theirs[i++]->allowed()) {
        if (d.firstAtUs.size() < 6) d.firstAtUs.push_back(r.intendedUs());
        ++d.count;
      }
    }
  }
  return d;
}

std::string differenceLine(const Ran& first, const Ran& other, const Differences& d) {
  std::string line = "decisions that differ between " + std::string(backendName(first.spec.backend)) + " and " +
                     std::string(backendName(other.spec.backend)) + ": " + std::to_string(d.count) + " of " +
                     std::to_string(d.compared);
  for (std::size_t i = 0; i < d.firstAtUs.size(); ++i)
    line += (i == 0 ? " (at " : ", ") + std::to_string(d.firstAtUs[i] / 1000) + " ms";
  return line + (d.firstAtUs.empty() ? "" : d.count > 6 ? ", ...)" : ")");
}

int reportRuns(const std::vector<Ran>& ran, const Flags& flags, const FailoverReport* failover = nullptr) {
  Json runs = Json::array();
  for (std::size_t i = 0; i < ran.size(); ++i) {
    const auto& [spec, outcome, faults] = ran[i];
    const auto metrics = computeMetrics(spec, outcome);
    if (auto csv = flags.get("csv"); csv && i == 0) {
      if (auto ok = writeDecisionsCsv(*csv, spec, outcome); !ok) return badInput("run", ok.error());
    }
    if (flags.has("json")) {
      const Json doc = runJson(spec, outcome, metrics);
      int algo = 0;
      for (Json r : doc["runs"]) {
        if (i > 0) r["decisions_differing_from_first_run"] = differences(ran[0], ran[i]).count;
        if (faults) {
          r["faults"] = faultsJson(spec, outcome, *faults, algo);
          r["fault_actions"] = faultActionsJson(*faults);
        }
        ++algo;
        runs.push_back(std::move(r));
      }
    } else {
      if (i > 0) std::printf("\n");
      printRunTable(stdout, spec, outcome, metrics);
      if (failover) printFailover(stdout, *failover);
      if (faults) printFaultReport(stdout, spec, outcome, *faults);
    }
  }
  if (!flags.has("json"))
    for (std::size_t i = 1; i < ran.size(); ++i)
      std::printf("%s\n", differenceLine(ran[0], ran[i], differences(ran[0], ran[i])).c_str());
  if (flags.has("json")) {
    Json doc;
    doc["runs"] = std::move(runs);
    if (failover) doc["failover"] = failoverJson(*failover);
    if (ran.front().spec.traceData) doc["trace"] = traceJson(*ran.front().spec.traceData);
    std::printf("%s\n", dumpJson(doc, 2).c_str());
  }
  return kExitOk;
}

// --failover: the storm on the private cluster, with its nodes killed and promoted.
int runWithFailover(const StormSpec& spec, const StoreFactory& factory, RedisTarget& redis, const Flags& flags) {
  auto run = runFailoverStorm(spec, factory, *redis.cluster, FailoverWatch{progressLine(), {}}, storeRetries);
  endProgressLine();
  if (!run) {
    if (run.error().code == ErrorCode::InvalidArgument) return badInput("run", run.error());
    std::fprintf(stderr, "ratelab-cli run: %s\n", printableText(run.error().message).c_str());
    return kExitFailed;
  }
  return reportRuns({Ran{spec, std::move(run->outcome), std::nullopt}}, flags, &run->report);
}
// --failover natural:kill@MS | sentinel-failover@MS: Redis elects; the report is core's.
int runWithNaturalFailover(const StormSpec& spec, RedisTarget& redis, const Flags& flags) {
  const NaturalFailoverTarget target{redis.endpoint, redis.cluster ? &*redis.cluster : nullptr,
                                     redis.sentinel ? &*redis.sentinel : nullptr};
  auto run = runNaturalFailoverStorm(spec, target, FailoverWatch{progressLine(), {}}, storeRetries);
  endProgressLine();
  if (!run) {
    if (run.error().code == ErrorCode::InvalidArgument) return badInput("run", run.error());
    std::fprintf(stderr, "ratelab-cli run: %s\n", run.error().message.c_str());
    return kExitFailed;
  }
  const auto metrics = computeMetrics(spec, run->outcome.records, run->outcome.wallDuration);
  for (std::size_t i = 0; i < run->report.keys.size() && i < metrics.size(); ++i)
    run->report.keys[i].overshoot = metrics[i].overshoot;
  const bool elected = run->report.electedAt.count() >= 0;
  const int rc = reportRuns({Ran{spec, std::move(run->outcome), std::nullopt}}, flags, &run->report);
  return rc != kExitOk ? rc : elected ? kExitOk : kExitFailed;
}
}  // namespace

int cmdRun(const Args& args) {
  auto allowed = stormFlags();
  allowed.insert(allowed.end(), {{"json", false}, {"csv", true}, {"help", false}});
  auto flags = Flags::parse(args, allowed);
  if (!flags) return badInput("run", flags.error());
  if (flags->has("help")) {
    std::fputs(kRunHelp, stdout);
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

  if (int rc = checkHttp(spec); rc != kExitOk) return rc;
  std::optional<RedisTarget> redis;
  const auto specs = comparedRuns(spec);
  // Redis and HTTP targets keep state between runs: every run gets its own client keys.
  if (spec.keyTag.empty() && std::any_of(specs.begin(), specs.end(), [](const StormSpec& s) {
        return isRedisBackend(s.backend) || s.backend == Backend::Http;
      }))
    spec.keyTag = freshKeyTag("run");
  if (std::any_of(specs.begin(), specs.end(), [](const StormSpec& s) { return isRedisBackend(s.backend); })) {
    if (int rc = resolveRunTarget(spec, redis); rc != kExitOk) return rc;
  }
  if (spec.failover && spec.failover->kind != FailoverPlan::Kind::Scripted) {
    if (!spec.compareBackends.empty())
      return badInput("run", invalidArgument("--failover runs one storm: allowed without --compare-backend"));
    return runWithNaturalFailover(spec, *redis, flags.value());
  }
  if (spec.failover && !(redis && redis->cluster))
    return badInput("run", invalidArgument("--failover needs --redis cluster (a private cluster whose nodes RateLab "
                                           "may kill): allowed with a Redis backend only"));
  if (spec.failover) {
    if (!spec.compareBackends.empty())
      return badInput("run", invalidArgument("--failover runs one storm: allowed without --compare-backend"));
    auto factory = makeFactory(spec, redis);
    if (!factory) return badInput("run", factory.error());
    return runWithFailover(spec, factory.value(), *redis, flags.value());
  }
  cancelOnInterrupt(redis);
  std::vector<Ran> ran;
  for (const StormSpec& s : comparedRuns(spec)) {
    auto factory = makeFactory(s, redis);
    if (!factory) return badInput("run", factory.error());
    std::optional<FaultInjector> injector;  // --fault: timed from the storm's start
    if (!s.faults.empty()) injector.emplace(*redis->server, s.faults);
    std::function<void(std::int64_t)> onStart;
    if (injector) onStart = [&injector](std::int64_t origin) { injector->start(origin); };
    auto outcome = runStorm(s, factory.value(), progressLine(), storeRetries, &interruptFlag(), onStart);
    std::optional<FaultRun> faults;
    if (injector) {
      injector->stop();
      faults = FaultRun{injector->windows(), injector->actions(), redis->endpoint.commandTimeout};
    }
    endProgressLine();
    if (!outcome) {
      const bool down = outcome.error().code == ErrorCode::Unavailable;
      const bool bad = outcome.error().code == ErrorCode::InvalidArgument;
      std::fprintf(stderr, "ratelab-cli run: %s%s\n",
                   down && redis ? ("cannot reach Redis at " + redis->endpoint.address() + ": ").c_str() : "",
                   printableText(outcome.error().message).c_str());
      return down ? kExitNoRedis : bad ? kExitBadInput : kExitFailed;
    }
    if (outcome->firstDecisionError)
      std::fprintf(stderr, "ratelab-cli run: %s: first error: %s\n", std::string(backendName(s.backend)).c_str(),
                   printableText(outcome->firstDecisionError->message).c_str());
    const bool cancelled = outcome->cancelled;
    ran.push_back({std::move(s), std::move(outcome).value(), std::move(faults)});
    if (cancelled) break;
  }
  const int rc = reportRuns(ran, flags.value());
  if (rc != kExitOk) return rc;
  if (ran.back().outcome.cancelled) return interruptedExitCode();  // Ctrl-C: what was recorded, then 130
  // A decision error that no failure policy covers (a wrong script reply, an
  // unexpected HTTP status, a target that stopped answering) fails the run.
  for (const Ran& r : ran) {
    if (r.faults && !faultActionsOk(*r.faults)) return kExitFailed;  // the faults asked for did not all happen
    if (r.outcome.firstDecisionError && r.outcome.firstDecisionError->code != ErrorCode::Unavailable) return kExitFailed;
  }
  return kExitOk;
}

}  // namespace rl::cli
