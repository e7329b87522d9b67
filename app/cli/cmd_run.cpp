// ratelab-cli run: one storm; a summary table, --json, --csv FILE.
#include <algorithm>
#include <csignal>
#include <cstdio>

#include "cli_flags.hpp"
#include "commands.hpp"
#include "interrupt.hpp"
#include "metrics/storm_metrics.hpp"
#include "progress_line.hpp"
#include "redis_target.hpp"
#include "run_report.hpp"
#include "storm/store_factory.hpp"
#if RATELAB_HAVE_HTTP
#include "http/http_store.hpp"
#include "storm/key_tag.hpp"
#endif

namespace rl::cli {

namespace {
constexpr const char* kRunHelp =
    "usage: ratelab-cli run [options]\n"
    "  --scenario FILE      a JSON scenario (keys as below with _); flags override it\n"
    "  --backend B          memory | redis-lua | redis-naive | redis-watch   (default memory)\n"
    "  --redis URL          redis://[user:password@]host:port[/db] (default: embedded)\n"
    "  --algorithm A[,A..]  fixed_window sliding_log sliding_counter token_bucket\n"
    "                       leaky_bucket gcra | all                          (default fixed_window)\n"
    "  --limit N --window-ms MS --refill-rate R --cost N\n"
    "  --replicas K --clients N --requests N --duration-ms MS --rate RPS --concurrency C\n"
    "                       (--requests defaults to twice the limit, at most 1000000)\n"
    "  --pattern burst|constant|boundary|ramp|poisson --seed N\n"
    "  --clock server|client|virtual (default virtual) --skew-ms a,b,..\n"
    "  --on-redis-error open|closed|local --think-ms MS --prefix P --key-tag T\n"
    "  --http-target URL[,URL..]  --backend http: limiter replicas (see `serve`)\n"
    "trace replay (real traffic instead of --pattern; clients are the log's keys):\n"
    "  --trace FILE         an access log, JSONL or CSV file; .gz is read directly\n"
    "  --trace-format F     combined | common | nginx:'<log_format>' | jsonl | csv\n"
    "                       (default: detected from the first lines when unambiguous)\n"
    "  --trace-key K        addr | header:NAME (e.g. header:x-api-key) | field:NAME   (default addr)\n"
    "  --trace-time FIELD[:s|ms|us]  jsonl: the time field (default time, seconds; strings ISO 8601)\n"
    "  --trace-filter F     path=/exact | path=/prefix* | a regex on the request line\n"
    "  --trace-burst        keep one-second log times ($time_local) as same-instant bursts\n"
    "                       (the worst case); by default the requests logged in one second\n"
    "                       are spread evenly within it. $msec and fractional times are exact.\n"
    "  --strict             any malformed line is an error (exit 2); by default they are\n"
    "                       counted and the first line numbers reported\n"
    "  --speed X            replay on the wall clock X times faster than logged (open model:\n"
    "                       late and dropped sends counted); implies --clock client unless\n"
    "                       --clock server is given. Without it: virtual clock, as fast as\n"
    "                       possible, decisions on the logged times exactly.\n"
    "  --json               one JSON document on stdout\n"
    "  --csv FILE           every decision as a row\n";

// Ctrl-C cancels the run and prints what was recorded. With a private
// redis-server its own handler (stop the server, exit) stays in charge.
void cancelOnInterrupt(const std::optional<RedisTarget>& redis) {
  if (!(redis && redis->server)) catchInterrupt();
}



Result<StoreFactory> makeFactory(const StormSpec& spec, const std::optional<RedisTarget>& redis) {
#if RATELAB_HAVE_HTTP
  if (spec.backend == Backend::Http) return httpStoreFactory(spec.httpTargets);
#endif
  return storeFactoryFor(spec, redis ? redis->endpoint : RedisEndpoint{});
}

int reportRun(const StormSpec& spec, const StormOutcome& outcome, const Flags& flags) {
  const auto metrics = computeMetrics(spec, outcome.records, outcome.wallDuration);
  if (auto csv = flags.get("csv")) {
    if (auto ok = writeDecisionsCsv(*csv, spec, outcome); !ok) return badInput("run", ok.error());
  }
  if (flags.has("json"))
    std::printf("%s\n", dumpJson(runJson(spec, outcome, metrics), 2).c_str());
  else
    printRunTable(stdout, spec, outcome, metrics);
  return kExitOk;
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

  std::optional<RedisTarget> redis;
  if (isRedisBackend(spec.backend)) {
    if (spec.keyTag.empty()) spec.keyTag = freshKeyTag("run");
    if (int rc = resolveRedisTarget(spec.redisUrl.empty() ? std::nullopt : std::optional(spec.redisUrl), "run", redis);
        rc != kExitOk)
      return rc;
  }
  auto factory = makeFactory(spec, redis);
  if (!factory) return badInput("run", factory.error());
  cancelOnInterrupt(redis);
  auto outcome = runStorm(spec, factory.value(), progressLine(), storeRetries, &interruptFlag());
  endProgressLine();
  if (!outcome) {
    const bool down = outcome.error().code == ErrorCode::Unavailable;
    std::fprintf(stderr, "ratelab-cli run: %s%s\n", down && redis ? ("cannot reach Redis at " + redis->endpoint.address() + ": ").c_str() : "",
                 outcome.error().message.c_str());
    return down ? kExitNoRedis : kExitFailed;
  }
  const int rc = reportRun(spec, outcome.value(), flags.value());
  return rc == kExitOk && outcome->cancelled ? interruptedExitCode() : rc;  // Ctrl-C: what was recorded, then 130
}

}  // namespace rl::cli
