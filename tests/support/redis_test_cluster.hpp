#pragma once
// RedisTestCluster: a private Redis Cluster for one test executable (3
// masters, optionally a replica each), every node a managed redis-server on a
// free loopback port in its own temp dir. Start it once in initTestCase():
// forming a cluster takes a second or two.

#include <QtTest>

#include <optional>
#include <string>

#include "redis/cluster/managed_redis_cluster.hpp"
#include "redis/redis_store.hpp"

namespace rl::test {

/// A private cluster; check ok() (RL_REQUIRE_CLUSTER).
class RedisTestCluster {
 public:
  explicit RedisTestCluster(int replicasPerMaster = 0) {
    ManagedClusterOptions o;
    o.replicasPerMaster = replicasPerMaster;
    auto c = ManagedRedisCluster::start(o);
    if (c) cluster_.emplace(std::move(c).value());
    else error_ = "cannot start a private Redis Cluster for this test: " + c.error().message;
  }
  bool ok() const { return cluster_.has_value(); }           ///< true when formed
  const std::string& error() const { return error_; }        ///< why not
  ManagedRedisCluster& cluster() { return *cluster_; }       ///< the nodes
  /// redis+cluster:// endpoint with a 2 s command timeout (a busy machine is not an outage).
  RedisEndpoint endpoint() const {
    RedisEndpoint ep = cluster_->endpoint();
    ep.commandTimeout = Micros{2'000'000};
    return ep;
  }
  /// Store options on this cluster with their own prefix.
  RedisStoreOptions storeOptions(std::string prefix, bool serverClock = true) const {
    RedisStoreOptions o;
    o.endpoint = endpoint();
    o.prefix = std::move(prefix);
    o.serverClock = serverClock;
    return o;
  }

 private:
  std::optional<ManagedRedisCluster> cluster_;  ///< empty when start failed
  std::string error_;                           ///< start failure
};

}  // namespace rl::test

/// Fails the current test function with the cluster's start error.
#define RL_REQUIRE_CLUSTER(c) QVERIFY2((c).ok(), (c).error().c_str())
