#pragma once
// ManagedRedisCluster: a private Redis Cluster of managed redis-server nodes
// (ManagedRedisServer with --cluster-enabled yes, each in its own temp dir on
// a free loopback port), for `--redis cluster`, `ratelab-cli cluster up` and
// tests. Default: 3 masters + 1 replica each.
//
// The cluster is formed with plain commands (what `redis-cli --cluster create`
// sends, without its one-second sleeps): ADDSLOTSRANGE on each master, MEET,
// REPLICATE, then it waits until every node reports cluster_state:ok and every
// replica's link is up. Nodes run with cluster-require-full-coverage no, so a
// master that dies without a replica only takes its own slots down.
//
// Lifetime and cleanup are the nodes' own (managed_redis_server.hpp): the
// destructor stops them and removes their dirs; SIGINT/SIGTERM through
// installServerSignalCleanup(); an owner killed with SIGKILL takes the nodes
// with it (PR_SET_PDEATHSIG).

#include <string_view>
#include <vector>

#include "common/result.hpp"
#include "redis/managed_redis_server.hpp"
#include "redis/redis_url.hpp"

namespace rl {

/// The word that asks for a private cluster where a Redis URL goes (`--redis cluster`, the window's URL field).
inline constexpr std::string_view kPrivateClusterWord = "cluster";

/// How to start a managed cluster.
struct ManagedClusterOptions {
  int masters = 3;                   ///< 3.. (Redis Cluster needs 3 masters for a majority)
  int replicasPerMaster = 1;         ///< 0..
  Micros nodeTimeout{2'000'000};     ///< cluster-node-timeout: when a silent node is marked failed
  Micros startTimeout{20'000'000};   ///< how long forming may take
  std::string executable;            ///< redis-server path; empty = search PATH
};

/// A private cluster; see the file comment. Move-only.
class ManagedRedisCluster {
 public:
  /// Starts the nodes and forms the cluster. Unavailable naming the node or step that failed.
  static Result<ManagedRedisCluster> start(const ManagedClusterOptions& options = {});

  /// `redis+cluster://127.0.0.1:<m1>,127.0.0.1:<m2>,...` (every node a seed), default timeouts.
  RedisEndpoint endpoint() const;
  /// The nodes: masters first, then replicas (roles as formed; failovers change them).
  std::vector<ManagedRedisServer>& nodes() { return nodes_; }
  /// The node listening on `port`, or null.
  ManagedRedisServer* nodeOnPort(int port);
  /// Waits until every running node reports cluster_state:ok and the same slot owners;
  /// with `replicas` >= 0, until the first node also lists that many replicas per master.
  Result<void> waitUntilOk(Micros timeout, int replicas = -1) const;

 private:
  ManagedRedisCluster() = default;
  Result<void> form(const ManagedClusterOptions& options);

  std::vector<ManagedRedisServer> nodes_;  ///< owned nodes
  int masters_ = 0;                        ///< masters as formed
};

}  // namespace rl
