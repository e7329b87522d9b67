#pragma once
// FrontProxy: the front port of a served cluster. A real reverse proxy over
// loopback: each request is forwarded, round-robin, to the next replica over
// a pooled keep-alive connection, with X-Forwarded-For set to the client's
// address (any client-sent value is replaced) and the run's secret in
// X-RateLab-Front (so the replicas believe that X-Forwarded-For and no other),
// and the replica's answer is relayed. A replica that cannot be reached
// answers 502; one that does not answer within `upstreamTimeout`, 504. A
// client that leaves before its answer frees the upstream connection at once.
// Expect: 100-continue is answered by the front itself and not forwarded.
//
// Pipelining: when no replica holds an answer back on purpose (no
// leaky-bucket shaping, no per-request algorithm), ServeCluster sets
// `pipelineDepth` > 1: requests to one replica share a connection, those read
// in one event-loop pass leave in one send, and the replica answers them
// together, in order. A shaped answer would hold up the ones behind it, so
// such replicas get one request per connection (depth 1).
// Runs on its own EventThread.

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "http/event_thread.hpp"
#include "http/http_listener.hpp"

namespace rl {

/// How the front is set up.
struct FrontOptions {
  std::string bindAddress = "127.0.0.1";  ///< loopback unless given explicitly
  int port = 0;                           ///< 0 = any free port
  std::string upstreamAddress = "127.0.0.1";  ///< where the replicas listen
  std::vector<int> replicaPorts;          ///< round-robin targets, in order
  HttpServerLimits limits;                ///< downstream connection and message limits
  Micros upstreamTimeout{10'000'000};     ///< a replica must answer within this (504)
  int maxIdlePerReplica = 256;            ///< pooled idle upstream connections per replica
  int pipelineDepth = 1;                  ///< requests in flight per upstream connection (>1 only
                                          ///< when no replica holds answers back: see the file comment)
  std::string secret;                     ///< sent as X-RateLab-Front (client_identity.hpp); empty = none
};

class ProxyCore;

/// The round-robin front; see the file comment.
class FrontProxy {
 public:
  /// Starts the thread and binds. InvalidArgument without replicas or for a bad address.
  static Result<std::unique_ptr<FrontProxy>> start(FrontOptions options);
  /// Stops listening, closes every connection, joins the thread.
  ~FrontProxy();

  /// The bound port.
  int port() const { return port_; }
  /// `http://<address>:<port>`.
  std::string url() const;
  /// Downstream connection counters.
  const ListenerStats& listenerStats() const;
  /// Requests answered 502/504 because a replica failed.
  std::int64_t upstreamErrors() const { return upstreamErrors_.load(); }

 private:
  explicit FrontProxy(FrontOptions options);

  FrontOptions options_;                      ///< as given
  int port_ = 0;                              ///< bound port
  std::atomic<std::int64_t> upstreamErrors_{0};  ///< 502 + 504 answers
  std::unique_ptr<ProxyCore> core_;           ///< lives on thread_
  std::unique_ptr<HttpListener> listener_;    ///< lives on thread_
  EventThread thread_;                        ///< declared last: joined first
};

/// The bytes a front sends upstream: `request` with hop-by-hop fields, Expect and any
/// X-RateLab-Front dropped, X-Forwarded-For = `peer`, X-RateLab-Front = `secret` (unless empty).
std::string forwardedBytes(const HttpRequest& request, const std::string& peer, const std::string& secret);
/// forwardedBytes(), appended to `out`.
void appendForwarded(std::string& out, const HttpRequest& request, const std::string& peer, const std::string& secret);

}  // namespace rl
