#include "http/http_store.hpp"

#include <algorithm>
#include <charconv>
#include <chrono>

#include "common/json.hpp"
#include "http/limit_headers.hpp"
#include "http/limit_response.hpp"

namespace rl {

namespace {

bool isRateLabBody(const HttpResponse& r) {
  if (r.status != 200 && r.status != 429) return false;
  // Only an object can be a replica's answer: any other body ("ok", HTML) is
  // told at its first character, without a parse (and its exception) per request.
  const auto first = r.body.find_first_not_of(" \t\r\n");
  if (first == std::string::npos || r.body[first] != '{') return false;
  const auto body = parseJson(r.body);
  return body && body->is_object() && body->contains("allowed");
}

Decision genericDecision(const HttpResponse& r, bool allowed) {
  const auto nowS = std::chrono::duration_cast<std::chrono::seconds>(
                        std::chrono::system_clock::now().time_since_epoch()).count();
  const LimitHeaders h = readLimitHeaders(r, nowS);
  Decision d;
  d.allowed = allowed;
  d.remaining = h.remaining;  // -1 = unknown
  d.limit = std::max<std::int64_t>(0, h.limit);
  if (!allowed && h.retryAfterMs >= 0) d.retryAfter = Micros{std::max<std::int64_t>(1, h.retryAfterMs) * 1000};
  if (h.resetMs >= 0) d.resetAfter = Micros{h.resetMs * 1000};
  d.level = static_cast<double>(std::max<std::int64_t>(0, h.remaining));
  return d;
}

std::string excerpt(const std::string& body) {
  std::string out = body.substr(0, 120);
  for (char& c : out)
    if (static_cast<unsigned char>(c) < 0x20) c = ' ';
  return out + (body.size() > 120 ? "..." : "");
}

}  // namespace

std::string sourceAddressFor(std::string_view client) {
  std::size_t digits = client.size();
  while (digits > 0 && client[digits - 1] >= '0' && client[digits - 1] <= '9') --digits;
  std::uint64_t number = 0;
  if (client.size() - digits > 8) digits = client.size();  // too long to be an index: part of the name
  std::from_chars(client.data() + digits, client.data() + client.size(), number);
  std::uint64_t stem = 1469598103934665603ULL;  // FNV-1a of the name without its index
  for (char c : client.substr(0, digits)) stem = (stem ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
  const std::uint64_t a = (stem + number) % 0xFFFFFDULL + 2;  // 127.0.0.2 .. 127.255.255.254
  return "127." + std::to_string((a >> 16) & 255) + "." + std::to_string((a >> 8) & 255) + "." + std::to_string(a & 255);
}

HttpStore::HttpStore(HttpTarget target, HttpStoreOptions options, bool pathGiven,
                     std::shared_ptr<HttpTargetBreaker> breaker)
    : target_(std::move(target)),
      options_(std::move(options)),
      path_(pathGiven ? target_.path : "/ping"),
      breaker_(breaker ? std::move(breaker) : std::make_shared<HttpTargetBreaker>(target_.toString())) {}

HttpClient& HttpStore::clientFor(std::string_view client) {
  const std::string source = options_.keyHeader.empty() ? sourceAddressFor(client) : std::string();
  auto it = clients_.find(source);
  if (it == clients_.end()) {
    if (clients_.size() >= 1024) clients_.clear();  // bound the open connections of one thread
    it = clients_.emplace(source, std::make_unique<HttpClient>(target_, options_.timeout, source, options_.tls)).first;
  }
  return *it->second;
}

Result<Decision> HttpStore::decide(const DecisionRequest& request) {
  const bool printable = std::all_of(request.client.begin(), request.client.end(), [](char c) {
    return static_cast<unsigned char>(c) >= 0x20 && c != 0x7f;
  });
  if (request.client.empty() || !printable)
    return invalidArgument("client key must be non-empty printable text to travel as " +
                           (options_.keyHeader.empty() ? std::string("a source address") : options_.keyHeader));
  HttpRequest r;
  r.method = options_.method;
  r.target = path_;
  r.headers = options_.headers;
  std::string key(request.client);
  if (options_.keyPerLane) key.append(".").append(algorithmName(request.algorithm));
  if (!options_.keyHeader.empty()) r.headers.push_back({options_.keyHeader, key});
  r.headers.push_back({"x-ratelab-algorithm", std::string(algorithmName(request.algorithm))});
  r.headers.push_back({"x-ratelab-no-wait", "1"});  // the storm accounts the delay itself
  if (request.cost != 1) r.headers.push_back({"x-ratelab-cost", std::to_string(request.cost)});
  r.body = options_.body;
  bool probe = false;
  if (auto down = breaker_->admit(probe)) return *down;  // the target is down: fail fast, the policy decides
  auto response = clientFor(options_.keyPerLane ? std::string_view(key) : request.client).send(r);
  if (!response) {  // no answer (refused, reset, timed out): an outage, the failure policy decides
    if (response.error().code == ErrorCode::Unavailable) breaker_->failed(probe, response.error().message);
    else if (response.error().code == ErrorCode::Protocol) breaker_->answered(probe);  // bytes that are not HTTP: up, at fault
    else breaker_->failed(probe, response.error().message);  // never answered: a probe must not stay in flight
    return response.error();
  }
  breaker_->answered(probe);
  if (findHeader(response->headers, kFailurePolicyHeader) != nullptr || isRateLabBody(*response))
    return decisionFromResponse(*response);
  if (response->status >= 200 && response->status < 300) return genericDecision(*response, true);
  if (std::find(options_.denyStatus.begin(), options_.denyStatus.end(), response->status) != options_.denyStatus.end())
    return genericDecision(*response, false);
  std::string deny;
  for (int s : options_.denyStatus) deny += (deny.empty() ? "" : ",") + std::to_string(s);
  return protocolError("HTTP " + target_.toString() + " answered " + std::to_string(response->status) +
                       ": neither 2xx (admitted) nor a deny status (" + deny + ", see --http-deny-status); body: " +
                       excerpt(response->body));
}

Result<std::unique_ptr<Store>> makeHttpStore(std::string_view url, HttpStoreOptions options,
                                             std::shared_ptr<HttpTargetBreaker> breaker) {
  auto target = parseHttpUrl(url);
  if (!target) return target.error();
  const bool pathGiven = url.find('/', url.find("://") + 3) != std::string_view::npos;  // after "http[s]://"
  return std::unique_ptr<Store>(
      std::make_unique<HttpStore>(std::move(*target), std::move(options), pathGiven, std::move(breaker)));
}

Result<void> checkHttpTargets(const std::vector<std::string>& urls, Micros timeout, const TlsOptions& tls) {
  for (const auto& url : urls) {
    auto target = parseHttpUrl(url);
    if (!target) return invalidArgument("--http-target: " + target.error().message);
    HttpClient client(*target, timeout, {}, tls);
    if (auto ok = client.open(); !ok) return ok.error();
  }
  return {};
}

Result<StoreFactory> httpStoreFactory(const std::vector<std::string>& urls, HttpStoreOptions options) {
  if (urls.empty()) return invalidArgument("--backend http needs --http-target URL[,URL..] (e.g. http://127.0.0.1:8080)");
  std::vector<std::shared_ptr<HttpTargetBreaker>> breakers;  // one per URL: a dead target is down for every worker
  for (const auto& url : urls) {
    auto t = parseHttpUrl(url);
    if (!t) return invalidArgument("--http-target: " + t.error().message);
    breakers.push_back(std::make_shared<HttpTargetBreaker>(t->toString()));
  }
  return StoreFactory([urls, options, breakers](int replica, int) {
    const std::size_t i = static_cast<std::size_t>(replica) % urls.size();
    return makeHttpStore(urls[i], options, breakers[i]);
  });
}

}  // namespace rl
