#include "redis/key_watch.hpp"

#include <poll.h>

#include <chrono>
#include <set>

#include "redis/key_inspector.hpp"
#include "redis/redis_link.hpp"

namespace rl {

namespace {
using Clock = std::chrono::steady_clock;

std::int64_t msSince(Clock::time_point t0) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0).count();
}

// What the watch reads with: a link for the samples, the reading context and the keys seen.
struct Watcher {
  const KeyWatchOptions& o;
  const KeyWatchSink& sink;
  RedisLink link;
  Clock::time_point t0 = Clock::now();
  std::set<std::string> present;  // keys of the last sample

  void emit(const KeyInfo& k, std::int64_t nowUs) {
    ReadContext ctx = o.context;
    ctx.nowUs = nowUs;
    if (k.pttlMs == -2) sink(msSince(t0), k, std::nullopt);
    else sink(msSince(t0), k, readKey(k, ctx));
  }

  Result<void> sampleAll() {
    std::set<std::string> now;
    auto ok = link.forEachMaster([&](RedisConnection& conn) -> Result<void> {
      auto time = serverTimeUs(conn);
      if (!time) return time.error();
      std::uint64_t cursor = 0;
      do {
        auto page = scanLimiterKeys(conn, o.prefix, o.pattern, cursor, 1000, 5);
        if (!page) return page.error();
        for (const KeyInfo& k : page->keys)
          if (now.size() < o.maxKeys && k.pttlMs != -2 && now.insert(k.name).second) emit(k, *time);
        cursor = page->nextCursor;
      } while (cursor != 0 && now.size() < o.maxKeys);
      return {};
    });
    if (!ok) return ok;
    for (const std::string& name : present)
      if (!now.count(name)) {
        KeyInfo gone;
        gone.name = name;
        gone.type = "none";
        emit(gone, 0);
      }
    present = std::move(now);
    return {};
  }
};

// notify-keyspace-events now, or empty when CONFIG is not allowed.
std::string notifyFlags(RedisConnection& conn) {
  auto r = conn.command({"CONFIG", "GET", "notify-keyspace-events"});
  if (!r || r->isError() || r->size() < 2) return {};
  return std::string((*r)[1].str());
}

// Reads every key named by the keyspace messages waiting on `sub`; true when any came.
Result<bool> readNotified(RedisConnection& sub, Watcher& w, RedisConnection& conn, int waitMs) {
  pollfd p{sub.fd(), POLLIN, 0};
  if (::poll(&p, 1, std::max(0, waitMs)) <= 0) return false;
  std::set<std::string> names;
  for (;;) {
    auto m = sub.tryGetMessage();
    if (!m) return m.error();
    if (!m->has_value()) break;
    const std::string_view channel = (**m)[2].str();  // pmessage, pattern, __keyspace@N__:<key>, event
    if (const auto colon = channel.find("__:"); colon != std::string_view::npos) names.insert(std::string(channel.substr(colon + 3)));
  }
  if (names.empty()) return false;
  auto keys = readKeysNamed(conn, std::vector<std::string>(names.begin(), names.end()));
  auto now = serverTimeUs(conn);
  if (!keys) return keys.error();
  if (!now) return now.error();
  for (const KeyInfo& k : *keys) w.emit(k, *now);
  return true;
}

Result<void> watchByNotifications(const RedisEndpoint& ep, Watcher& w, const std::atomic<bool>* cancel) {
  auto sub = RedisConnection::connect(ep);
  if (!sub) return sub.error();
  auto conn = RedisConnection::connect(ep);
  if (!conn) return conn.error();
  const std::string pattern = "__keyspace@" + std::to_string(ep.db) + "__:" + globEscape(w.o.prefix) +
                              (w.o.pattern.empty() ? "*" : w.o.pattern);
  if (auto ok = sub->append({"PSUBSCRIBE", pattern}); !ok) return ok;
  if (auto r = sub->getReply(); !r) return r.error();
  if (auto ok = w.sampleAll(); !ok) return ok;
  std::int64_t nextSample = w.o.intervalMs;
  while (msSince(w.t0) < w.o.durationMs && !(cancel && cancel->load())) {
    const std::int64_t until = std::min(nextSample, w.o.durationMs);
    auto got = readNotified(*sub, w, *conn, static_cast<int>(std::min<std::int64_t>(until - msSince(w.t0), 50)));
    if (!got) return got.error();
    if (msSince(w.t0) >= nextSample) {
      if (auto ok = w.sampleAll(); !ok) return ok;
      nextSample += w.o.intervalMs;
    }
  }
  return {};
}
}  // namespace

bool notificationsCoverKeys(std::string_view f) {
  return f.find('K') != std::string_view::npos && f.find_first_of("A$hzlgxe") != std::string_view::npos;
}

Result<KeyWatchMode> watchKeys(const RedisEndpoint& endpoint, const KeyWatchOptions& o, const KeyWatchSink& sink,
                               const std::atomic<bool>* cancel) {
  auto link = RedisLink::connect(endpoint);
  if (!link) return link.error();
  Watcher w{o, sink, std::move(*link), Clock::now(), {}};
  KeyWatchMode mode;
  std::string flags;
  if (endpoint.cluster) {
    mode.why = "sampling: keyspace notifications are per node, and this is a cluster";
  } else {
    auto conn = RedisConnection::connect(endpoint);
    if (!conn) return conn.error();
    flags = notifyFlags(*conn);
    mode.notifications = notificationsCoverKeys(flags);
    if (!mode.notifications && o.enableNotifications) {
      auto set = conn->command({"CONFIG", "SET", "notify-keyspace-events", flags + "KA"});
      if (!set || set->isError())
        return invalidArgument("--enable-notifications: CONFIG SET notify-keyspace-events was refused: " +
                               (set ? std::string(set->str()) : set.error().message));
      mode.notifications = mode.enabledByUs = true;
    }
    mode.why = mode.enabledByUs ? "keyspace notifications, turned on by --enable-notifications (restored afterwards)"
               : mode.notifications ? "keyspace notifications: the server already publishes them ('" + flags + "')"
                                    : "sampling: the server does not publish keyspace notifications (--enable-notifications turns them on)";
  }
  Result<void> ran;
  if (mode.notifications) {
    ran = watchByNotifications(endpoint, w, cancel);
  } else {
    ran = w.sampleAll();
    for (std::int64_t next = o.intervalMs; ran && next <= o.durationMs && !(cancel && cancel->load()); next += o.intervalMs) {
      while (msSince(w.t0) < next && !(cancel && cancel->load())) ::poll(nullptr, 0, static_cast<int>(std::min<std::int64_t>(next - msSince(w.t0), 50)));
      ran = w.sampleAll();
    }
  }
  if (mode.enabledByUs)
    if (auto conn = RedisConnection::connect(endpoint)) (void)conn->command({"CONFIG", "SET", "notify-keyspace-events", flags});
  if (!ran) return ran.error();
  return mode;
}

}  // namespace rl
