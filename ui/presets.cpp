#include "ui/presets.hpp"

namespace rl::ui {

namespace {
constexpr Micros ms(std::int64_t v) { return Micros{v * 1000}; }

Preset boundary() {
  Preset p{"boundary", "Boundary burst (fixed window 2x)",
           "Two bursts straddle a window boundary. The fixed window resets at the boundary and "
           "admits up to twice its limit within one window length (red band); the sliding log "
           "never exceeds the limit and the sliding counter stays close.",
           {}, std::nullopt, false};
  p.spec.algorithms = {Algorithm::FixedWindow, Algorithm::SlidingLog, Algorithm::SlidingCounter};
  p.spec.backend = Backend::RedisLua;
  p.spec.quota = Quota::perWindow(100, ms(1000));
  p.spec.pattern = Pattern::Boundary;
  p.spec.requests = 400;
  p.spec.concurrency = 4;
  p.spec.clock = ClockMode::Virtual;
  return p;
}

Preset replicaLeak() {
  Preset p{"replica_leak", "Replica leak (memory 4x)",
           "Four API replicas each keep their own in-memory limiter: every replica admits the "
           "full limit, so the clients get four times the quota. Switch the backend to redis-lua "
           "and the shared state holds the limit.",
           {}, std::nullopt, false};
  p.spec.algorithms = {Algorithm::SlidingLog, Algorithm::TokenBucket};
  p.spec.backend = Backend::Memory;
  p.spec.replicas = 4;
  p.spec.quota = Quota::perWindow(50, ms(1000));
  p.spec.pattern = Pattern::Constant;
  p.spec.rate = 400;
  p.spec.duration = ms(3000);
  p.spec.concurrency = 4;
  p.spec.clock = ClockMode::Virtual;
  return p;
}

Preset race() {
  Preset p{"race", "Race (naive vs lua)",
           "Sixteen connections read the counter, decide, then write it back: requests that read "
           "the same count all pass, so the naive store admits above the limit. The race lab runs "
           "naive, WATCH/MULTI and Lua side by side on one key: only the atomic ones hold it.",
           {}, std::nullopt, true};
  p.spec.algorithms = {Algorithm::FixedWindow};
  p.spec.backend = Backend::RedisNaive;
  p.spec.quota = Quota::perWindow(20, ms(60000));
  p.spec.pattern = Pattern::Burst;
  p.spec.requests = 200;
  p.spec.concurrency = 16;
  p.spec.clock = ClockMode::Server;
  p.spec.thinkTime = ms(1);
  return p;
}

Preset clockSkew() {
  Preset p{"clock_skew", "Clock skew (client clocks)",
           "Three replicas decide with their own clocks, one 400 ms ahead and one 400 ms behind. "
           "Window boundaries and refills no longer agree across replicas, so admissions bunch "
           "up and the window limit leaks; with the server clock (Redis TIME) they agree.",
           {}, std::nullopt, false};
  p.spec.algorithms = {Algorithm::FixedWindow, Algorithm::TokenBucket};
  p.spec.backend = Backend::RedisLua;
  p.spec.replicas = 3;
  p.spec.quota = Quota::perWindow(50, ms(1000));
  p.spec.pattern = Pattern::Constant;
  p.spec.rate = 150;
  p.spec.duration = ms(3000);
  p.spec.concurrency = 3;
  p.spec.clock = ClockMode::Client;
  p.spec.skew = {ms(0), ms(400), ms(-400)};
  return p;
}

Preset outage() {
  Preset p{"outage", "Redis outage (fail-open, fail-closed, local)",
           "The managed redis-server stops 1 s into the storm and restarts at 2 s. Fail-open "
           "admits everything while Redis is down (errors, no protection); switch the policy to "
           "fail-closed in the connection panel and the gap turns into denials; local lets each "
           "replica's own memory limiter decide: up to replicas x limit (here 2 x 50 per second).",
           {}, OutagePlan{1000, 2000}, false};
  p.spec.algorithms = {Algorithm::FixedWindow, Algorithm::TokenBucket};
  p.spec.backend = Backend::RedisLua;
  p.spec.quota = Quota::perWindow(50, ms(1000));
  p.spec.pattern = Pattern::Constant;
  p.spec.rate = 150;
  p.spec.duration = ms(3500);
  p.spec.concurrency = 2;
  p.spec.clock = ClockMode::Server;
  p.spec.onRedisError = FailurePolicy::Open;
  return p;
}

Preset burstTolerance() {
  Preset p{"burst_tolerance", "Burst tolerance (token bucket vs sliding log)",
           "Bursty Poisson traffic against 20 per second. The token bucket lets a full bucket of "
           "20 through at once after a quiet spell and then the refill rate; the sliding log "
           "never admits more than 20 in any second. GCRA is the token bucket's math in another "
           "form (it stores a theoretical arrival time, not tokens): its lane matches the token "
           "bucket's exactly, and in the level chart its dotted line lies on the bucket's solid one.",
           {}, std::nullopt, false};
  p.spec.algorithms = {Algorithm::SlidingLog, Algorithm::TokenBucket, Algorithm::Gcra};
  p.spec.backend = Backend::RedisLua;
  p.spec.quota = Quota::perWindow(20, ms(1000));
  p.spec.pattern = Pattern::Poisson;
  p.spec.rate = 40;
  p.spec.duration = ms(6000);
  p.spec.concurrency = 2;
  p.spec.clock = ClockMode::Virtual;
  p.spec.seed = 7;
  return p;
}
}  // namespace

const std::vector<Preset>& presets() {
  static const std::vector<Preset> all = {boundary(), replicaLeak(), race(),
                                          clockSkew(), outage(),     burstTolerance()};
  return all;
}

const Preset* findPreset(const QString& id) {
  for (const Preset& p : presets())
    if (p.id == id) return &p;
  return nullptr;
}

QStringList presetIds() {
  QStringList ids;
  for (const Preset& p : presets()) ids << p.id;
  return ids;
}

}  // namespace rl::ui
