#include "redis/sentinel/managed_redis_sentinel.hpp"

#include "process/readiness.hpp"
#include "redis/redis_connection.hpp"

namespace rl {

namespace {

// One command on a fresh connection to `port` (a Sentinel or a node of the set).
Result<RedisReply> askPort(int port, std::initializer_list<std::string_view> argv) {
  RedisEndpoint ep;
  ep.port = port;
  ep.commandTimeout = Micros{1'000'000};
  auto c = RedisConnection::connect(ep);
  if (!c) return c.error();
  return c->command(argv);
}

// The integer after `field` in a flat [name, value, ...] reply (SENTINEL MASTER), or -1.
std::int64_t fieldOf(const ReplyView& r, std::string_view field) {
  for (std::size_t i = 0; i + 1 < r.size(); i += 2)
    if (r[i].str() == field) return r[i + 1].toInt().value_or(-1);
  return -1;
}
}  // namespace

Result<ManagedRedisSentinel> ManagedRedisSentinel::start(const ManagedSentinelOptions& o) {
  if (o.replicas < 0 || o.replicas > 4 || o.sentinels < 1 || o.sentinels > 7)
    return invalidArgument("a private Sentinel set has 0 to 4 replicas and 1 to 7 Sentinels");
  ManagedRedisSentinel set;
  ManagedServerOptions node;
  node.executable = o.executable;
  node.extraArgs = {"--repl-diskless-sync-delay", "0", "--repl-ping-replica-period", "1"};
  for (int i = 0; i <= o.replicas; ++i) {
    if (i == 1) node.extraArgs.insert(node.extraArgs.end(), {"--replicaof", "127.0.0.1", std::to_string(set.nodes_[0].port())});
    auto s = ManagedRedisServer::start(node);
    if (!s) return Error{s.error().code, (i == 0 ? std::string("master: ") : "replica " + std::to_string(i) + ": ") + s.error().message};
    set.nodes_.push_back(std::move(s).value());
  }
  const std::string service(kPrivateSentinelService);
  ManagedServerOptions sentinel;
  sentinel.executable = o.executable;
  sentinel.sentinelConfig = {
      "sentinel monitor " + service + " 127.0.0.1 " + std::to_string(set.nodes_[0].port()) + " " +
          std::to_string(o.sentinels / 2 + 1),
      "sentinel down-after-milliseconds " + service + " " + std::to_string(o.downAfter.count() / 1000),
      "sentinel failover-timeout " + service + " " + std::to_string(o.failoverTimeout.count() / 1000),
      "sentinel parallel-syncs " + service + " 1"};
  for (int i = 0; i < o.sentinels; ++i) {
    auto s = ManagedRedisServer::start(sentinel);
    if (!s) return Error{s.error().code, "Sentinel " + std::to_string(i + 1) + ": " + s.error().message};
    set.sentinels_.push_back(std::move(s).value());
  }
  if (auto ok = set.waitUntilReady(o); !ok) return ok.error();
  return set;
}

Result<void> ManagedRedisSentinel::waitUntilReady(const ManagedSentinelOptions& o) const {
  const std::string service(kPrivateSentinelService);
  auto ready = [&] {
    for (const auto& s : sentinels_) {
      auto m = askPort(s.port(), {"SENTINEL", "MASTER", service});
      if (!m || fieldOf(*m, "num-slaves") < o.replicas || fieldOf(*m, "num-other-sentinels") < o.sentinels - 1)
        return false;
    }
    for (std::size_t i = 1; i < nodes_.size(); ++i) {
      auto info = askPort(nodes_[i].port(), {"INFO", "replication"});
      if (!info || info->str().find("master_link_status:up") == std::string_view::npos) return false;
    }
    return true;
  };
  if (!pollUntil(ready, o.startTimeout, Micros{50'000}))
    return unavailable("the private Sentinel set did not become ready (every Sentinel knowing " +
                       std::to_string(o.replicas) + " replicas and " + std::to_string(o.sentinels - 1) +
                       " other Sentinels) within " + std::to_string(o.startTimeout.count() / 1000) + " ms");
  return {};
}

RedisEndpoint ManagedRedisSentinel::endpoint() const {
  RedisEndpoint ep;
  ep.port = sentinels_.front().port();
  ep.sentinelService = std::string(kPrivateSentinelService);
  for (const auto& s : sentinels_) ep.sentinels.emplace_back("127.0.0.1", s.port());
  return ep;
}

ManagedRedisServer* ManagedRedisSentinel::nodeOnPort(int port) {
  for (auto& n : nodes_)
    if (n.port() == port) return &n;
  return nullptr;
}

std::vector<int> ManagedRedisSentinel::pids() const {
  std::vector<int> out;
  for (const auto* group : {&nodes_, &sentinels_})
    for (const auto& s : *group)
      if (s.pid() > 0) out.push_back(s.pid());
  return out;
}

std::vector<std::string> ManagedRedisSentinel::dirs() const {
  std::vector<std::string> out;
  for (const auto* group : {&nodes_, &sentinels_})
    for (const auto& s : *group) out.push_back(s.dir());
  return out;
}

}  // namespace rl
