#pragma once
// SlotMap: which master serves each of the 16384 slots of a Redis Cluster,
// read from `CLUSTER SLOTS` (every Redis since 3.0; CLUSTER SHARDS is 7.0+
// only and says the same). Masters are numbered in the order the reply
// first names them; replicas are kept for tools (keys, failover demos).

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "redis/cluster/cluster_trust.hpp"
#include "redis/cluster/key_slot.hpp"
#include "redis/redis_connection.hpp"

namespace rl {

/// The most replicas a master may have in a CLUSTER SLOTS reply RateLab reads
/// (a real cluster has a handful; a hostile node could name millions).
inline constexpr std::size_t kMaxClusterReplicas = 64;

/// One node of a cluster as CLUSTER SLOTS names it.
struct ClusterNode {
  std::string host;  ///< address clients use (the node's announced IP)
  int port = 0;      ///< TCP port
  std::string id;    ///< 40-hex node id (empty on very old servers)
  /// `host:port`.
  std::string address() const;
};

/// The slot ownership of one cluster at one moment.
class SlotMap {
 public:
  /// Parses a CLUSTER SLOTS reply. Protocol error when it is malformed or out
  /// of bounds: more than 16384 ranges, more than kMaxClusterReplicas replicas
  /// per range or per master, a port outside 1 to 65535.
  static Result<SlotMap> fromClusterSlots(ReplyView reply);

  /// Index into masters() of the master serving `slot`, or -1 when no node serves it.
  int masterOf(int slot) const { return slot >= 0 && slot < kClusterSlots ? owner_[static_cast<std::size_t>(slot)] : -1; }
  /// The masters, in first-seen order.
  const std::vector<ClusterNode>& masters() const { return masters_; }
  /// Replicas of master `i` (as the map was read).
  const std::vector<ClusterNode>& replicasOf(int i) const { return replicas_[static_cast<std::size_t>(i)]; }
  /// Index of the master at host:port, adding it when unknown.
  int addMaster(const std::string& host, int port);
  /// Makes master `master` the owner of `slot` (a MOVED reply said so).
  void assign(int slot, int master) { owner_[static_cast<std::size_t>(slot)] = static_cast<std::int16_t>(master); }
  /// Slots served by some master.
  int coveredSlots() const;

 private:
  SlotMap() { owner_.fill(-1); }
  std::vector<ClusterNode> masters_;                  ///< by index
  std::vector<std::vector<ClusterNode>> replicas_;    ///< per master
  std::map<std::string, int> byAddress_;              ///< master index by host:port
  std::array<std::int16_t, kClusterSlots> owner_{};   ///< master index per slot, -1 = none
};

/// Reads the slot map from the first of `seeds` that answers CLUSTER SLOTS.
/// Unavailable when none answers (the error names each seed's failure);
/// InvalidArgument when a node answers but is not in cluster mode, or when the
/// map names a node (master or replica) `trust` refuses (nothing is connected to it).
Result<SlotMap> fetchSlotMap(const std::vector<RedisEndpoint>& seeds, const ClusterTrust& trust);

/// fetchSlotMap from `cluster`'s seeds, under ClusterTrust::of(cluster).
Result<SlotMap> fetchSlotMap(const RedisEndpoint& cluster);

/// The seed nodes of a cluster endpoint (host:port, then moreSeeds), as single-node endpoints.
std::vector<RedisEndpoint> clusterSeeds(const RedisEndpoint& endpoint);

}  // namespace rl
