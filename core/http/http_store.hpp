#pragma once
// HttpStore: an rl::Store that asks an HTTP limiter over loopback, so a storm
// can target HTTP end to end: RateLab's own replicas, or ANY limiter in front
// of an HTTP service (nginx limit_req, Kong, Envoy, an API's middleware).
//
// The request: `<method> <path>` with the configured headers and body; the
// client key travels as a header (`header:x-api-key`, the default) or as the
// source address (`source-addr`: each client binds its own 127.x.y.z, fresh
// per run: sourceAddressFor; so per-IP limits such as nginx's
// $binary_remote_addr see distinct clients).
// With several lanes (algorithms) in one storm, each lane gets its own keys
// (`keyPerLane`: "<client>.<algorithm>", and a hashed address for source-addr),
// so the second lane never meets the first lane's consumption.
// RateLab's replicas also get `x-ratelab-algorithm`, `x-ratelab-no-wait` (a
// leaky-bucket delay comes back in the Decision instead of being waited out)
// and (when not 1) `x-ratelab-cost`; other servers ignore them.
//
// The answer:
//   RateLab replica JSON body (`allowed`, `remaining`, ... in microseconds):
//     the exact Decision, as before. With X-RateLimit-Failure-Policy the
//     replica's store failed: an Unavailable error, so the storm counts it and
//     applies its own --on-redis-error.
//   any other server: 2xx admitted; a status in `denyStatus` (429 by default,
//     e.g. 429,503 for nginx's default limit_req_status) denied; anything else
//     is an error (Protocol) naming the status. Limit headers are read where
//     present, in every dialect (limit_headers.hpp). Absent values are unknown:
//     remaining -1, limit 0, retryAfter 0, resetAfter 0 (never invented).
//   transport failures (refused, reset, no answer within `timeout`) mid-run
//     are outages (Unavailable): the storm's --on-redis-error decides them, as
//     it does when Redis is down. The target's breaker (http_target_breaker.hpp,
//     shared by every store of the target) makes a dead target fail fast after 3
//     of them in a row, instead of costing the timeout per request.
//     checkHttpTargets() tells a target that is down at start (exit 3).
//
// Blocking, Qt-free, keep-alive connections: one store per thread.

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "http/http_client.hpp"
#include "http/http_target_breaker.hpp"
#include "store/store.hpp"

namespace rl {

/// How requests are made and answers read; defaults suit RateLab's replicas.
struct HttpStoreOptions {
  std::string method = "GET";              ///< request method
  std::vector<HttpHeader> headers;         ///< extra header fields
  std::string body;                        ///< request body ("" = none)
  std::string keyHeader = "x-api-key";     ///< header carrying the client key ("" = source address)
  std::vector<int> denyStatus{429};        ///< statuses that mean denied
  Micros timeout = kDefaultHttpTimeout;     ///< bound of each connect / send / receive (--http-timeout-ms)
  TlsOptions tls;                          ///< certificate checks of https targets
  bool keyPerLane = false;                 ///< each algorithm (lane) its own keys: "<client>.<algorithm>"
};

/// 127.x.y.z for client key `client`: a hash of the name without its trailing
/// number, plus that number. So the clients of one run ("<tag>client-0",
/// "<tag>client-1", ...) get consecutive, distinct addresses, and the next run
/// (another tag) other ones: a per-IP limit never meets an earlier run's
/// consumption. Never 127.0.0.1, whose allowance other programs may share.
std::string sourceAddressFor(std::string_view client);

/// See the file comment.
class HttpStore final : public Store {
 public:
  /// `pathGiven` false (a URL without a path) asks RateLab's "/ping". `breaker` is the
  /// target's, shared with the other stores of the target (null: this store's own).
  explicit HttpStore(HttpTarget target, HttpStoreOptions options = {}, bool pathGiven = true,
                     std::shared_ptr<HttpTargetBreaker> breaker = {});
  std::string_view name() const override { return "http"; }
  Result<Decision> decide(const DecisionRequest& request) override;

 private:
  HttpClient& clientFor(std::string_view client);

  HttpTarget target_;        ///< the server
  HttpStoreOptions options_; ///< request shape and reading
  std::string path_;         ///< request path
  std::map<std::string, std::unique_ptr<HttpClient>> clients_;  ///< by source address ("" = shared)
  std::shared_ptr<HttpTargetBreaker> breaker_;  ///< the target's, shared by its stores
};

/// Parses `url` (`http://host:port[/path]`; no path = RateLab's /ping) and makes a store for one thread
/// (with `breaker`, the target's shared one; else its own).
Result<std::unique_ptr<Store>> makeHttpStore(std::string_view url, HttpStoreOptions options = {},
                                             std::shared_ptr<HttpTargetBreaker> breaker = {});

/// Connects once to every URL (https: with `tls`'s certificate checks): Unavailable naming the
/// first that cannot be reached, InvalidArgument for a bad URL or CA file.
Result<void> checkHttpTargets(const std::vector<std::string>& urls, Micros timeout = Micros{2'000'000},
                              const TlsOptions& tls = {});

/// The storm's factory for `--backend http`: replica r talks to `urls[r % urls.size()]`,
/// each (replica, worker) over its own connections, every store of one URL with that URL's one
/// breaker. InvalidArgument for an empty or bad URL list.
Result<StoreFactory> httpStoreFactory(const std::vector<std::string>& urls, HttpStoreOptions options = {});

}  // namespace rl
