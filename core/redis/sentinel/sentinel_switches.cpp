#include "redis/sentinel/sentinel_switches.hpp"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <chrono>
#include <map>
#include <vector>

#include "common/number_text.hpp"
#include "redis/redis_connection.hpp"
#include "redis/sentinel/sentinel_discovery.hpp"

namespace rl {

namespace {
using Clock = std::chrono::steady_clock;
constexpr int kPollMs = 100;  // the longest the thread sleeps before it looks at a Sentinel that is down again

bool printableHost(std::string_view h) {
  if (h.empty() || h.size() > 255) return false;
  for (char c : h)
    if (c <= ' ' || c > '~') return false;
  return true;
}

std::optional<int> portOf(std::string_view s) {
  int p = 0;
  if (!parseWholeText(s, p) || p < 1 || p > 65535) return std::nullopt;
  return p;
}

std::string feedKey(const RedisEndpoint& ep) {
  std::string key = ep.sentinelService;
  for (const auto& [host, port] : ep.sentinels) key += " " + host + ":" + std::to_string(port);
  return key;
}

// One Sentinel's subscribed connection, or when it is not up, when to try again.
struct Subscription {
  RedisEndpoint sentinel;
  std::optional<RedisConnection> conn;
  Clock::time_point retryAt{};
};

Result<RedisConnection> subscribe(const RedisEndpoint& sentinel) {
  auto c = RedisConnection::connect(sentinel);
  if (!c) return c.error();
  auto r = c->command({"SUBSCRIBE", "+switch-master"});
  if (!r) return r.error();
  if (!r->isArray() || r->size() != 3 || (*r)[0].str() != "subscribe")
    return protocolError("SUBSCRIBE +switch-master got " + r->describe());
  return std::move(c).value();
}
}  // namespace

std::optional<SwitchAnnouncement> parseSwitchAnnouncement(std::string_view payload) {
  std::vector<std::string_view> words;
  for (std::size_t from = 0; words.size() <= 5;) {
    const auto space = payload.find(' ', from);
    words.push_back(payload.substr(from, space == std::string_view::npos ? std::string_view::npos : space - from));
    if (space == std::string_view::npos) break;
    from = space + 1;
  }
  if (words.size() != 5) return std::nullopt;
  const auto oldPort = portOf(words[2]);
  const auto newPort = portOf(words[4]);
  if (words[0].empty() || !printableHost(words[0]) || !printableHost(words[1]) || !oldPort ||
      !printableHost(words[3]) || !newPort)
    return std::nullopt;
  return SwitchAnnouncement{std::string(words[0]), std::string(words[3]), *newPort};
}

std::shared_ptr<SentinelSwitches> SentinelSwitches::of(const RedisEndpoint& ep) {
  static std::mutex registryMutex;
  static std::map<std::string, std::weak_ptr<SentinelSwitches>> registry;
  std::lock_guard lock(registryMutex);
  auto& slot = registry[feedKey(ep)];
  if (auto running = slot.lock()) return running;
  auto feed = std::make_shared<SentinelSwitches>(ep);
  slot = feed;
  return feed;
}

SentinelSwitches::SentinelSwitches(const RedisEndpoint& ep) : ep_(ep) {
  if (::pipe2(wake_, O_CLOEXEC | O_NONBLOCK) != 0) wake_[0] = wake_[1] = -1;
  thread_ = std::thread([this] { run(); });
}

SentinelSwitches::~SentinelSwitches() {
  stop_ = true;
  if (wake_[1] >= 0) (void)!::write(wake_[1], "x", 1);
  if (thread_.joinable()) thread_.join();
  for (int fd : wake_)
    if (fd >= 0) ::close(fd);
}

std::optional<std::pair<std::string, int>> SentinelSwitches::announced() const {
  std::lock_guard lock(mutex_);
  return announced_;
}

void SentinelSwitches::heard(std::string_view payload) {
  const auto a = parseSwitchAnnouncement(payload);
  if (!a || a->service != ep_.sentinelService) {
    ++ignored_;
    return;
  }
  {
    std::lock_guard lock(mutex_);
    announced_ = std::make_pair(a->host, a->port);
  }
  switches_.fetch_add(1, std::memory_order_release);
}

void SentinelSwitches::run() {
  std::vector<Subscription> subs;
  for (const auto& [host, port] : ep_.sentinels) {
    Subscription s;
    s.sentinel.host = host;
    s.sentinel.port = port;
    s.sentinel.connectTimeout = std::min(ep_.connectTimeout, kSentinelWait);
    s.sentinel.commandTimeout = kSentinelWait;
    subs.push_back(std::move(s));
  }
  while (!stop_) {
    std::vector<pollfd> fds;
    std::vector<Subscription*> polled;
    int up = 0;
    for (Subscription& s : subs) {
      if (!s.conn && Clock::now() >= s.retryAt && !stop_) {
        auto c = subscribe(s.sentinel);
        if (c) s.conn.emplace(std::move(c).value());
        else s.retryAt = Clock::now() + kSentinelResubscribe;
      }
      if (!s.conn) continue;
      ++up;
      fds.push_back({s.conn->fd(), POLLIN, 0});
      polled.push_back(&s);
    }
    subscribed_ = up;
    fds.push_back({wake_[0], POLLIN, 0});
    // Messages that came with the SUBSCRIBE reply are already read into hiredis's buffer, where
    // poll() does not see them: each subscription is read after every wake, readable or not.
    (void)::poll(fds.data(), fds.size(), kPollMs);
    for (std::size_t i = 0; i < polled.size(); ++i) {
      Subscription& s = *polled[i];
      for (;;) {
        auto m = s.conn->tryGetMessage();
        const bool flood = m && s.conn->bufferedBytes() > kMaxSentinelBuffered;
        if (!m || flood) {
          s.conn.reset();
          s.retryAt = Clock::now() + kSentinelResubscribe;
          break;
        }
        if (!m->has_value()) break;
        const ReplyView msg = **m;
        if (msg.isArray() && msg.size() == 3 && msg[0].str() == "message" && msg[1].str() == "+switch-master")
          heard(msg[2].str());
        else
          ++ignored_;
      }
    }
  }
  subscribed_ = 0;
}

}  // namespace rl
