#include "redis/cluster/managed_redis_cluster.hpp"

#include <algorithm>
#include <chrono>
#include <functional>

#include "process/readiness.hpp"
#include "process/loopback_port.hpp"
#include "redis/cluster/slot_map.hpp"
#include "redis/redis_connection.hpp"

namespace rl {

namespace {
using Clock = std::chrono::steady_clock;

Result<RedisReply> runOn(const ManagedRedisServer& node, std::vector<std::string> argv) {
  RedisEndpoint ep = node.endpoint();
  ep.commandTimeout = Micros{2'000'000};
  auto c = RedisConnection::connect(ep);
  if (!c) return c.error();
  auto r = c->command(argv);
  if (!r) return Error{r.error().code, argv[0] + " " + argv[1] + " on " + ep.address() + ": " + r.error().message};
  return r;
}

// Polls `check` every 20 ms until it is true or `deadline` passes; `what` names the wait.
Result<void> waitFor(Clock::time_point deadline, const std::string& what, const std::function<bool()>& check) {
  const auto left = std::max(std::chrono::duration_cast<Micros>(deadline - Clock::now()), Micros{0});
  if (!pollUntil(check, left, Micros{20'000})) return unavailable("the managed cluster did not " + what + " in time");
  return {};
}

// A loopback port p that is free, with its cluster bus port p + 10000 free too
// (so p <= 55535, as Redis requires). 0 when none was found.
int freeClusterPort() {
  for (int attempt = 0; attempt < 200; ++attempt) {
    const auto p = freePort();
    if (p && *p <= 55535 && portFree("127.0.0.1", *p + 10000)) return *p;
  }
  return 0;
}

std::string infoField(std::string_view info, std::string_view field) {
  const auto p = info.find(std::string(field) + ":");
  if (p == std::string_view::npos) return {};
  const auto start = p + field.size() + 1;
  return std::string(info.substr(start, info.find('\r', start) - start));
}
}  // namespace

Result<ManagedRedisCluster> ManagedRedisCluster::start(const ManagedClusterOptions& o) {
  if (o.masters < 3 || o.masters > 16 || o.replicasPerMaster < 0 || o.replicasPerMaster > 4)
    return invalidArgument("a managed cluster has 3 to 16 masters and 0 to 4 replicas per master");
  ManagedRedisCluster cluster;
  cluster.masters_ = o.masters;
  ManagedServerOptions node;
  node.executable = o.executable;
  node.extraArgs = {"--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                    "--cluster-node-timeout", std::to_string(o.nodeTimeout.count() / 1000),
                    "--cluster-require-full-coverage", "no", "--cluster-allow-replica-migration", "no",
                    "--repl-diskless-sync-delay", "0",
                    // CLUSTER SLOTS lists a replica once its replication offset is above 0; a master
                    // with no writes yet moves it only by its pings (default every 10 s).
                    "--repl-ping-replica-period", "1"};
  const int total = o.masters * (1 + o.replicasPerMaster);
  for (int i = 0; i < total; ++i) {
    Result<ManagedRedisServer> s = unavailable("no free loopback port p with p + 10000 free (the cluster bus)");
    for (int attempt = 0; attempt < 5 && !s; ++attempt) {  // a port found free may be taken before redis binds it
      node.port = freeClusterPort();
      if (node.port > 0) s = ManagedRedisServer::start(node);
    }
    if (!s) return Error{s.error().code, "cluster node " + std::to_string(i + 1) + ": " + s.error().message};
    cluster.nodes_.push_back(std::move(s).value());
  }
  if (auto ok = cluster.form(o); !ok) return ok.error();
  return cluster;
}

Result<void> ManagedRedisCluster::form(const ManagedClusterOptions& o) {
  const auto deadline = Clock::now() + o.startTimeout;
  const int n = static_cast<int>(nodes_.size());
  std::vector<std::string> ids;
  for (int i = 0; i < n; ++i) {
    auto id = runOn(nodes_[static_cast<std::size_t>(i)], {"CLUSTER", "MYID"});
    if (!id) return id.error();
    ids.emplace_back(id->str());
    if (auto e = runOn(nodes_[static_cast<std::size_t>(i)], {"CLUSTER", "SET-CONFIG-EPOCH", std::to_string(i + 1)}); !e)
      return e.error();
  }
  for (int m = 0; m < o.masters; ++m) {
    const int first = kClusterSlots * m / o.masters, last = kClusterSlots * (m + 1) / o.masters - 1;
    if (auto r = runOn(nodes_[static_cast<std::size_t>(m)],
                       {"CLUSTER", "ADDSLOTSRANGE", std::to_string(first), std::to_string(last)}); !r)
      return r.error();
  }
  for (int i = 1; i < n; ++i)
    if (auto r = runOn(nodes_[static_cast<std::size_t>(i)], {"CLUSTER", "MEET", "127.0.0.1", std::to_string(nodes_[0].port())}); !r)
      return r.error();
  auto everyoneKnowsAll = [&] {
    for (auto& node : nodes_) {
      auto r = runOn(node, {"CLUSTER", "NODES"});
      if (!r) return false;
      int lines = 0;
      for (char ch : r->str()) lines += ch == '\n';
      if (lines < n) return false;
    }
    return true;
  };
  if (auto ok = waitFor(deadline, "see all its nodes (CLUSTER MEET)", everyoneKnowsAll); !ok) return ok;
  for (int i = o.masters; i < n; ++i)
    if (auto r = runOn(nodes_[static_cast<std::size_t>(i)], {"CLUSTER", "REPLICATE", ids[static_cast<std::size_t>(i % o.masters)]}); !r)
      return r.error();
  auto replicasUp = [&] {
    for (int i = o.masters; i < n; ++i) {
      auto r = runOn(nodes_[static_cast<std::size_t>(i)], {"INFO", "replication"});
      if (!r || infoField(r->str(), "master_link_status") != "up") return false;
    }
    return true;
  };
  if (auto ok = waitFor(deadline, "sync its replicas", replicasUp); !ok) return ok;
  return waitUntilOk(std::chrono::duration_cast<Micros>(deadline - Clock::now()), o.replicasPerMaster);
}

Result<void> ManagedRedisCluster::waitUntilOk(Micros timeout, int replicas) const {
  const auto deadline = Clock::now() + timeout;
  auto ok = [&] {
    std::string owners;
    for (const auto& node : nodes_) {
      if (!node.running()) continue;
      auto info = runOn(node, {"CLUSTER", "INFO"});
      if (!info || infoField(info->str(), "cluster_state") != "ok") return false;
      auto slots = runOn(node, {"CLUSTER", "SLOTS"});
      if (!slots) return false;
      auto map = SlotMap::fromClusterSlots(*slots);
      if (!map) return false;
      std::string mine;
      for (int s = 0; s < kClusterSlots; s += 64) {
        const int m = map->masterOf(s);
        mine += m < 0 ? "-" : map->masters()[static_cast<std::size_t>(m)].address();
        // The first node answers the first CLUSTER SLOTS of every client: it must list the replicas.
        if (&node == &nodes_.front() && replicas >= 0 && m >= 0 &&
            map->replicasOf(m).size() < static_cast<std::size_t>(replicas))
          return false;
      }
      if (!owners.empty() && owners != mine) return false;
      owners = mine;
    }
    return true;
  };
  return waitFor(deadline, "reach cluster_state:ok on every node", ok);
}

RedisEndpoint ManagedRedisCluster::endpoint() const {
  RedisEndpoint ep = nodes_.front().endpoint();
  ep.cluster = true;
  for (std::size_t i = 1; i < nodes_.size(); ++i) ep.moreSeeds.emplace_back("127.0.0.1", nodes_[i].port());
  return ep;
}

ManagedRedisServer* ManagedRedisCluster::nodeOnPort(int port) {
  for (auto& n : nodes_)
    if (n.port() == port) return &n;
  return nullptr;
}

}  // namespace rl
