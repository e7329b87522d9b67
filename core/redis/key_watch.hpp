#pragma once
// Watching live limiter keys: the decoded state of every key under a prefix
// over time, for someone else's traffic (a production limiter, not RateLab's
// own storm). Two ways, chosen per run:
//   notifications  when the server already publishes keyspace events for keys
//                  (notify-keyspace-events holds K and a class that covers
//                  them), every change is read as it happens, plus a sample of
//                  every key each interval; the server's configuration is only
//                  changed with `enableNotifications` (and put back afterwards);
//   sampling       otherwise (and on a cluster): every key each interval.
// `ratelab-cli keys --watch` prints what watchKeys() reports.

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "common/result.hpp"
#include "keys/key_reading.hpp"
#include "redis/redis_url.hpp"

namespace rl {

/// What to watch and for how long.
struct KeyWatchOptions {
  std::string prefix;               ///< literal prefix (required: a watch is about one limiter)
  std::string pattern;              ///< glob within it ("" = "*")
  std::int64_t intervalMs = 250;    ///< between samples
  std::int64_t durationMs = 10'000; ///< how long to watch
  ReadContext context;              ///< assumptions and Envoy descriptors (nowUs: per sample)
  bool enableNotifications = false; ///< may turn keyspace notifications on (and back off afterwards)
  std::size_t maxKeys = 1000;       ///< keys read per sample, at most
};

/// How the watch ran.
struct KeyWatchMode {
  bool notifications = false;  ///< keyspace notifications (else sampling)
  bool enabledByUs = false;    ///< notify-keyspace-events was set by this watch (and restored)
  std::string why;             ///< one sentence: why this mode
};

/// One observation of one key: `key.pttlMs` -2 and no reading when it is gone.
using KeyWatchSink = std::function<void(std::int64_t tMs, const KeyInfo& key, const std::optional<KeyReading>& reading)>;

/// Watches until durationMs has passed or `cancel` turns true; `sink` runs on the calling thread.
Result<KeyWatchMode> watchKeys(const RedisEndpoint& endpoint, const KeyWatchOptions& options, const KeyWatchSink& sink,
                               const std::atomic<bool>* cancel = nullptr);

/// Whether a notify-keyspace-events value publishes keyspace events for limiter keys
/// (K plus A, or a class of $ h z l g x e).
bool notificationsCoverKeys(std::string_view flags);

}  // namespace rl
