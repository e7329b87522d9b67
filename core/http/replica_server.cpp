#include "http/replica_server.hpp"

#include <QPointer>
#include <QTimer>

#include <charconv>
#include <limits>

#include "clock/clock.hpp"
#include "http/limit_response.hpp"
#include "store/memory_store.hpp"

namespace rl {
namespace {

constexpr std::size_t kMaxClientKey = 256;

bool isLoopback(const std::string& address) {
  return address.rfind("127.", 0) == 0 || address == "::1";
}

std::string_view firstListItem(std::string_view v) {
  v = v.substr(0, v.find(','));
  while (!v.empty() && v.front() == ' ') v.remove_prefix(1);
  while (!v.empty() && v.back() == ' ') v.remove_suffix(1);
  return v;
}

std::string allowedAlgorithms() {
  std::string s;
  for (const auto a : kAllAlgorithms) s.append(s.empty() ? "" : ", ").append(algorithmName(a));
  return s;
}

}  // namespace

std::string clientKeyOf(const HttpRequest& request, const std::string& peer, bool trustForwardedFor) {
  if (const auto* key = findHeader(request.headers, "x-api-key"); key && !key->empty()) return *key;
  if (trustForwardedFor && isLoopback(peer)) {
    if (const auto* fwd = findHeader(request.headers, "x-forwarded-for")) {
      const auto first = firstListItem(*fwd);
      if (!first.empty()) return std::string(first);
    }
  }
  return peer;
}

std::string httpUrl(const std::string& address, int port) {
  const bool v6 = address.find(':') != std::string::npos;
  return "http://" + (v6 ? "[" + address + "]" : address) + ":" + std::to_string(port);
}

ReplicaServer::ReplicaServer(ReplicaOptions options)
    : options_(std::move(options)), thread_("rl-replica-" + std::to_string(options_.index)) {}

ReplicaServer::~ReplicaServer() {
  thread_.runBlocking([this] {
    listener_.reset();
    store_.reset();
    fallback_.reset();
  });
}

Result<std::unique_ptr<ReplicaServer>> ReplicaServer::start(ReplicaOptions options,
                                                            const ReplicaStoreFactory& factory) {
  if (auto v = options.quota.validate(options.algorithm); !v) return v.error();
  if (auto app = requireEventLoops(); !app) return app.error();
  std::unique_ptr<ReplicaServer> server(new ReplicaServer(std::move(options)));
  ReplicaServer* s = server.get();
  Result<int> bound = Error{ErrorCode::Internal, "replica did not start"};
  s->thread_.runBlocking([s, &factory, &bound] {
    auto store = factory(s->options_.index);
    if (!store) {
      bound = store.error();
      return;
    }
    s->store_ = std::move(*store);
    if (s->options_.onStoreError == FailurePolicy::Local) s->fallback_ = std::make_unique<MemoryStore>();
    s->listener_ = std::make_unique<HttpListener>(
        s->options_.limits, [s](HttpConnection& c, HttpRequest&& r) { s->handle(c, std::move(r)); });
    bound = s->listener_->listen(s->options_.bindAddress, s->options_.port);
  });
  if (!bound) return bound.error();
  s->port_ = *bound;
  return server;
}

std::string ReplicaServer::url() const { return httpUrl(options_.bindAddress, port_); }

const ListenerStats& ReplicaServer::listenerStats() const { return listener_->stats(); }

void ReplicaServer::handle(HttpConnection& connection, HttpRequest&& request) {
  HttpDecisionEvent event;
  event.replica = options_.index;
  event.client = clientKeyOf(request, connection.peerAddress(), options_.trustForwardedFor);
  event.algorithm = options_.algorithm;
  if (event.client.size() > kMaxClientKey) {
    stats_.badRequests.fetch_add(1);
    return connection.respond(errorResponse(400, "x-api-key is " + std::to_string(event.client.size()) +
                                                     " bytes long: allowed 1 to " + std::to_string(kMaxClientKey)));
  }
  LimitContext context{options_.algorithm, options_.quota, event.client, options_.index};
  if (const auto* name = findHeader(request.headers, "x-ratelab-algorithm")) {
    const auto a = parseAlgorithm(*name);
    if (!a) {
      stats_.badRequests.fetch_add(1);
      return connection.respond(errorResponse(
          400, "x-ratelab-algorithm '" + *name + "' is unknown: allowed " + allowedAlgorithms()));
    }
    event.algorithm = context.algorithm = *a;
  }
  std::int64_t cost = 1;
  if (const auto* c = findHeader(request.headers, "x-ratelab-cost")) {
    const auto [ptr, ec] = std::from_chars(c->data(), c->data() + c->size(), cost);
    if (ec != std::errc{} || ptr != c->data() + c->size()) {
      stats_.badRequests.fetch_add(1);
      return connection.respond(errorResponse(400, "x-ratelab-cost '" + *c + "' is not an integer: allowed 1..limit"));
    }
  }
  const bool noWait = findHeader(request.headers, "x-ratelab-no-wait") != nullptr;
  static const SystemClock clock;
  event.at = clock.now();
  const auto decided = decideWithPolicy(*store_, {event.algorithm, event.client, options_.quota, cost, event.at},
                                         options_.onStoreError, kPolicyRetryAfter, fallback_.get());
  if (!decided) {  // not an outage: bad input, or a fault whose text stays in the server
    const bool badInput = classifyStoreError(decided.error()) == StoreErrorClass::BadInput;
    (badInput ? stats_.badRequests : stats_.internalErrors).fetch_add(1);
    return connection.respond(badInput ? errorResponse(400, decided.error().message)
                                       : errorResponse(500, "the limiter's store failed: see the server's log"));
  }
  event.decision = decided->decision;
  if (!decided->byPolicy) {
    (event.decision.allowed ? stats_.admitted : stats_.denied).fetch_add(1);
    return answer(connection, event, decisionResponse(event.decision, context), noWait);
  }
  event.storeFailed = true;
  (event.decision.allowed ? stats_.failedOpen : stats_.failedClosed).fetch_add(1);
  answer(connection, event, storeFailureResponse(options_.onStoreError, event.decision, context), noWait);
}

void ReplicaServer::answer(HttpConnection& connection, HttpDecisionEvent& event, HttpResponse response,
                           bool noWait) {
  event.status = response.status;
  if (options_.observer) options_.observer(event);
  const Micros delay = event.decision.allowed && !noWait ? event.decision.delay : Micros{0};
  if (delay.count() <= 0) return connection.respond(std::move(response));
  // Leaky-bucket shaping: the admitted request waits `delay` in the queue, without blocking the thread.
  QPointer<HttpConnection> target(&connection);
  const auto ms = std::min<std::int64_t>(ceilMillis(delay), std::numeric_limits<int>::max());
  QTimer::singleShot(static_cast<int>(ms), Qt::PreciseTimer, &connection,
                     [target, r = std::move(response)]() mutable {
                       if (target) target->respond(std::move(r));
                     });
}

}  // namespace rl
