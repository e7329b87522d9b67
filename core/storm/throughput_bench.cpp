#include "storm/throughput_bench.hpp"

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>

#include <poll.h>

#include "redis/cluster/key_slot.hpp"
#include "redis/cluster/slot_map.hpp"
#include "redis/command_stats.hpp"
#include "redis/lua_scripts.hpp"
#include "redis/redis_connection.hpp"
#include "redis/redis_store.hpp"
#include "store/memory_store.hpp"

namespace rl {

Result<void> validate(const BenchSpec& s) {
  if (s.concurrency < 1 || s.concurrency > 512)
    return invalidArgument("--concurrency " + std::to_string(s.concurrency) + " is out of range: allowed 1 to 512");
  if (s.pipeline < 1 || s.pipeline > 1024)
    return invalidArgument("--pipeline " + std::to_string(s.pipeline) + " is out of range: allowed 1 to 1024");
  if (s.pipeline > 1 && s.backend != Backend::RedisLua)
    return invalidArgument("--pipeline " + std::to_string(s.pipeline) + " needs --backend redis-lua");
  if (s.threads < 0 || s.threads > 512)
    return invalidArgument("--threads " + std::to_string(s.threads) + " is out of range: allowed 1 to 512");
  if (s.duration < 10 * kMillisecond || s.duration > 3600 * kSecond)
    return invalidArgument("--duration-ms is out of range: allowed 10 to 3600000");
  if (s.keysPerThread < 1 || s.keysPerThread > 10'000'000)
    return invalidArgument("--clients is out of range: allowed 1 to 10000000");
  if (s.algorithms.empty()) return invalidArgument("--algorithm is empty: allowed one or more algorithms or all");
  if (s.backend == Backend::Http) return invalidArgument("--backend http is not benchmarked here: use wrk on `serve`");
  for (Algorithm a : s.algorithms)
    if (auto ok = s.quota.validate(a); !ok) return invalidArgument("--limit: " + ok.error().message);
  return {};
}

namespace {

using Clock = std::chrono::steady_clock;

// Event loops (threads) of the wire path when the spec leaves it to us: one per
// core of the 2-core target (2 loops measured ~10% above 1 at -c 50; bench-redis.sh shows both).
constexpr int kDefaultEventLoops = 2;

struct ThreadTally {
  std::int64_t decisions = 0;  ///< made
  std::int64_t errors = 0;     ///< failed
  std::vector<std::int64_t> perMaster;  ///< cluster: decisions per master index
};

std::vector<std::string> keyNames(const BenchSpec& s, int thread) {
  std::vector<std::string> keys;
  keys.reserve(static_cast<std::size_t>(s.keysPerThread));
  for (int i = 0; i < s.keysPerThread; ++i) keys.push_back(s.runTag + std::to_string(thread) + "-" + std::to_string(i));
  return keys;
}

// Decides through `store` until `stop`; `now` advances 1 us per decision (client clock).
// `masterOf` (cluster only, else empty): the master index of each key.
void loopStore(Store& store, const BenchSpec& s, Algorithm a, const std::vector<std::string>& keys,
               const std::vector<int>& masterOf, const std::atomic<bool>& stop, ThreadTally& tally) {
  DecisionRequest req{a, {}, s.quota, 1, Micros{1'700'000'000'000'000}};
  std::size_t k = 0;
  while (!stop.load(std::memory_order_relaxed)) {
    for (int i = 0; i < 64; ++i) {
      req.client = keys[k];
      if (!masterOf.empty() && masterOf[k] >= 0) ++tally.perMaster[static_cast<std::size_t>(masterOf[k])];
      k = k + 1 == keys.size() ? 0 : k + 1;
      req.now += Micros{1};
      const auto d = store.decide(req);
      ++tally.decisions;
      tally.errors += d ? 0 : 1;
    }
  }
}

// One connection of the wire path and its keys.
struct WireConn {
  std::optional<RedisConnection> conn;  ///< owned by one event loop while measuring
  std::vector<std::string> keys;        ///< full key names, distinct per connection
  std::size_t next = 0;                 ///< next key
  bool dead = false;                    ///< failed: no more commands on it
};

// What RedisLuaStore sends (cost 1).
struct WireArgs {
  std::string sha;   ///< the script
  Algorithm algorithm = Algorithm::TokenBucket;  ///< its algorithm
  Quota quota;       ///< the quota checked
  bool serverClock = true;  ///< now = '' (TIME in the script), else the system clock
};

// A reply is a decision when it is an array of 5+ integers whose first is 0 or 1 (allowed), or
// the one non-negative integer of a token_bucket / sliding_log admission (redis/lua_reply.hpp).
bool isDecision(const RedisReply& r) {
  if (r.isInteger()) return r.integer() >= 0;
  return r.isArray() && r.size() >= 5 && r[0].isInteger() && (r[0].integer() == 0 || r[0].integer() == 1);
}

// The script named another window than this machine's clock guessed (RL_WINDOW, at a window's edge).
bool isWindowMiss(const RedisReply& r) { return r.isError() && scriptWindowOf(r.str()).has_value(); }

// Queues one EVALSHA on the connection's next key.
Result<void> queueOne(WireConn& c, const WireArgs& w) {
  const bool server = w.serverClock;
  const Micros now = server ? Micros{0}
                            : std::chrono::duration_cast<Micros>(std::chrono::system_clock::now().time_since_epoch());
  const ScriptCall call = scriptCall(DecisionRequest{w.algorithm, "", w.quota, 1, now}, c.keys[c.next], server);
  const std::string numKeys = std::to_string(call.keys.size());
  std::vector<std::string_view> argv{"EVALSHA", w.sha, numKeys};
  argv.insert(argv.end(), call.keys.begin(), call.keys.end());
  argv.insert(argv.end(), call.argv.begin(), call.argv.end());
  auto ok = c.conn->append(std::span<const std::string_view>(argv));
  c.next = c.next + 1 == c.keys.size() ? 0 : c.next + 1;
  return ok;
}

// A failed connection: its commands in flight count as failed decisions.
void markDead(WireConn& c, int inFlight, ThreadTally& tally) {
  c.dead = true;
  tally.decisions += inFlight;
  tally.errors += inFlight;
}

// Reads every complete reply on `c`; while `refill`, queues one new command per
// reply and sends them together, so `pipeline` stay in flight.
void serveConn(WireConn& c, const WireArgs& w, bool refill, ThreadTally& tally) {
  int queued = 0;
  while (c.conn->pending() > 0) {
    const int inFlight = c.conn->pending();
    auto r = c.conn->tryGetReply();
    if (!r) return markDead(c, inFlight, tally);
    if (!r->has_value()) break;
    if (!isWindowMiss(**r)) {  // a window miss is sent again (as the store does), not counted
      ++tally.decisions;
      tally.errors += isDecision(**r) ? 0 : 1;
    }
    if (refill) {
      const int before = c.conn->pending();
      if (!queueOne(c, w)) return markDead(c, before, tally);
      ++queued;
    }
  }
  const int inFlight = c.conn->pending();
  if (queued > 0 && !c.conn->flush()) markDead(c, inFlight, tally);
}

// Event loop: poll() over this thread's connections, each keeping `pipeline`
// EVALSHA in flight, until `stop`; then waits (at most 2 s) for the replies
// still in flight, so every command sent is counted as a decision or an error.
void loopEvents(std::vector<WireConn*>& conns, const WireArgs& w, int pipeline, const std::atomic<bool>& stop,
                ThreadTally& tally) {
  for (WireConn* c : conns) {
    int queued = 0;
    while (queued < pipeline && queueOne(*c, w)) ++queued;
    if (queued < pipeline || !c->conn->flush()) markDead(*c, queued, tally);
  }
  std::vector<pollfd> fds(conns.size());
  std::vector<WireConn*> polled(conns.size());
  bool stopping = false;
  Clock::time_point drainUntil{};
  while (true) {
    if (!stopping && stop.load(std::memory_order_relaxed)) {
      stopping = true;
      drainUntil = Clock::now() + std::chrono::seconds(2);
    }
    nfds_t n = 0;
    for (WireConn* c : conns)
      if (!c->dead && c->conn->pending() > 0) {
        fds[n] = pollfd{c->conn->fd(), POLLIN, 0};
        polled[n++] = c;
      }
    if (n == 0 && stopping) return;
    if (stopping && Clock::now() > drainUntil) {
      for (nfds_t i = 0; i < n; ++i) markDead(*polled[i], polled[i]->conn->pending(), tally);
      return;
    }
    if (::poll(fds.data(), n, 20) <= 0) continue;
    for (nfds_t i = 0; i < n; ++i)
      if (fds[i].revents != 0) serveConn(*polled[i], w, !stopping, tally);
  }
}

// Runs `body(t)` on `n` threads for the spec's duration; returns the elapsed time.
template <class Body>
Micros measure(std::size_t n, std::atomic<bool>& stop, Micros duration, Body body) {
  std::vector<std::thread> threads;
  const auto start = Clock::now();
  for (std::size_t t = 0; t < n; ++t) threads.emplace_back([&body, t] { body(t); });
  std::this_thread::sleep_for(duration);
  stop = true;
  for (auto& th : threads) th.join();
  return std::chrono::duration_cast<Micros>(Clock::now() - start);
}

BenchResult finish(const BenchSpec& s, Algorithm a, std::size_t threads, bool wire, Micros elapsed,
                   const std::vector<ThreadTally>& tallies) {
  BenchResult r{s.backend, a, s.concurrency, s.pipeline, static_cast<int>(threads), wire, 0, 0, elapsed, 0, {}};
  for (const auto& t : tallies) {
    r.decisions += t.decisions;
    r.errors += t.errors;
  }
  r.perSecond = static_cast<double>(r.decisions) * 1e6 / static_cast<double>(std::max<std::int64_t>(elapsed.count(), 1));
  return r;
}

Result<BenchResult> benchWire(const BenchSpec& s, Algorithm a, const RedisEndpoint& endpoint) {
  const auto n = static_cast<std::size_t>(s.concurrency);
  std::vector<WireConn> conns(n);
  WireArgs args{"", a, s.quota, s.serverClock};
  for (std::size_t i = 0; i < n; ++i) {
    auto c = RedisConnection::connect(endpoint);
    if (!c) return c.error();
    auto loaded = c->command({"SCRIPT", "LOAD", luaScript(a)});
    if (!loaded) return loaded.error();
    args.sha = std::string(loaded->str());
    conns[i].conn.emplace(std::move(c.value()));
    for (const std::string& k : keyNames(s, static_cast<int>(i))) conns[i].keys.push_back(limiterKey(s.prefix, a, k));
  }
  const std::size_t loops = std::min<std::size_t>(static_cast<std::size_t>(s.threads == 0 ? kDefaultEventLoops : s.threads), n);
  std::vector<std::vector<WireConn*>> owned(loops);
  for (std::size_t i = 0; i < n; ++i) owned[i % loops].push_back(&conns[i]);
  std::vector<ThreadTally> tallies(loops);
  std::atomic<bool> stop{false};
  const Micros elapsed = measure(loops, stop, s.duration, [&](std::size_t t) {
    loopEvents(owned[t], args, s.pipeline, stop, tallies[t]);
  });
  return finish(s, a, loops, true, elapsed, tallies);
}

// INFO commandstats of the server, or summed over a cluster's masters.
Result<CommandStats> statsAt(const RedisEndpoint& endpoint) {
  std::vector<RedisEndpoint> nodes{endpoint};
  if (endpoint.cluster) {
    auto map = fetchSlotMap(endpoint);
    if (!map) return map.error();
    nodes.clear();
    for (const auto& m : map->masters()) nodes.push_back(endpoint.node(m.host, m.port));
  }
  CommandStats sum;
  for (const auto& node : nodes) {
    auto c = RedisConnection::connect(node);
    if (!c) return c.error();
    auto stats = readCommandStats(*c);
    if (!stats) return stats.error();
    for (const auto& [name, st] : *stats) {
      sum[name].calls += st.calls;
      sum[name].usec += st.usec;
    }
  }
  return sum;
}

Result<BenchResult> benchStores(const BenchSpec& s, Algorithm a, const RedisEndpoint& endpoint) {
  const auto n = static_cast<std::size_t>(s.concurrency);
  std::vector<std::unique_ptr<Store>> stores(n);
  auto shared = std::make_shared<MemoryStore>();
  for (std::size_t t = 0; t < n && s.backend != Backend::Memory; ++t) {
    RedisStoreOptions o;
    o.endpoint = endpoint;
    o.prefix = s.prefix;
    o.serverClock = s.serverClock;
    auto st = makeRedisBackendStore(s.backend, o, s.script);
    if (!st) return st.error();
    stores[t] = std::move(st.value());
  }
  std::vector<std::vector<std::string>> keys;
  for (std::size_t t = 0; t < n; ++t) keys.push_back(keyNames(s, static_cast<int>(t)));
  std::vector<ThreadTally> tallies(n);
  std::vector<std::vector<int>> masterOf(n);
  std::vector<std::string> masters;
  if (endpoint.cluster && s.backend != Backend::Memory) {
    auto map = fetchSlotMap(endpoint);
    if (!map) return map.error();
    for (const auto& m : map->masters()) masters.push_back(m.address());
    for (std::size_t t = 0; t < n; ++t) {
      tallies[t].perMaster.assign(masters.size(), 0);
      for (const std::string& k : keys[t]) {
        auto key = clusterLimiterKey(s.prefix, a, k);
        masterOf[t].push_back(key ? map->masterOf(keySlot(*key)) : -1);
      }
    }
  }
  std::atomic<bool> stop{false};
  const Micros elapsed = measure(n, stop, s.duration, [&](std::size_t t) {
    loopStore(stores[t] ? *stores[t] : *shared, s, a, keys[t], masterOf[t], stop, tallies[t]);
  });
  BenchResult r = finish(s, a, n, false, elapsed, tallies);
  for (std::size_t m = 0; m < masters.size(); ++m) {
    std::int64_t sum = 0;
    for (const auto& t : tallies) sum += t.perMaster[m];
    r.perMaster.emplace_back(masters[m], sum);
  }
  return r;
}

}  // namespace

Result<std::vector<BenchResult>> runBench(const BenchSpec& spec, const RedisEndpoint& endpoint) {
  if (auto ok = validate(spec); !ok) return ok.error();
  std::vector<BenchResult> out;
  const bool redis = spec.backend != Backend::Memory;
  for (Algorithm a : spec.algorithms) {
    // A connection per reading, so none is open while the bench runs (a test may kill them all).
    auto before = redis ? statsAt(endpoint) : Result<CommandStats>(CommandStats{});
    if (!before) return before.error();
    const bool wire = spec.backend == Backend::RedisLua && !spec.storePath && !endpoint.cluster;
    auto r = wire ? benchWire(spec, a, endpoint) : benchStores(spec, a, endpoint);
    if (!r) return r.error();
    if (redis)
      if (auto after = statsAt(endpoint))  // Redis gone meanwhile: the time stays 0 (not measured)
        r->redisMicros = redisMicrosPerDecision(*before, *after, r->decisions);
    out.push_back(r.value());
  }
  return out;
}

}  // namespace rl
