#include "redis/cluster/slot_map.hpp"

#include <set>

namespace rl {

namespace {
Result<ClusterNode> parseNode(ReplyView n) {
  if (n.size() < 2 || !n[0].isString() || !n[1].isInteger())
    return protocolError("CLUSTER SLOTS node entry is " + n.describe() + ", expected [host, port, id, ...]");
  if (n[1].integer() < 1 || n[1].integer() > 65535)
    return protocolError("CLUSTER SLOTS names port " + std::to_string(n[1].integer()) + " for node " +
                         std::string(n[0].str().substr(0, 64)) + ": allowed 1 to 65535");
  ClusterNode node{std::string(n[0].str()), static_cast<int>(n[1].integer()),
                   n.size() > 2 && n[2].isString() ? std::string(n[2].str()) : std::string()};
  if (node.host.empty() || node.host == "?") node.host = "127.0.0.1";  // unknown endpoint: the one we asked
  return node;
}
}  // namespace

std::string ClusterNode::address() const { return host + ":" + std::to_string(port); }

int SlotMap::addMaster(const std::string& host, int port) {
  ClusterNode node{host, port, {}};
  const auto [it, added] = byAddress_.emplace(node.address(), static_cast<int>(masters_.size()));
  if (!added) return it->second;
  masters_.push_back(std::move(node));
  replicas_.emplace_back();
  return it->second;
}

int SlotMap::coveredSlots() const {
  int n = 0;
  for (auto o : owner_) n += o >= 0 ? 1 : 0;
  return n;
}

Result<SlotMap> SlotMap::fromClusterSlots(ReplyView reply) {
  if (!reply.isArray()) return protocolError("CLUSTER SLOTS returned " + reply.describe());
  if (reply.size() > static_cast<std::size_t>(kClusterSlots))
    return protocolError("CLUSTER SLOTS names " + std::to_string(reply.size()) + " slot ranges: allowed at most " +
                         std::to_string(kClusterSlots) + " (one per slot)");
  SlotMap map;
  std::vector<std::set<std::string>> seen;  // replica addresses per master, for a duplicate check in log time
  for (std::size_t i = 0; i < reply.size(); ++i) {
    ReplyView range = reply[i];
    if (range.size() < 3 || !range[0].isInteger() || !range[1].isInteger())
      return protocolError("CLUSTER SLOTS entry " + std::to_string(i) + " is " + range.describe());
    if (range.size() - 3 > kMaxClusterReplicas)
      return protocolError("CLUSTER SLOTS entry " + std::to_string(i) + " names " + std::to_string(range.size() - 3) +
                           " replicas: allowed at most " + std::to_string(kMaxClusterReplicas) + " per slot range");
    const auto first = range[0].integer(), last = range[1].integer();
    if (first < 0 || last >= kClusterSlots || first > last)
      return protocolError("CLUSTER SLOTS range " + std::to_string(first) + "-" + std::to_string(last) +
                           " is outside 0-16383");
    auto master = parseNode(range[2]);
    if (!master) return master.error();
    const int m = map.addMaster(master->host, master->port);
    map.masters_[static_cast<std::size_t>(m)].id = master->id;
    auto& replicas = map.replicas_[static_cast<std::size_t>(m)];
    seen.resize(map.masters_.size());
    for (std::size_t r = 3; r < range.size(); ++r) {
      auto rep = parseNode(range[r]);
      if (!rep) return rep.error();
      if (seen[static_cast<std::size_t>(m)].insert(rep->address()).second) replicas.push_back(*rep);
    }
    if (replicas.size() > kMaxClusterReplicas)
      return protocolError("CLUSTER SLOTS names " + std::to_string(replicas.size()) + " replicas of " +
                           map.masters_[static_cast<std::size_t>(m)].address() + ": allowed at most " +
                           std::to_string(kMaxClusterReplicas) + " per master");
    for (auto s = first; s <= last; ++s) map.assign(static_cast<int>(s), m);
  }
  return map;
}

std::vector<RedisEndpoint> clusterSeeds(const RedisEndpoint& endpoint) {
  std::vector<RedisEndpoint> seeds{endpoint.node(endpoint.host, endpoint.port)};
  for (const auto& [h, p] : endpoint.moreSeeds) seeds.push_back(endpoint.node(h, p));
  return seeds;
}

namespace {
// Every node of `map` that `trust` accepts, or the first refusal.
Result<void> admitAll(const SlotMap& map, const ClusterTrust& trust, const std::string& namedBy) {
  for (std::size_t i = 0; i < map.masters().size(); ++i) {
    const ClusterNode& m = map.masters()[i];
    if (auto ok = trust.admit(m.host, m.port, namedBy); !ok) return ok;
    for (const ClusterNode& r : map.replicasOf(static_cast<int>(i)))
      if (auto ok = trust.admit(r.host, r.port, namedBy); !ok) return ok;
  }
  return {};
}
}  // namespace

Result<SlotMap> fetchSlotMap(const RedisEndpoint& cluster) {
  return fetchSlotMap(clusterSeeds(cluster), ClusterTrust::of(cluster));
}

Result<SlotMap> fetchSlotMap(const std::vector<RedisEndpoint>& seeds, const ClusterTrust& trust) {
  std::string why;
  for (const auto& seed : seeds) {
    auto conn = RedisConnection::connect(seed);
    Result<RedisReply> r = conn ? conn->command({"CLUSTER", "SLOTS"}) : Result<RedisReply>(conn.error());
    if (r) {
      auto map = SlotMap::fromClusterSlots(*r);
      if (!map || map->masters().empty()) {
        if (!map) return map.error();
        why += (why.empty() ? "" : "; ") + seed.address() + ": no slots assigned yet";
        continue;
      }
      if (auto ok = admitAll(*map, trust, "in CLUSTER SLOTS from " + seed.address()); !ok) return ok.error();
      return map;
    }
    if (r.error().message.find("cluster support disabled") != std::string::npos)
      return invalidArgument("the Redis at " + seed.address() +
                             " is not in cluster mode: use redis:// for a single server");
    why += (why.empty() ? "" : "; ") + r.error().message;
  }
  return unavailable("cannot read the cluster's slot map from any seed node (" + why + ")");
}

}  // namespace rl
