// ratelab-cli keys --watch: the decoded state of the keys under --prefix over
// time (redis/key_watch.hpp: keyspace notifications when the server already
// publishes them, sampling otherwise). --jsonl prints one line per observation
// as it happens; without it, one document at the end with one series per key.
#include <cstdio>
#include <map>

#include "commands.hpp"
#include "common/json.hpp"
#include "common/printable_text.hpp"
#include "interrupt.hpp"
#include "keys_modes.hpp"
#include "redis/key_watch.hpp"

namespace rl::cli {

namespace {
constexpr std::size_t kMaxSamplesPerKey = 100'000;

Json sampleJson(std::int64_t tMs, const KeyInfo& k, const std::optional<KeyReading>& r) {
  Json j{{"t_ms", tMs}, {"pttl_ms", k.pttlMs}};
  if (k.pttlMs == -2) j["gone"] = true;
  if (r && r->used) j["used"] = *r->used;
  if (r && r->limit) j["limit"] = *r->limit;
  if (r && r->resetMs) j["reset_ms"] = *r->resetMs;
  return j;
}

struct Series {
  std::string library;    ///< the first reading's library
  std::string algorithm;  ///< and algorithm
  Json samples = Json::array();
  bool truncated = false;
};
}  // namespace

int runKeysWatch(const Flags& flags, RedisTarget& redis, const std::string& prefix, const ReadContext& context) {
  KeyWatchOptions o;
  o.prefix = prefix;
  o.pattern = flags.get("match").value_or("");
  o.context = context;
  o.enableNotifications = flags.has("enable-notifications");
  const auto interval = numberFlag(flags, "interval-ms", 250, 10, 3'600'000);
  if (!interval) return kExitBadInput;
  const auto duration = numberFlag(flags, "duration-ms", 10'000, 1, 86'400'000);
  if (!duration) return kExitBadInput;
  const auto maxKeys = numberFlag(flags, "max-keys", 1000, 1, 100'000);
  if (!maxKeys) return kExitBadInput;
  o.intervalMs = *interval;
  o.durationMs = *duration;
  o.maxKeys = static_cast<std::size_t>(*maxKeys);
  const bool lines = flags.has("jsonl");
  std::map<std::string, Series> series;
  const KeyWatchSink sink = [&](std::int64_t tMs, const KeyInfo& k, const std::optional<KeyReading>& r) {
    if (lines) {
      Json j = sampleJson(tMs, k, r);
      j["key"] = k.name;
      if (r) j["library"] = r->library;
      std::printf("%s\n", dumpJson(j).c_str());
      std::fflush(stdout);
      return;
    }
    Series& s = series[k.name];
    if (s.library.empty() && r) std::tie(s.library, s.algorithm) = std::pair(r->library, r->algorithm);
    if (s.samples.size() < kMaxSamplesPerKey) s.samples.push_back(sampleJson(tMs, k, r));
    else s.truncated = true;
  };
  if (!redis.managed()) catchInterrupt();
  auto mode = watchKeys(redis.endpoint, o, sink, &interruptFlag());
  if (!mode && mode.error().code == ErrorCode::Unavailable) {
    std::fprintf(stderr, "ratelab-cli keys: cannot reach Redis at %s: %s\n", redis.endpoint.toString().c_str(),
                 printableText(mode.error().message).c_str());
    return kExitNoRedis;
  }
  if (!mode) {
    std::fprintf(stderr, "ratelab-cli keys: %s\n", printableText(mode.error().message).c_str());
    return mode.error().code == ErrorCode::InvalidArgument ? kExitBadInput : kExitFailed;
  }
  const std::string how = mode->notifications ? "notifications" : "sampling";
  std::fprintf(stderr, "ratelab-cli keys --watch: %s\n", mode->why.c_str());
  if (lines) {
    std::printf("%s\n", dumpJson(Json{{"done", true}, {"mode", how}, {"why", mode->why}}).c_str());
  } else {
    Json all = Json::array();
    for (auto& [name, s] : series)
      all.push_back({{"name", name}, {"library", s.library.empty() ? Json(nullptr) : Json(s.library)},
                     {"algorithm", s.algorithm}, {"samples", std::move(s.samples)}, {"truncated", s.truncated}});
    Json doc{{"prefix", prefix}, {"interval_ms", o.intervalMs}, {"duration_ms", o.durationMs}, {"mode", how},
             {"why", mode->why}, {"series", std::move(all)}};
    std::printf("%s\n", dumpJson(doc, 2).c_str());
  }
  return interruptFlag().load() ? interruptedExitCode() : kExitOk;
}

}  // namespace rl::cli
