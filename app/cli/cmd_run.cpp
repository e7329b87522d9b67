// ratelab-cli run: one storm; a summary table, --json, --csv FILE.
#include <algorithm>
#include <csignal>
#include <cstdio>

#include "cli_flags.hpp"
#include "commands.hpp"
#include "metrics/storm_metrics.hpp"
#include "progress_line.hpp"
#include "redis_target.hpp"
#include "run_report.hpp"
#include "storm/store_factory.hpp"
#if RATELAB_HAVE_HTTP
#include "http/http_store.hpp"
#endif

namespace rl::cli {

namespace {
constexpr const char* kRunHelp =
    "usage: ratelab-cli run [options]\n"
    "  --scenario FILE      a JSON scenario (keys as below with _); flags override it\n"
    "  --backend B          memory | redis-lua | redis-naive | redis-watch   (default memory)\n"
    "  --redis URL          redis://[user:password@]host:port[/db] | redis+cluster://host:port[,host:port..]\n"
    "                       | cluster (a private 3+3 cluster) (default: embedded)\n"
    "  --algorithm A[,A..]  fixed_window sliding_log sliding_counter token_bucket\n"
    "                       leaky_bucket gcra | all                          (default fixed_window)\n"
    "  --limit N --window-ms MS --refill-rate R --cost N\n"
    "  --replicas K --clients N --requests N --duration-ms MS --rate RPS --concurrency C\n"
    "                       (--requests defaults to twice the limit, at most 1000000)\n"
    "  --pattern burst|constant|boundary|ramp|poisson --seed N\n"
    "  --clock server|client|virtual (default virtual) --skew-ms a,b,..\n"
    "  --on-redis-error open|closed|local --think-ms MS --prefix P --key-tag T\n"
    "  --http-target URL[,URL..]  --backend http: limiter replicas (see `serve`)\n"
    "  --wait-replicas N [--wait-timeout-ms T]  redis-lua: WAIT N T after each admitting write;\n"
    "                       fewer acks make the decision an error for --on-redis-error (default T 50)\n"
    "  --failover break@MS,kill@MS,promote@MS[,rejoin@MS]  with --redis cluster: break the replication of\n"
    "                       the master holding the first key, kill it, promote its replica; reports lost writes\n"
    "  --json               one JSON document on stdout\n"
    "  --csv FILE           every decision as a row\n";

std::atomic<bool> gInterrupted{false};
extern "C" void onInterrupt(int) { gInterrupted.store(true); }

// Ctrl-C cancels the run and prints what was recorded. With a private
// redis-server its own handler (stop the server, exit) stays in charge.
void cancelOnInterrupt(const std::optional<RedisTarget>& redis) {
  if (redis && (redis->server || redis->cluster)) return;
  struct sigaction sa {};
  sa.sa_handler = onInterrupt;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
}



Result<StoreFactory> makeFactory(const StormSpec& spec, const std::optional<RedisTarget>& redis) {
#if RATELAB_HAVE_HTTP
  if (spec.backend == Backend::Http) return httpStoreFactory(spec.httpTargets);
#endif
  return storeFactoryFor(spec, redis ? redis->endpoint : RedisEndpoint{});
}

int reportRun(const StormSpec& spec, const StormOutcome& outcome, const Flags& flags,
              const FailoverReport* failover = nullptr) {
  const auto metrics = computeMetrics(spec, outcome.records, outcome.wallDuration);
  if (auto csv = flags.get("csv")) {
    if (auto ok = writeDecisionsCsv(*csv, spec, outcome); !ok) return badInput("run", ok.error());
  }
  if (flags.has("json")) {
    Json doc = runJson(spec, outcome, metrics);
    if (failover) doc["failover"] = failoverJson(*failover);
    std::printf("%s\n", dumpJson(doc, 2).c_str());
  } else {
    printRunTable(stdout, spec, outcome, metrics);
    if (failover) printFailover(stdout, spec, *failover);
  }
  return kExitOk;
}

// --failover: the storm on the private cluster, with its nodes killed and promoted.
int runWithFailover(const StormSpec& spec, const StoreFactory& factory, RedisTarget& redis, const Flags& flags) {
  auto run = runFailoverStorm(spec, factory, *redis.cluster, progressLine(), storeRetries);
  endProgressLine();
  if (!run) {
    if (run.error().code == ErrorCode::InvalidArgument) return badInput("run", run.error());
    std::fprintf(stderr, "ratelab-cli run: %s\n", run.error().message.c_str());
    return kExitFailed;
  }
  return reportRun(spec, run->outcome, flags, &run->report);
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
  if (spec.requests == 0 && spec.duration.count() == 0)  // documented default: twice the limit, at most 1,000,000
    spec.requests = std::min<std::int64_t>(2 * spec.quota.limit, 1'000'000);
  if (auto ok = validate(spec); !ok) return badInput("run", ok.error());

  std::optional<RedisTarget> redis;
  if (isRedisBackend(spec.backend)) {
    if (spec.keyTag.empty()) spec.keyTag = freshKeyTag("run");
    if (int rc = resolveRedisTarget(spec.redisUrl.empty() ? std::nullopt : std::optional(spec.redisUrl), "run", redis);
        rc != kExitOk)
      return rc;
  }
  if (spec.failover && !(redis && redis->cluster))
    return badInput("run", invalidArgument("--failover needs --redis cluster (a private cluster whose nodes RateLab "
                                           "may kill): allowed with a Redis backend only"));
  auto factory = makeFactory(spec, redis);
  if (!factory) return badInput("run", factory.error());
  if (spec.failover) return runWithFailover(spec, factory.value(), *redis, flags.value());
  cancelOnInterrupt(redis);
  auto outcome = runStorm(spec, factory.value(), progressLine(), storeRetries, &gInterrupted);
  endProgressLine();
  if (!outcome) {
    const bool down = outcome.error().code == ErrorCode::Unavailable;
    std::fprintf(stderr, "ratelab-cli run: %s%s\n", down && redis ? ("cannot reach Redis at " + redis->endpoint.address() + ": ").c_str() : "",
                 outcome.error().message.c_str());
    return down ? kExitNoRedis : kExitFailed;
  }
  const int rc = reportRun(spec, outcome.value(), flags.value());
  return rc == kExitOk && outcome->cancelled ? 128 + SIGINT : rc;  // Ctrl-C: what was recorded, then 130
}

}  // namespace rl::cli
