#include "http/http_store.hpp"

#include <algorithm>

#include "http/limit_response.hpp"

namespace rl {

HttpStore::HttpStore(HttpTarget target, Micros timeout)
    : client_(target, timeout), path_(target.path == "/" ? "/ping" : target.path) {}

Result<Decision> HttpStore::decide(const DecisionRequest& request) {
  const bool printable = std::all_of(request.client.begin(), request.client.end(), [](char c) {
    return static_cast<unsigned char>(c) >= 0x20 && c != 0x7f;
  });
  if (request.client.empty() || !printable)
    return invalidArgument("client key must be non-empty printable text to travel as x-api-key");
  HttpRequest r;
  r.method = "GET";
  r.target = path_;
  r.headers.push_back({"x-api-key", std::string(request.client)});
  r.headers.push_back({"x-ratelab-algorithm", std::string(algorithmName(request.algorithm))});
  r.headers.push_back({"x-ratelab-no-wait", "1"});  // the storm accounts the delay itself
  if (request.cost != 1) r.headers.push_back({"x-ratelab-cost", std::to_string(request.cost)});
  auto response = client_.send(r);
  if (!response) return response.error();
  return decisionFromResponse(*response);
}

Result<std::unique_ptr<Store>> makeHttpStore(std::string_view url, Micros timeout) {
  auto target = parseHttpUrl(url);
  if (!target) return target.error();
  return std::unique_ptr<Store>(std::make_unique<HttpStore>(std::move(*target), timeout));
}

Result<StoreFactory> httpStoreFactory(const std::vector<std::string>& urls) {
  if (urls.empty()) return invalidArgument("--backend http needs --http-target URL[,URL..] (e.g. http://127.0.0.1:8080)");
  for (const auto& url : urls)
    if (auto t = parseHttpUrl(url); !t) return invalidArgument("--http-target: " + t.error().message);
  return StoreFactory([urls](int replica, int) {
    return makeHttpStore(urls[static_cast<std::size_t>(replica) % urls.size()]);
  });
}

}  // namespace rl
