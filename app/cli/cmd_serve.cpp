// ratelab-cli serve: K limiter replicas behind a round-robin front on
// loopback, for curl and wrk. Prints the URLs, then a live one-line tally;
// SIGINT / SIGTERM stop it cleanly (exit 0).
#include <QCoreApplication>
#include <QTimer>

#include <csignal>
#include <cstdio>
#include <unistd.h>

#include "cli_flags.hpp"
#include "commands.hpp"
#include "common/printable_text.hpp"
#include "http/serve_cluster.hpp"
#include "redis/redis_store.hpp"
#include "redis/script_store.hpp"
#include "storm/store_factory.hpp"
#include "redis_target.hpp"
#include "store/memory_store.hpp"

namespace rl::cli {

namespace {
constexpr const char* kServeHelp =
    "usage: ratelab-cli serve [options]\n"
    "  --algorithm A        fixed_window sliding_log sliding_counter token_bucket\n"
    "                       leaky_bucket gcra                      (default fixed_window)\n"
    "  --backend B          memory | redis-lua | redis-naive | redis-watch | redis-script (default memory)\n"
    "  --script FILE --script-keys T --script-argv T --script-reply NAMES   redis-script: your own limiter\n"
    "  --redis URL          redis://[user:password@]host:port[/db] | redis+cluster://.. | redis+sentinel://..\n"
    "                       | cluster | sentinel (default: embedded)\n"
    "  --limit N --window-ms MS --refill-rate R   the quota\n"
    "  --replicas K         replica servers behind the front      (default 1)\n"
    "  --replica-threads N  event threads the replicas share, 1..K (default: memory and\n"
    "                       redis-lua one per core beside the front's, at most K; the\n"
    "                       blocking Redis backends and Redis Cluster one per replica)\n"
    "  --on-redis-error E   open | closed: answer when Redis fails (default open)\n"
    "  --prefix P           Redis key prefix                       (default ratelab:)\n"
    "  --port P             front port; 0 = any free port          (default 0)\n"
    "  --replica-ports a,b  one port per replica                   (default any free)\n"
    "  --bind ADDR          listen address                         (default 127.0.0.1)\n"
    "  --max-connections N  open connections at the front; when full the connection idle\n"
    "                       longest is closed, else 503 (default 512, lowered to what\n"
    "                       ulimit -n fits; a given N that does not fit is an error)\n"
    "  --max-connections-per-address N  from one client address, else 503; 0 = no cap\n"
    "                       (default 64; a --trusted-proxy is not capped)\n"
    "  --request-line-timeout-ms MS  a new connection must send its request line\n"
    "                       (default 5000, else closed)\n"
    "  --header-timeout-ms MS  a started request must complete     (default 10000, else 408)\n"
    "  --idle-timeout-ms MS    idle keep-alive connections close   (default 60000)\n"
    "  --max-header-bytes N    header section limit                (default 8192, else 431)\n"
    "  --front F            nginx | builtin | none  (default nginx when installed, else builtin)\n"
    "  --trusted-proxy CIDR[,CIDR]  believe X-Forwarded-For from these peers too\n"
    "                       (default: only from this run's own front)\n"
    "  --allow-client-overrides  honour x-ratelab-algorithm / x-ratelab-cost per request\n"
    "  --max-cost N         largest x-ratelab-cost (also <= limit)  (default 1000)\n"
    "  --max-keys N         limiter keys one replica keeps in memory (memory backend, and the\n"
    "                       local failure policy), 1024..100000000; when full, the keys that\n"
    "                       expire soonest are dropped and counted (default 100000; on\n"
    "                       Redis the bound is the server's maxmemory)\n"
    "Every request is keyed by its x-api-key header (key:<value>), else the client\n"
    "address (ip:<address>; X-Forwarded-For only from the front or a trusted proxy).\n"
    "Admitted: 200 + RateLimit-Policy / RateLimit / X-RateLimit-Remaining.\n"
    "Denied: 429 + Retry-After (s, rounded up) + Retry-After-Ms.\n";

constexpr std::string_view kStormKeys[] = {"algorithm", "backend", "redis", "limit", "window-ms",
                                           "refill-rate", "replicas", "on-redis-error", "prefix",
                                           "script", "script-keys", "script-argv", "script-reply"};

// Keys per replica: 100,000 fixed-window keys are about 7 MB, sliding-log keys with a
// full log of 100 about 160 MB (docs/security.md).
constexpr std::int64_t kDefaultMaxKeys = 100'000;

volatile std::sig_atomic_t gStop = 0;
void onStopSignal(int) { gStop = 1; }

std::vector<FlagSpec> serveFlags() {
  std::vector<FlagSpec> out;
  for (const auto& f : stormFlags())
    for (const auto key : kStormKeys)
      if (f.name == key) out.push_back(f);
  out.insert(out.end(), {{"port", true}, {"replica-ports", true}, {"bind", true}, {"max-connections", true},
                         {"max-connections-per-address", true}, {"request-line-timeout-ms", true},
                         {"header-timeout-ms", true}, {"idle-timeout-ms", true}, {"max-header-bytes", true},
                         {"front", true}, {"trusted-proxy", true}, {"allow-client-overrides", false},
                         {"max-cost", true}, {"max-keys", true}, {"replica-threads", true}, {"help", false}});
  return out;
}

Result<std::vector<int>> portList(const std::string& text) {
  std::vector<int> ports;
  std::size_t at = 0;
  while (at <= text.size()) {
    const auto comma = std::min(text.find(',', at), text.size());
    const std::string item = text.substr(at, comma - at);
    char* end = nullptr;
    const long p = std::strtol(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0' || p < 1 || p > 65535)
      return invalidArgument("--replica-ports: '" + item + "' is not a port: allowed a,b,.. each 1 to 65535");
    ports.push_back(static_cast<int>(p));
    at = comma + 1;
  }
  return ports;
}

// Fills the listener limits and addresses of `o` from the serve flags.
Result<void> applyServeFlags(const Flags& flags, ServeOptions& o) {
  const auto port = intFlag(flags, "port", 0, 0, 65535);
  const auto maxConn = intFlag(flags, "max-connections", o.limits.maxConnections, 1, 100'000);
  const auto perAddress = intFlag(flags, "max-connections-per-address", o.limits.maxPerAddress, 0, 100'000);
  const auto lineMs = intFlag(flags, "request-line-timeout-ms", 5'000, 1, 3'600'000);
  const auto headerMs = intFlag(flags, "header-timeout-ms", 10'000, 1, 3'600'000);
  const auto idleMs = intFlag(flags, "idle-timeout-ms", 60'000, 1, 3'600'000);
  const auto headerBytes = intFlag(flags, "max-header-bytes", 8192, 256, 1 << 20);
  const auto maxCost = intFlag(flags, "max-cost", 1000, 1, 1'000'000);
  const auto maxKeys = intFlag(flags, "max-keys", kDefaultMaxKeys, 1024, 100'000'000);
  for (const auto* r : {&port, &maxConn, &perAddress, &lineMs, &headerMs, &idleMs, &headerBytes, &maxCost, &maxKeys})
    if (!r->ok()) return r->error();
  o.frontPort = static_cast<int>(*port);
  o.limits.maxConnections = static_cast<int>(*maxConn);
  o.fitConnections = !flags.has("max-connections");
  o.limits.maxPerAddress = static_cast<int>(*perAddress);
  o.limits.requestLineTimeout = *lineMs * kMillisecond;
  o.limits.headerTimeout = *headerMs * kMillisecond;
  o.limits.idleTimeout = *idleMs * kMillisecond;
  o.limits.message.maxHeaderBytes = static_cast<std::size_t>(*headerBytes);
  o.maxCost = *maxCost;
  o.localMaxKeys = static_cast<std::size_t>(*maxKeys);
  if (auto bind = flags.get("bind")) o.bindAddress = *bind;
  o.front = findNginx() ? FrontKind::Nginx : FrontKind::Builtin;
  if (auto front = flags.get("front")) {
    auto kind = parseFrontKind(*front);
    if (!kind) return kind.error();
    o.front = *kind;
  }
  if (auto proxies = flags.get("trusted-proxy")) {
    if (auto ok = parseTrustedProxies(*proxies); !ok) return ok.error();
    o.trustedProxies = *proxies;
  }
  o.allowClientOverrides = flags.has("allow-client-overrides");
  if (auto ports = flags.get("replica-ports")) {
    auto list = portList(*ports);
    if (!list) return list.error();
    o.replicaPorts = std::move(*list);
  }
  return {};
}

ReplicaStoreFactory factoryFor(const StormSpec& spec, const std::optional<RedisTarget>& redis, std::size_t maxKeys) {
  if (spec.backend == Backend::Memory)
    return [maxKeys](int) { return Result<std::unique_ptr<Store>>(std::make_unique<MemoryStore>(maxKeys)); };
  RedisStoreOptions options;
  options.endpoint = redis->endpoint;
  options.prefix = spec.prefix;
  return [options, backend = spec.backend, script = spec.script](int) {
    return makeRedisBackendStore(backend, options, script);
  };
}

// Runs until SIGINT / SIGTERM: a tally line every second (redrawn on a terminal).
void runUntilStopped(QCoreApplication& app, const ServeCluster& cluster) {
  const bool tty = ::isatty(STDERR_FILENO) != 0;
  std::string last;
  QTimer tally;
  QObject::connect(&tally, &QTimer::timeout, &app, [&] {
    if (gStop) return app.quit();
    const auto line = cluster.tallyLine();
    if (tty) {
      std::fprintf(stderr, "\r%s\x1b[K", line.c_str());
    } else if (line != last) {
      std::printf("tally: %s\n", line.c_str());
      std::fflush(stdout);
    }
    last = line;
  });
  tally.start(100);  // the stop flag is polled as often; the line changes at most as often
  app.exec();
  if (tty) std::fputs("\n", stderr);
}
}  // namespace

int cmdServe(const Args& args) {
  const auto allowed = serveFlags();
  auto flags = Flags::parse(args, allowed);
  if (!flags) return badInput("serve", flags.error());
  if (flags->has("help")) {
    std::fputs(kServeHelp, stdout);
    return kExitOk;
  }
  auto spec = specFromFlags(*flags);
  if (!spec) return badInput("serve", spec.error());
  printScriptWarnings(spec->script);
  if (spec->backend == Backend::Http)
    return badInput("serve", invalidArgument("--backend http: serve runs the limiter itself; allowed memory, "
                                             "redis-lua, redis-naive or redis-watch"));
  if (spec->algorithms.size() != 1)
    return badInput("serve", invalidArgument("--algorithm: serve runs one algorithm (with "
                                             "--allow-client-overrides clients may pick another per request)"));
  StormSpec check = *spec;  // the storm's checks name each quota flag; serve has no traffic of its own
  if (check.requests == 0 && check.duration.count() == 0) check.requests = 1;
  if (auto ok = validate(check); !ok) return badInput("serve", ok.error());
  ServeOptions options;
  options.algorithm = spec->algorithms.front();
  options.quota = spec->quota;
  options.replicas = spec->replicas;
  options.onStoreError = spec->resilience.onRedisError;
  if (auto ok = applyServeFlags(*flags, options); !ok) return badInput("serve", ok.error());
  const auto threads = intFlag(*flags, "replica-threads", 0, 1, options.replicas);
  if (!threads) return badInput("serve", threads.error());
  options.replicaThreads = static_cast<int>(*threads);

  std::optional<RedisTarget> redis;
  if (spec->backend != Backend::Memory) {
    const auto url = spec->redisUrl.empty() ? std::nullopt : std::optional(spec->redisUrl);
    if (int rc = resolveRedisTarget(url, "serve", redis); rc != kExitOk) return rc;
  }
  if (options.replicaThreads == 0)
    options.replicaThreads = defaultReplicaThreads(spec->backend, redis && (redis->endpoint.cluster || redis->endpoint.viaSentinel()),
                                                  options.replicas);
  int argc = 1;
  char name[] = "ratelab-cli";
  char* argv[] = {name, nullptr};
  QCoreApplication app(argc, argv);  // the replicas' and the front's threads run Qt event loops
  auto cluster = ServeCluster::start(options, factoryFor(*spec, redis, options.localMaxKeys));
  if (!cluster) {
    const auto& e = cluster.error();
    std::fprintf(stderr, "ratelab-cli serve: %s\n", printableText(e.message).c_str());
    if (e.code == ErrorCode::InvalidArgument) return kExitBadInput;
    return e.code == ErrorCode::Unavailable && redis && e.message.find("cannot listen") == std::string::npos
               ? kExitNoRedis : kExitFailed;
  }
  std::signal(SIGINT, onStopSignal);
  std::signal(SIGTERM, onStopSignal);
  const std::string keyBound =
      spec->backend == Backend::Memory ? ", at most " + std::to_string(options.localMaxKeys) + " keys each" : "";
  std::printf("serving %s %s on %s (%d replica%s on %d thread%s%s, fail-%s, front %s%s)\n",
              std::string(algorithmName(options.algorithm)).c_str(), options.quota.toString().c_str(),
              std::string(backendName(spec->backend)).c_str(), options.replicas, options.replicas == 1 ? "" : "s",
              options.replicaThreads, options.replicaThreads == 1 ? "" : "s", keyBound.c_str(),
              std::string(failurePolicyName(options.onStoreError)).c_str(),
              std::string(frontKindName(options.front)).c_str(),
              options.allowClientOverrides ? ", client overrides allowed" : "");
  std::printf("front %s\n", (*cluster)->frontUrl().c_str());
  std::printf("%s\n", (*cluster)->descriptorLine().c_str());
  if ((*cluster)->frontPid() > 0) std::printf("nginx pid %d\n", (*cluster)->frontPid());
  const auto urls = (*cluster)->replicaUrls();
  for (std::size_t i = 0; i < urls.size(); ++i) std::printf("replica %zu %s\n", i, urls[i].c_str());
  std::fflush(stdout);
  runUntilStopped(app, **cluster);
  std::printf("stopped: %s\n", (*cluster)->tallyLine().c_str());
  return kExitOk;
}

}  // namespace rl::cli
