#pragma once
// ServeCluster: what `ratelab-cli serve` (and the GUI's serve toggle) stands
// up: K ReplicaServers, each with its own store on an event thread (its own,
// or shared with other replicas: `replicaThreads`), and a
// front balancing over them: the builtin FrontProxy (round-robin), Debian's
// nginx (NginxFront), or none. All bind loopback unless an address is given
// explicitly. The replicas believe X-Forwarded-For from exactly that front (a
// per-run secret) and from `trustedProxies`.

#include <cstdint>
#include <string_view>
#include <memory>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "http/front_proxy.hpp"
#include "http/nginx_front.hpp"
#include "http/replica_server.hpp"
#include "store/backend.hpp"

namespace rl {

/// Which front balances the replicas.
enum class FrontKind {
  Builtin,  ///< FrontProxy, in this process
  Nginx,    ///< Debian's nginx as a child process
  None,     ///< replicas only
};
/// "builtin", "nginx", "none".
std::string_view frontKindName(FrontKind k);
/// Parses a front name; InvalidArgument names the allowed ones.
Result<FrontKind> parseFrontKind(std::string_view name);

/// How a cluster is set up.
struct ServeOptions {
  Algorithm algorithm = Algorithm::TokenBucket;      ///< the limiter's algorithm
  Quota quota;                                       ///< its quota (validated at start)
  int replicas = 1;                                  ///< 1..64 replica servers
  int replicaThreads = 0;                            ///< event threads the replicas share (replica i on
                                                     ///< thread i mod n), 1..replicas; 0 = one per replica
  FailurePolicy onStoreError = FailurePolicy::Open;  ///< answer when a store fails
  std::string bindAddress = "127.0.0.1";             ///< front and replicas
  int frontPort = 0;                                 ///< 0 = any free port
  std::vector<int> replicaPorts;                     ///< empty = any free ports; else one per replica
  HttpServerLimits limits;                           ///< per listener (front and each replica)
  bool fitConnections = true;                        ///< limits.maxConnections is a default: lowered to
                                                     ///< what the open-file limit fits (serve_descriptors.hpp);
                                                     ///< false: one that does not fit is an error
  DecisionObserver observer;                         ///< optional; called on replica threads
  FrontKind front = FrontKind::Builtin;              ///< the front
  std::string trustedProxies;                        ///< `CIDR[,CIDR]` whose X-Forwarded-For is believed
  bool allowClientOverrides = false;                 ///< honour x-ratelab-algorithm / x-ratelab-cost
  std::int64_t maxCost = 1000;                       ///< x-ratelab-cost cap (also <= limit)
  std::size_t localMaxKeys = 0;                      ///< keys each replica's local failure policy
                                                     ///< limiter holds; 0 = unbounded (the memory
                                                     ///< backend's own bound is the factory's)
};

/// Event threads for `replicas` replicas whose stores never block their thread (memory,
/// redis-lua): one per core left beside the front's thread, at least 1, at most `replicas`.
/// More threads than cores only add wakeups and context switches per request.
int sharedReplicaThreads(int replicas);

/// The event threads `replicas` replicas deciding on `backend` get by default:
/// sharedReplicaThreads() when their store never blocks its thread (memory, and
/// redis-lua on one server, asked asynchronously), else one per replica (read-decide-
/// write backends, whose races must stay visible, a team's script, and redis-lua on
/// a Redis Cluster or through Sentinels, which is asked synchronously: `redisCluster` is true
/// for both). `ratelab-cli serve` and the window use it.
int defaultReplicaThreads(Backend backend, bool redisCluster, int replicas);

/// Totals over the cluster at one moment.
struct ServeTally {
  std::int64_t admitted = 0;       ///< 200 by the limiter
  std::int64_t denied = 0;         ///< 429
  std::int64_t failedOpen = 0;     ///< store failed, fail-open admitted
  std::int64_t failedClosed = 0;   ///< store failed, fail-closed refused (503)
  std::int64_t badRequests = 0;    ///< 400/408/413/431/501/505 from any listener or the limiter
  std::int64_t upstreamErrors = 0; ///< front answered 502/504
  std::int64_t internalErrors = 0; ///< 500: store errors that are not outages
  std::int64_t refusedConnections = 0;  ///< 503 at connect: over a cap (front and replicas)
  std::int64_t refusedPerAddress = 0;   ///< of which over the per-address cap
  std::int64_t reclaimedConnections = 0;  ///< idle connections closed to make room
  std::int64_t outOfDescriptors = 0;    ///< accept() failures for want of descriptors (EMFILE)
  std::int64_t evictedKeys = 0;         ///< limiter keys dropped before expiry to stay within --max-keys
  int openConnections = 0;         ///< builtin front's downstream connections open now (replicas' without a front)
  std::vector<std::int64_t> perReplica;  ///< decisions per replica
};

/// Replicas plus front; see the file comment. Destroying it stops everything.
class ServeCluster {
 public:
  /// Validates, starts the replicas (calling `factory` on each replica's thread), then the front.
  static Result<std::unique_ptr<ServeCluster>> start(ServeOptions options, const ReplicaStoreFactory& factory);
  ~ServeCluster();

  /// `http://127.0.0.1:<front port>` (the first replica's URL without a front).
  std::string frontUrl() const;
  /// The front in use.
  FrontKind front() const { return kind_; }
  /// The nginx front's process id (0 for the other fronts).
  int frontPid() const { return nginx_ ? nginx_->pid() : 0; }
  /// The replicas' URLs, in round-robin order.
  std::vector<std::string> replicaUrls() const;
  /// Current totals (any thread).
  ServeTally tally() const;
  /// One line: "200: 10  429: 10  503: 0  fail-open: 0  bad: 0  500: 0  502/504: 0  conns: 3  refused: 2
  /// (per address: 2)  reclaimed: 1  emfile: 4  per replica: 5/5/5/5" (503 = fail-closed answers;
  /// refused = connections answered 503 at connect; reclaimed = idle ones closed to make room;
  /// emfile = accept() failures for want of descriptors; these three only once non-zero).
  std::string tallyLine() const;
  /// Every replica is pipelinable (replica_server.hpp): the builtin front pipelines to them.
  bool pipelinable() const { return pipelinable_; }
  /// "open files: at most 1,022 of 1024 (ulimit -n) with 306 connections at the front"
  /// (serve_descriptors.hpp); says when the default connection cap was lowered to fit.
  std::string descriptorLine() const { return descriptorLine_; }

 private:
  ServeCluster() = default;
  std::vector<std::unique_ptr<ReplicaServer>> replicas_;  ///< the replicas
  std::unique_ptr<FrontProxy> front_;                     ///< builtin front (destroyed first)
  std::unique_ptr<NginxFront> nginx_;                     ///< nginx front (destroyed first)
  FrontKind kind_ = FrontKind::Builtin;                   ///< which one
  bool pipelinable_ = false;                              ///< see pipelinable()
  std::string descriptorLine_;                            ///< see descriptorLine()
};

}  // namespace rl
