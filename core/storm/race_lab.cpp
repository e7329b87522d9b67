#include "storm/race_lab.hpp"

#include <algorithm>
#include <barrier>
#include <chrono>
#include <memory>
#include <thread>

#include "redis/redis_store.hpp"
#include "redis/script_store.hpp"

namespace rl {

std::string_view raceVariantName(Backend b) {
  switch (b) {
    case Backend::RedisNaive: return "naive";
    case Backend::RedisWatch: return "watch";
    case Backend::RedisLua: return "lua";
    case Backend::RedisScript: return "script";
    default: return backendName(b);
  }
}

Result<void> validate(const RaceSpec& s) {
  if (s.rounds < 1 || s.rounds > 100'000)
    return invalidArgument("--rounds " + std::to_string(s.rounds) + " is out of range: allowed 1 to 100000");
  if (s.capacity < 1 || s.capacity > 10'000)
    return invalidArgument("--limit " + std::to_string(s.capacity) + " is out of range: allowed 1 to 10000");
  if (s.concurrency < 1 || s.concurrency > 256)
    return invalidArgument("--concurrency " + std::to_string(s.concurrency) + " is out of range: allowed 1 to 256");
  if (s.algorithm != Algorithm::TokenBucket && s.algorithm != Algorithm::FixedWindow)
    return invalidArgument("--algorithm " + std::string(algorithmName(s.algorithm)) +
                           " is not raced: allowed token_bucket or fixed_window");
  if (s.thinkTime.count() < 0 || s.thinkTime > 10 * kSecond)
    return invalidArgument("--think-ms is out of range: allowed 0 to 10000");
  for (Backend b : s.variants)
    if (b != Backend::RedisNaive && b != Backend::RedisWatch && b != Backend::RedisLua && b != Backend::RedisScript)
      return invalidArgument("race variant " + std::string(backendName(b)) +
                             ": allowed redis-naive, redis-watch, redis-lua, redis-script");
  const bool script = std::find(s.variants.begin(), s.variants.end(), Backend::RedisScript) != s.variants.end();
  if (script && s.script.file.empty()) return invalidArgument("--script is required by the redis-script variant: allowed a readable Lua file");
  return {};
}

namespace {

// The wall clock for a user's script ({now_*}); the built-in variants read Redis TIME.
Micros wallNow() {
  return std::chrono::duration_cast<Micros>(std::chrono::system_clock::now().time_since_epoch());
}

void summarize(RaceVariantResult& r, std::int64_t capacity) {
  r.admittedMin = *std::min_element(r.admitted.begin(), r.admitted.end());
  r.admittedMax = *std::max_element(r.admitted.begin(), r.admitted.end());
  std::int64_t sum = 0;
  for (std::int64_t a : r.admitted) {
    sum += a;
    r.overLimitRounds += a > capacity ? 1 : 0;
  }
  r.admittedMean = static_cast<double>(sum) / static_cast<double>(r.admitted.size());
}

Result<RaceVariantResult> raceOne(const RaceSpec& spec, Backend variant, const RedisEndpoint& endpoint,
                                  const std::atomic<bool>* cancel, const RaceRoundCallback& onRound) {
  RedisStoreOptions options;
  options.endpoint = endpoint;
  // The race is about interleaving, not outages: 20 threads on a busy 2-core box can
  // see a reply slower than the default 100 ms, which would open the circuit and
  // count errors that say nothing about the race.
  options.endpoint.commandTimeout = std::max(endpoint.commandTimeout, Micros{2'000'000});
  options.prefix = spec.prefix;
  options.serverClock = true;
  options.thinkTime = variant == Backend::RedisNaive ? spec.thinkTime : Micros{0};
  std::vector<std::unique_ptr<Store>> stores;  // made here, then each used by one thread only
  for (int i = 0; i < spec.concurrency; ++i) {
    auto s = makeRedisBackendStore(variant, options, spec.script);
    if (!s) return s.error();
    stores.push_back(std::move(s.value()));
  }
  const auto n = static_cast<std::size_t>(spec.rounds);
  std::vector<std::atomic<std::int64_t>> admitted(n);
  std::atomic<std::int64_t> errors{0};
  std::atomic<bool> stop{false};
  std::atomic<std::size_t> completed{0};
  std::barrier sync(spec.concurrency);
  const Quota quota = Quota::perWindow(spec.capacity, 3600 * kSecond);
  const std::string tag = spec.runTag + std::string(raceVariantName(variant)) + "-race-";
  std::vector<std::thread> threads;
  for (int t = 0; t < spec.concurrency; ++t) {
    threads.emplace_back([&, t] {
      for (std::size_t round = 0; round < n; ++round) {
        if (t == 0 && cancel && cancel->load()) stop = true;
        sync.arrive_and_wait();  // everyone released together
        if (stop.load()) break;
        const std::string client = tag + std::to_string(round);
        const auto d = stores[static_cast<std::size_t>(t)]->decide({spec.algorithm, client, quota, 1, wallNow()});
        if (!d) errors.fetch_add(1);
        if (d && d->allowed) admitted[round].fetch_add(1);
        sync.arrive_and_wait();  // the round is over before the next starts
        if (t == 0) {
          completed = round + 1;
          if (onRound) onRound(variant, static_cast<int>(round), admitted[round].load());
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  if (completed.load() == 0) return Error{ErrorCode::Cancelled, "race cancelled before its first round"};
  RaceVariantResult r;
  r.variant = variant;
  for (std::size_t round = 0; round < completed.load(); ++round) r.admitted.push_back(admitted[round].load());
  for (const auto& s : stores) r.retries += redisRetries(*s);
  r.errors = errors.load();
  summarize(r, spec.capacity);
  return r;
}

}  // namespace

Result<std::vector<RaceVariantResult>> runRace(const RaceSpec& spec, const RedisEndpoint& endpoint,
                                               const std::atomic<bool>* cancel, const RaceRoundCallback& onRound) {
  if (auto ok = validate(spec); !ok) return ok.error();
  std::vector<RaceVariantResult> out;
  for (Backend v : spec.variants) {
    auto r = raceOne(spec, v, endpoint, cancel, onRound);
    if (!r) return r.error();
    out.push_back(std::move(r.value()));
  }
  return out;
}

}  // namespace rl
