// ratelab-cli bench: the most decisions per second per backend and algorithm.
#include <cmath>
#include <cstdio>

#include "cli_flags.hpp"
#include "commands.hpp"
#include "common/json.hpp"
#include "redis_target.hpp"
#include "storm/storm_settings.hpp"
#include "storm/throughput_bench.hpp"

namespace rl::cli {

namespace {
constexpr const char* kBenchHelp =
    "usage: ratelab-cli bench [options]\n"
    "  --backend B[,B..]    memory | redis-lua | redis-naive | redis-watch | redis-script (default memory)\n"
    "  --redis URL          redis://[user:password@]host:port[/db] | redis+cluster://host:port[,..] | cluster\n"
    "                       | redis+sentinel://host:port[,..]/service[/db] | sentinel\n"
    "                       (default: embedded); a cluster reports decisions/s per master too\n"
    "  --algorithm A[,A..]  algorithms or all                      (default token_bucket)\n"
    "  --concurrency C      connections (redis-lua) or threads with one store each (default 2)\n"
    "  --pipeline P         redis-lua: EVALSHA in flight per connection (default 1)\n"
    "  --threads T          redis-lua: poll() event loops driving the connections (default 2)\n"
    "  --duration-ms MS     wall time per measurement              (default 2000)\n"
    "  --clients N          distinct keys per thread               (default 100000)\n"
    "  --limit N --window-ms MS --refill-rate R   the quota checked (default 100 per 1000 ms)\n"
    "  --path auto|store|wire  redis-lua: wire = event loops (one server), store = one store per thread\n"
    "                       (a cluster always uses store)                   (default auto)\n"
    "  --clock server|client  Redis: the script reads TIME, or gets the client's clock (default server)\n"
    "  --script FILE --script-keys T --script-argv T --script-reply NAMES   --backend redis-script\n"
    "  --json               one JSON document on stdout\n";

Result<BenchSpec> benchSpecFrom(const Flags& f, std::vector<Backend>& backends) {
  BenchSpec s;
  StormSpec storm;  // reuse the storm settings for algorithm and quota parsing
  storm.algorithms = s.algorithms;
  storm.quota = s.quota;
  for (const char* key : {"algorithm", "limit", "window_ms", "refill_rate"}) {
    std::string flag = key;
    for (char& c : flag) c = c == '_' ? '-' : c;
    if (auto v = f.get(flag))
      if (auto ok = applyStormSetting(storm, key, *v, "--" + flag); !ok) return ok.error();
  }
  s.algorithms = storm.algorithms;
  s.quota = storm.quota;
  auto conc = intFlag(f, "concurrency", s.concurrency, 1, 512);
  if (!conc) return conc.error();
  auto pipe = intFlag(f, "pipeline", s.pipeline, 1, 1024);
  if (!pipe) return pipe.error();
  auto threads = intFlag(f, "threads", s.threads, 0, 512);
  if (!threads) return threads.error();
  s.threads = static_cast<int>(threads.value());
  auto dur = intFlag(f, "duration-ms", s.duration.count() / 1000, 10, 3'600'000);
  if (!dur) return dur.error();
  auto keys = intFlag(f, "clients", s.keysPerThread, 1, 10'000'000);
  if (!keys) return keys.error();
  s.concurrency = static_cast<int>(conc.value());
  s.pipeline = static_cast<int>(pipe.value());
  s.duration = Micros{dur.value() * 1000};
  s.keysPerThread = static_cast<int>(keys.value());
  if (auto clock = f.get("clock")) {
    if (*clock != "server" && *clock != "client")
      return invalidArgument("--clock '" + *clock + "' is not valid: allowed server or client");
    s.serverClock = *clock == "server";
  }
  auto script = scriptSettingsFrom(f);
  if (!script) return script.error();
  s.script = std::move(script.value());
  printScriptWarnings(s.script);
  StormSpec b;
  for (const std::string& name : {f.get("backend").value_or("memory")}) {
    std::string_view rest = name;
    while (true) {
      const auto comma = rest.find(',');
      if (auto ok = applyStormSetting(b, "backend", rest.substr(0, comma), "--backend"); !ok) return ok.error();
      backends.push_back(b.backend);
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
  }
  return s;
}

Json benchJson(const std::vector<BenchResult>& results) {
  Json arr = Json::array();
  for (const BenchResult& r : results) {
    Json j;
    j["backend"] = backendName(r.backend);
    j["algorithm"] = algorithmName(r.algorithm);
    j["concurrency"] = r.concurrency;
    j["pipeline"] = r.pipeline;
    j["threads"] = r.threads;
    j["path"] = r.wirePath ? "wire" : "store";
    j["decisions"] = r.decisions;
    j["errors"] = r.errors;
    j["duration_ms"] = static_cast<double>(r.elapsed.count()) / 1000.0;
    j["decisions_per_s"] = static_cast<std::int64_t>(r.perSecond);
    if (!r.perMaster.empty()) {
      Json masters = Json::array();
      const double secs = static_cast<double>(std::max<std::int64_t>(r.elapsed.count(), 1)) / 1e6;
      for (const auto& [node, n] : r.perMaster)
        masters.push_back(Json{{"node", node}, {"decisions", n},
                               {"decisions_per_s", static_cast<std::int64_t>(static_cast<double>(n) / secs)}});
      j["masters"] = std::move(masters);
    }
    if (r.backend != Backend::Memory) j["redis_us_per_decision"] = std::round(r.redisMicros * 100) / 100;
    arr.push_back(std::move(j));
  }
  Json doc;
  doc["results"] = std::move(arr);
  return doc;
}
}  // namespace

int cmdBench(const Args& args) {
  std::vector<FlagSpec> allowed{
      {"backend", true},  {"redis", true},  {"algorithm", true}, {"concurrency", true}, {"pipeline", true},
      {"threads", true},  {"duration-ms", true}, {"clients", true}, {"limit", true}, {"window-ms", true}, {"refill-rate", true},
      {"path", true},     {"clock", true},    {"json", false},    {"help", false}};
  const auto script = scriptFlags();
  allowed.insert(allowed.end(), script.begin(), script.end());
  auto flags = Flags::parse(args, allowed);
  if (!flags) return badInput("bench", flags.error());
  const std::string path = flags->get("path").value_or("auto");
  if (path != "auto" && path != "store" && path != "wire")
    return badInput("bench", invalidArgument("--path '" + path + "' is not valid: allowed auto, store or wire"));
  if (flags->has("help")) {
    std::fputs(kBenchHelp, stdout);
    return kExitOk;
  }
  std::vector<Backend> backends;
  auto spec = benchSpecFrom(flags.value(), backends);
  if (!spec) return badInput("bench", spec.error());
  std::optional<RedisTarget> redis;
  std::vector<BenchResult> all;
  for (Backend b : backends) {
    BenchSpec s = spec.value();
    s.backend = b;
    s.storePath = path == "store";
    if (auto ok = validate(s); !ok) return badInput("bench", ok.error());
    if (b != Backend::Memory && !redis)
      if (int rc = resolveRedisTarget(flags->get("redis"), "bench", redis); rc != kExitOk) return rc;
    if (path == "wire" && (b != Backend::RedisLua || (redis && redis->endpoint.cluster)))
      return badInput("bench", invalidArgument("--path wire needs --backend redis-lua on one server (a cluster is "
                                               "benchmarked on the store path)"));
    auto results = runBench(s, redis ? redis->endpoint : RedisEndpoint{});
    if (!results) {
      std::fprintf(stderr, "ratelab-cli bench: %s\n", results.error().message.c_str());
      return results.error().code == ErrorCode::Unavailable ? kExitNoRedis : kExitFailed;
    }
    all.insert(all.end(), results->begin(), results->end());
  }
  if (flags->has("json")) {
    std::printf("%s\n", dumpJson(benchJson(all), 2).c_str());
    return kExitOk;
  }
  std::printf("%-12s %-16s %-5s %11s %8s %7s %12s %7s %14s %12s\n", "backend", "algorithm", "path", "connections",
              "pipeline", "threads", "decisions", "errors", "decisions/s", "redis us/dec");
  for (const BenchResult& r : all) {
    char us[32] = "-";
    if (r.backend != Backend::Memory) std::snprintf(us, sizeof us, "%.2f", r.redisMicros);
    std::printf("%-12s %-16s %-5s %11d %8d %7d %12lld %7lld %14.0f %12s\n", std::string(backendName(r.backend)).c_str(),
                std::string(algorithmName(r.algorithm)).c_str(), r.wirePath ? "wire" : "store", r.concurrency,
                r.pipeline, r.threads, static_cast<long long>(r.decisions), static_cast<long long>(r.errors),
                r.perSecond, us);
  }
  for (const BenchResult& r : all)
    for (const auto& [node, n] : r.perMaster)
      std::printf("  %-16s %-16s master %-21s %12lld %22.0f\n", std::string(backendName(r.backend)).c_str(),
                  std::string(algorithmName(r.algorithm)).c_str(), node.c_str(), static_cast<long long>(n),
                  static_cast<double>(n) * 1e6 / static_cast<double>(std::max<std::int64_t>(r.elapsed.count(), 1)));
  return kExitOk;
}

}  // namespace rl::cli
