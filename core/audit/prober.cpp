#include "audit/prober.hpp"

#include <algorithm>
#include <chrono>
#include <thread>

#include "http/http_store.hpp"

namespace rl {
namespace {

std::int64_t steadyUs() {
  return std::chrono::duration_cast<Micros>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::int64_t wallUs() {
  return std::chrono::duration_cast<Micros>(std::chrono::system_clock::now().time_since_epoch()).count();
}

bool isLoopback(const std::string& host) { return host == "localhost" || host.rfind("127.", 0) == 0; }

}  // namespace

Prober::Prober(const AuditSpec& spec) : spec_(spec) {}

Prober::~Prober() = default;

Result<void> Prober::open() {
  startUs_ = steadyUs();
  for (const std::string& url : spec_.urls) {
    auto t = parseHttpUrl(url);
    if (!t) return invalidArgument("--http-target: " + t.error().message);
    loopback_.push_back(isLoopback(t->host));
    targets_.push_back(std::move(*t));
  }
  for (std::size_t i = 0; i < targets_.size(); ++i) {
    HttpClient probe(targets_[i], std::min(spec_.timeout, Micros{2 * kSecond}), {}, spec_.tls);
    if (auto ok = probe.open(); !ok) return ok.error();
  }
  return {};
}

std::int64_t Prober::nowUs() const { return steadyUs() - startUs_; }

bool Prober::affords(std::int64_t requests, Micros time) const {
  if (cancelled()) return false;
  return sent() + requests <= spec_.budgetRequests && nowUs() + time.count() <= spec_.budget.count();
}

bool Prober::sleepUntil(std::int64_t us) {
  if (us > spec_.budget.count() || cancelled()) return false;
  for (std::int64_t left = us - nowUs(); left > 0; left = us - nowUs()) {
    std::this_thread::sleep_for(Micros{std::min<std::int64_t>(left, 50'000)});  // Ctrl-C is seen within 50 ms
    if (cancelled()) return false;
  }
  return true;
}

std::string Prober::sourceFor(const ProbeRequest& r) const {
  if (!loopback_[static_cast<std::size_t>(r.url)]) return {};
  return sourceAddressFor(fullKey(r.sourceKey.empty() ? r.key : r.sourceKey));
}

HttpClient& Prober::client(int url, const std::string& source, int slot) {
  auto& pool = clients_[std::to_string(url) + "|" + source];
  while (static_cast<int>(pool.size()) <= slot)
    pool.push_back(std::make_unique<HttpClient>(targets_[static_cast<std::size_t>(url)], spec_.timeout, source, spec_.tls));
  return *pool[static_cast<std::size_t>(slot)];
}

Arrival Prober::exchange(HttpClient& c, const ProbeRequest& r, int group) {
  Arrival a;
  a.probe = r.probe;
  a.key = fullKey(r.key);
  a.group = group;
  a.url = r.url;
  a.fingerprinted = r.fingerprinted;
  HttpRequest req;
  req.method = spec_.method;
  req.target = targets_[static_cast<std::size_t>(r.url)].path;
  req.headers = spec_.headers;
  if (!spec_.keyHeader.empty()) req.headers.push_back({spec_.keyHeader, a.key});
  if (!r.forwardedFor.empty()) req.headers.push_back({"X-Forwarded-For", r.forwardedFor});
  a.sentUs = nowUs();
  a.wallUs = wallUs();
  auto response = c.send(req);
  a.rttUs = nowUs() - a.sentUs;
  if (!response) {
    a.error = true;
    a.errorText = response.error().message;
    return a;
  }
  a.status = response->status;
  a.headers = readLimitHeaders(*response, a.wallUs / 1'000'000);
  const bool listed = std::find(spec_.denyStatus.begin(), spec_.denyStatus.end(), a.status) != spec_.denyStatus.end();
  const bool rejected = a.headers.envoyLimited || a.headers.nginxStatus.rfind("REJECTED", 0) == 0;
  if (a.status >= 200 && a.status < 300 && a.headers.nginxStatus != "REJECTED") {
    a.allowed = true;
  } else if (!listed && !rejected) {
    a.error = true;
    a.errorText = "answered " + std::to_string(a.status) + ": neither 2xx nor a deny status (see --deny-status)";
  }
  return a;
}

std::optional<Arrival> Prober::send(const ProbeRequest& r) {
  if (!affords(1, Micros{0})) return std::nullopt;
  arrivals_.push_back(exchange(client(r.url, sourceFor(r), 0), r, -1));
  return arrivals_.back();
}

std::vector<Arrival> Prober::sendRound(int n, const ProbeRequest& r) {
  if (n <= 0 || !affords(n, Micros{0})) return {};
  const std::string source = sourceFor(r);
  std::vector<HttpClient*> cs;
  for (int i = 0; i < n; ++i) {
    HttpClient& c = client(r.url, source, i);
    (void)c.open();  // connect first, so the round's requests leave together
    cs.push_back(&c);
  }
  const int group = groups_++;
  std::vector<Arrival> out(static_cast<std::size_t>(n));
  std::vector<std::thread> threads;
  for (int i = 0; i < n; ++i)
    threads.emplace_back([&, i] { out[static_cast<std::size_t>(i)] = exchange(*cs[static_cast<std::size_t>(i)], r, group); });
  for (auto& t : threads) t.join();
  std::sort(out.begin(), out.end(), [](const Arrival& a, const Arrival& b) { return a.sentUs < b.sentUs; });
  arrivals_.insert(arrivals_.end(), out.begin(), out.end());
  return out;
}

}  // namespace rl
