#pragma once
// ReplicaServer: one HTTP API replica with the limiter as middleware. Every
// request is keyed by its `x-api-key` header, else by the client address (the
// front's X-Forwarded-For when `trustForwardedFor`), decided by the replica's
// own Store, and answered 200 / 429 (limit_response.hpp). Any path is the
// protected API; `/ping` is the conventional one.
//
// Threading: the replica runs on its own EventThread. The ReplicaStoreFactory is
// called on that thread and the store is used only there, so a Redis store's
// connection belongs to exactly one thread.
//
// Optional request headers (used by the HTTP client store):
//   x-ratelab-algorithm: <name>   decide with another algorithm (same quota)
//   x-ratelab-cost: <n>           weight of the request (1..limit)
//   x-ratelab-no-wait: 1          answer a shaped (leaky-bucket) request at once;
//                                 its delay is still in X-RateLimit-Delay-Ms and the body

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "common/result.hpp"
#include "http/event_thread.hpp"
#include "http/http_listener.hpp"
#include "limiter/decision.hpp"
#include "store/failure_policy.hpp"
#include "store/store.hpp"

namespace rl {

/// Makes the store of replica `replica`; called on that replica's thread.
using ReplicaStoreFactory = std::function<Result<std::unique_ptr<Store>>(int replica)>;

/// One decision made for an HTTP request (for tallies and GUI lanes).
struct HttpDecisionEvent {
  int replica = 0;            ///< which replica decided
  std::string client;         ///< the client key
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
  bool trustForwardedFor = true;              ///< key by X-Forwarded-For from a loopback peer
  DecisionObserver observer;                  ///< optional
};

/// One replica on its own thread; see the file comment.
class ReplicaServer {
 public:
  /// Starts the thread, makes the store there and binds. Errors from the
  /// factory (e.g. Redis unreachable) and from binding are returned as they are.
  static Result<std::unique_ptr<ReplicaServer>> start(ReplicaOptions options, const ReplicaStoreFactory& factory);
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

 private:
  explicit ReplicaServer(ReplicaOptions options);
  void handle(HttpConnection& connection, HttpRequest&& request);
  void answer(HttpConnection& connection, HttpDecisionEvent& event, HttpResponse response, bool noWait);

  ReplicaOptions options_;                   ///< as given
  ReplicaStats stats_;                       ///< counters
  int port_ = 0;                             ///< bound port
  std::unique_ptr<Store> store_;             ///< used on thread_ only
  std::unique_ptr<Store> fallback_;          ///< local failure policy: this replica's memory limiter
  std::unique_ptr<HttpListener> listener_;   ///< lives on thread_
  EventThread thread_;                       ///< declared last: joined first
};

/// The client key of a request: x-api-key, else X-Forwarded-For (when trusted), else `peer`.
std::string clientKeyOf(const HttpRequest& request, const std::string& peer, bool trustForwardedFor);

/// `http://<address>:<port>` (IPv6 addresses in brackets).
std::string httpUrl(const std::string& address, int port);

}  // namespace rl
