#pragma once
// HttpStore: an rl::Store that asks an HTTP limiter replica (or the front)
// over loopback, so a storm can target HTTP end to end. Each decide() is one
// `GET <path>` with `x-api-key: <client>`, `x-ratelab-algorithm`,
// `x-ratelab-no-wait` (a leaky-bucket delay comes back in the Decision instead
// of being waited out) and (when not 1) `x-ratelab-cost`; the answer's JSON body gives back the exact
// Decision. The replica's own quota and clock decide: the request's quota and
// `now` are not sent. A replica whose store failed answers with
// X-RateLimit-Failure-Policy; that becomes an Unavailable error here, so the
// storm counts it as an error and applies its own --on-redis-error.
//
// Blocking, Qt-free, one keep-alive connection: one store per thread.

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "http/http_client.hpp"
#include "store/store.hpp"
#include "storm/storm_runner.hpp"

namespace rl {

/// See the file comment.
class HttpStore final : public Store {
 public:
  /// `target.path` "/" means "/ping".
  explicit HttpStore(HttpTarget target, Micros timeout = Micros{5'000'000});
  std::string_view name() const override { return "http"; }
  Result<Decision> decide(const DecisionRequest& request) override;

 private:
  HttpClient client_;  ///< the keep-alive connection
  std::string path_;   ///< request path
};

/// Parses `url` (`http://host:port[/path]`) and makes a store for one thread.
Result<std::unique_ptr<Store>> makeHttpStore(std::string_view url, Micros timeout = Micros{5'000'000});

/// The storm's factory for `--backend http`: replica r talks to `urls[r % urls.size()]`,
/// each (replica, worker) over its own connection. InvalidArgument for an empty or bad URL list.
Result<StoreFactory> httpStoreFactory(const std::vector<std::string>& urls);

}  // namespace rl
