#include "redis_target.hpp"

#include <cstdio>

#include "cli_flags.hpp"
#include "redis/cluster/slot_map.hpp"
#include "redis/redis_connection.hpp"
#include "redis/server_status.hpp"

namespace rl::cli {

namespace {
// `--redis cluster` / `--redis sentinel`: Set::start() into `slot`; one line on stderr either way.
template <class Set>
bool startPrivateSet(std::string_view command, const char* what, std::optional<Set>& slot, RedisEndpoint& endpoint) {
  installServerSignalCleanup();
  auto set = Set::start();
  if (!set) {
    std::fprintf(stderr, "ratelab-cli %.*s: cannot start a private %s: %s\n", static_cast<int>(command.size()),
                 command.data(), what, set.error().message.c_str());
    return false;
  }
  endpoint = set->endpoint();
  slot.emplace(std::move(set).value());
  std::fprintf(stderr, "ratelab-cli: started a private %s at %s (stopped on exit)\n", what, endpoint.toString().c_str());
  return true;
}
}  // namespace

int resolveRedisTarget(const std::optional<std::string>& url, std::string_view command,
                       std::optional<RedisTarget>& out, const ManagedServerOptions& managed) {
  RedisTarget target;
  if (url && *url == kPrivateClusterWord) {
    if (!startPrivateSet(command, "Redis Cluster (3 masters + 3 replicas)", target.cluster, target.endpoint))
      return kExitNoRedis;
  } else if (url && *url == kPrivateSentinelWord) {
    if (!startPrivateSet(command, "Sentinel set (1 master, 2 replicas, 3 Sentinels)", target.sentinel, target.endpoint))
      return kExitNoRedis;
  } else if (url && *url == kManagedRedis) {
    installServerSignalCleanup();
    auto server = ManagedRedisServer::start(managed);
    if (!server) {
      std::fprintf(stderr, "ratelab-cli %.*s: cannot start a private redis-server (--redis managed): %s\n",
                   static_cast<int>(command.size()), command.data(), server.error().message.c_str());
      return kExitNoRedis;
    }
    target.endpoint = server->endpoint();
    target.server.emplace(std::move(server).value());
    std::fprintf(stderr, "ratelab-cli: a private redis-server on %s (--redis managed), stopped on exit\n",
                 target.endpoint.address().c_str());
  } else if (url && !url->empty()) {
    auto endpoint = resolveRedisUrl(*url);
    if (!endpoint) return badInput(command, invalidArgument("--redis: " + endpoint.error().message));
    target.endpoint = endpoint.value();
  } else {
    installServerSignalCleanup();
    auto embedded = resolveEmbeddedDefault();
    if (!embedded) {
      std::fprintf(stderr, "ratelab-cli %.*s: cannot reach Redis at 127.0.0.1:6379 (embedded default): %s\n",
                   static_cast<int>(command.size()), command.data(), embedded.error().message.c_str());
      return kExitNoRedis;
    }
    target.endpoint = embedded->endpoint;
    target.server = std::move(embedded->server);
    if (target.server) std::fprintf(stderr, "ratelab-cli: %s\n", embedded->description.c_str());
  }
  if (target.endpoint.cluster) {
    auto map = fetchSlotMap(target.endpoint);
    if (!map) {
      if (map.error().code == ErrorCode::InvalidArgument) return badInput(command, invalidArgument("--redis: " + map.error().message));
      std::fprintf(stderr, "ratelab-cli %.*s: cannot reach the Redis Cluster at %s: %s\n", static_cast<int>(command.size()),
                   command.data(), target.endpoint.toString().c_str(), map.error().message.c_str());
      return kExitNoRedis;
    }
    out.emplace(std::move(target));
    return kExitOk;
  }
  auto conn = RedisConnection::connect(target.endpoint);
  Result<RedisReply> pong = conn ? conn->command({"PING"}) : Result<RedisReply>(conn.error());
  if (!pong) {
    std::fprintf(stderr, "ratelab-cli %.*s: cannot reach Redis at %s: %s\n", static_cast<int>(command.size()),
                 command.data(),
                 (target.endpoint.viaSentinel() ? target.endpoint.toString() : target.endpoint.address()).c_str(),
                 pong.error().message.c_str());
    return kExitNoRedis;
  }
  out.emplace(std::move(target));
  return kExitOk;
}

std::string redisVersion(const RedisEndpoint& endpoint) {
  auto c = RedisConnection::connect(endpoint);
  if (!c) return "?";
  auto status = serverStatus(*c);
  return status ? status->version : "?";
}

}  // namespace rl::cli
