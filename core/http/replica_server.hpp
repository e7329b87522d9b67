#pragma once
// ReplicaServer: one HTTP API replica with the limiter as middleware. Every
// request is keyed (client_identity.hpp: `key:<x-api-key>` or `ip:<address>`,
// X-Forwarded-For believed only from the front or a trusted proxy), decided by
// the replica's own store, and answered 200 / 429 (limit_response.hpp). Any
// path is the protected API; `/ping` is the conventional one.
//
// Threading: the replica runs on an EventThread, its own or one it shares with
// other replicas of the cluster (ServeOptions::replicaThreads). The
// ReplicaStoreFactory is called on that thread and the store is used only there. A redis-lua store is
// driven asynchronously (replica_decider.hpp): the thread never waits on Redis,
// and requests from many connections are in flight at once. Each connection
// has one request in flight, so its answers go out in order.
//
// Store failures go through the one failure policy (store/failure_policy.hpp):
// an outage (unavailable, timed out, OOM, READONLY) is answered by the policy
// (open 200 / closed 503 / local: this replica's memory limiter); any other
// store error is a 500 whose body says only "store error" and a request id
// (the Redis text goes to stderr with that id, never to the client).
//
// Client overrides (only with `allowClientOverrides`, `serve --allow-client-overrides`;
// otherwise a request carrying them is refused with 400 naming the flag):
//   x-ratelab-algorithm: <name>   decide with another algorithm (same quota; only
//                                 algorithms the quota is valid for, checked at start)
//   x-ratelab-cost: <n>           weight of the request, 1..min(limit, maxCost)
//   x-ratelab-no-wait: 1          answer a shaped (leaky-bucket) request at once;
//                                 its delay is still in X-RateLimit-Delay-Ms and the body
//                                 (without the flag it is not refused, since every
//                                 `run --backend http` sends it: the answer waits its delay)
// Always honoured:
//   x-ratelab-algorithm equal to the replica's own algorithm (a no-op)

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "common/result.hpp"
#include "http/event_thread.hpp"
#include "http/client_identity.hpp"
#include "http/http_listener.hpp"
#include "http/replica_decider.hpp"
#include "limiter/decision.hpp"
#include "store/failure_policy.hpp"
#include "store/store.hpp"

namespace rl {

/// Makes the store of replica `replica`; called on that replica's thread.
using ReplicaStoreFactory = std::function<Result<std::unique_ptr<Store>>(int replica)>;

/// One decision made for an HTTP request (for tallies and GUI lanes).
struct HttpDecisionEvent {
  int replica = 0;            ///< which replica decided
  std::string client;         ///< the client key ("key:..." or "ip:...")
  Algorithm algorithm = Algorithm::TokenBucket;  ///< the deciding algorithm
  int status = 0;             ///< HTTP status answered (200, 429, 503, 400)
  Decision decision;          ///< the store's answer (or the failure policy's)
  bool storeFailed = false;   ///< the store could not answer; the failure policy decided
  Micros at{0};               ///< wall-clock time of the decision (us since the epoch)
};
/// Receives every decision; called on replica threads, so it must be thread-safe and quick.
using DecisionObserver = std::function<void(const HttpDecisionEvent&)>;

/// Counters of one replica, readable from any thread.
struct ReplicaStats {
  std::atomic<std::int64_t> admitted{0};      ///< answered 200 by the limiter
  std::atomic<std::int64_t> denied{0};        ///< answered 429
  std::atomic<std::int64_t> failedOpen{0};    ///< store failed, admitted by the failure policy (open, or local)
  std::atomic<std::int64_t> failedClosed{0};  ///< store failed, refused by the failure policy (closed 503, or local 429)
  std::atomic<std::int64_t> badRequests{0};   ///< limiter input refused with 400
  std::atomic<std::int64_t> internalErrors{0};  ///< store errors that are not outages (500)
  std::atomic<std::int64_t> abandoned{0};     ///< decided, but the client had gone
};

/// How one replica is set up.
struct ReplicaOptions {
  int index = 0;                              ///< replica number, 0-based
  Algorithm algorithm = Algorithm::TokenBucket;  ///< default algorithm
  Quota quota;                                ///< valid for `algorithm`
  FailurePolicy onStoreError = FailurePolicy::Open;  ///< what a store failure answers
  std::string bindAddress = "127.0.0.1";      ///< loopback unless given explicitly
  int port = 0;                               ///< 0 = any free port
  HttpServerLimits limits;                    ///< connection and message limits
  ForwardTrust trust;                         ///< whose X-Forwarded-For is believed
  bool allowClientOverrides = false;          ///< honour x-ratelab-algorithm / x-ratelab-cost
  std::int64_t maxCost = 1000;                ///< x-ratelab-cost cap (also bounded by the limit)
  std::size_t localMaxKeys = 0;               ///< keys the local failure policy's limiter holds; 0 = unbounded
  DecisionObserver observer;                  ///< optional
};

/// One replica on its own thread; see the file comment.
class ReplicaServer {
 public:
  /// Starts the thread, makes the store there and binds. Errors from the
  /// factory (e.g. Redis unreachable) and from binding are returned as they are.
  /// Runs on `thread` when given (shared with other replicas), else on a thread of its own.
  static Result<std::unique_ptr<ReplicaServer>> start(ReplicaOptions options, const ReplicaStoreFactory& factory,
                                                      std::shared_ptr<EventThread> thread = nullptr);
  /// Stops listening, closes connections and the store, joins the thread.
  ~ReplicaServer();

  /// The bound port.
  int port() const { return port_; }
  /// `http://<address>:<port>`.
  std::string url() const;
  /// Decision counters.
  const ReplicaStats& stats() const { return stats_; }
  /// Connection counters.
  const ListenerStats& listenerStats() const;
  /// Keys its stores (the limiter's and the local failure policy's) dropped to stay within their bound.
  std::int64_t evictedKeys() const;
  /// No answer is held back on purpose (no leaky-bucket shaping, no per-request algorithm):
  /// answers come back as soon as decided, so a front may pipeline requests to this replica.
  /// A redis-lua replica then decides a connection's pipelined requests together.
  bool pipelinable() const;

 private:
  ReplicaServer(ReplicaOptions options, std::shared_ptr<EventThread> thread);
  void handle(HttpConnection& connection, HttpRequest&& request);
  void refuse(HttpConnection& connection, const std::string& message);
  Result<Algorithm> requestedAlgorithm(const HttpRequest& request) const;
  Result<std::int64_t> requestedCost(const HttpRequest& request) const;
  void finish(HttpConnection* connection, std::uint64_t id, HttpDecisionEvent& event, Result<PolicyDecision> decided,
              bool noWait);
  void answer(HttpConnection& connection, std::uint64_t id, HttpDecisionEvent& event, HttpResponse response,
              bool noWait);

  ReplicaOptions options_;                   ///< as given
  ReplicaStats stats_;                       ///< counters
  int port_ = 0;                             ///< bound port
  std::unique_ptr<ReplicaDecider> decider_;  ///< used on thread_ only
  std::unique_ptr<Store> fallback_;          ///< local failure policy: this replica's memory limiter
  std::string unusable_[6];                  ///< per algorithm: why the quota cannot run it ("" = fine)
  std::int64_t requests_ = 0;                ///< request ids for store errors (thread_ only)
  std::unique_ptr<HttpListener> listener_;   ///< lives on thread_
  std::shared_ptr<EventThread> thread_;      ///< declared last: released (joined by its last user) first
};

/// `http://<address>:<port>` (IPv6 addresses in brackets).
std::string httpUrl(const std::string& address, int port);

}  // namespace rl
