#include "http/replica_server.hpp"

#include <QPointer>
#include <QTimer>

#include <charconv>
#include <cstdio>
#include <limits>

#include "clock/clock.hpp"
#include "http/limit_response.hpp"
#include "store/memory_store.hpp"

namespace rl {
namespace {

// Requests of one connection a redis-lua replica decides at once.
constexpr int kMaxPipelined = 32;

std::string allowedAlgorithms() {
  std::string s;
  for (const auto a : kAllAlgorithms) s.append(s.empty() ? "" : ", ").append(algorithmName(a));
  return s;
}

// Store error texts go to stderr (with the request id the client saw), at most a few per second.
void logStoreError(const std::string& id, const Error& e) {
  static std::atomic<std::int64_t> logged{0};
  const auto n = logged.fetch_add(1);
  if (n < 20 || n % 1000 == 0)
    std::fprintf(stderr, "ratelab serve: request %s: store error: %s\n", id.c_str(), e.message.c_str());
}

}  // namespace

std::string httpUrl(const std::string& address, int port) {
  const bool v6 = address.find(':') != std::string::npos;
  return "http://" + (v6 ? "[" + address + "]" : address) + ":" + std::to_string(port);
}

ReplicaServer::ReplicaServer(ReplicaOptions options, std::shared_ptr<EventThread> thread)
    : options_(std::move(options)),
      thread_(thread ? std::move(thread) : std::make_shared<EventThread>("rl-replica-" + std::to_string(options_.index))) {
  for (const auto a : kAllAlgorithms) {
    auto& why = unusable_[static_cast<int>(a)];
    if (a != options_.algorithm && !options_.allowClientOverrides) {
      why = "is honoured only with serve --allow-client-overrides (this server decides with " +
            std::string(algorithmName(options_.algorithm)) + ")";
    } else if (auto ok = options_.quota.validate(a); !ok) {
      why = "cannot decide this server's quota: " + ok.error().message;
    }
  }
}

ReplicaServer::~ReplicaServer() {
  thread_->runBlocking([this] {
    listener_.reset();
    decider_.reset();
    fallback_.reset();
  });
}

Result<std::unique_ptr<ReplicaServer>> ReplicaServer::start(ReplicaOptions options,
                                                            const ReplicaStoreFactory& factory,
                                                            std::shared_ptr<EventThread> thread) {
  if (auto v = options.quota.validate(options.algorithm); !v) return v.error();
  if (options.maxCost < 1) return invalidArgument("max cost must be at least 1");
  if (auto app = requireEventLoops(); !app) return app.error();
  std::unique_ptr<ReplicaServer> server(new ReplicaServer(std::move(options), std::move(thread)));
  ReplicaServer* s = server.get();
  Result<int> bound = Error{ErrorCode::Internal, "replica did not start"};
  s->thread_->runBlocking([s, &factory, &bound] {
    auto store = factory(s->options_.index);
    auto decider = store ? makeReplicaDecider(std::move(*store)) : Result<std::unique_ptr<ReplicaDecider>>(store.error());
    if (!decider) {
      bound = decider.error();
      return;
    }
    s->decider_ = std::move(*decider);
    if (s->options_.onStoreError == FailurePolicy::Local) s->fallback_ = std::make_unique<MemoryStore>(s->options_.localMaxKeys);
    // Decisions from Redis come later: decide a connection's pipelined requests together
    // (answers still leave in order) unless an answer may be held back on purpose.
    if (!s->decider_->answersAtOnce() && s->pipelinable()) s->options_.limits.maxPipelined = kMaxPipelined;
    s->listener_ = std::make_unique<HttpListener>(
        s->options_.limits, [s](HttpConnection& c, HttpRequest&& r) { s->handle(c, std::move(r)); });
    if (!s->options_.trust.frontSecret.empty()) s->listener_->reserveFor(s->options_.trust.frontSecret);
    s->listener_->exemptFromAddressCap(
        [trust = s->options_.trust](const std::string& peer) { return isTrustedProxy(peer, trust); });
    bound = s->listener_->listen(s->options_.bindAddress, s->options_.port);
  });
  if (!bound) return bound.error();
  s->port_ = *bound;
  return server;
}

std::string ReplicaServer::url() const { return httpUrl(options_.bindAddress, port_); }

const ListenerStats& ReplicaServer::listenerStats() const { return listener_->stats(); }

std::int64_t ReplicaServer::evictedKeys() const {
  return decider_->evictedKeys() + (fallback_ ? fallback_->evictedKeys() : 0);
}

bool ReplicaServer::pipelinable() const {
  return options_.algorithm != Algorithm::LeakyBucket && !options_.allowClientOverrides;
}

void ReplicaServer::refuse(HttpConnection& connection, const std::string& message) {
  stats_.badRequests.fetch_add(1);
  connection.respond(errorResponse(400, message));
}

Result<Algorithm> ReplicaServer::requestedAlgorithm(const HttpRequest& request) const {
  const auto* name = findHeader(request.headers, "x-ratelab-algorithm");
  if (name == nullptr) return options_.algorithm;
  const auto a = parseAlgorithm(*name);
  if (!a) {
    const bool printable = isValidUtf8(*name) && name->size() <= 64;
    return invalidArgument("x-ratelab-algorithm '" + (printable ? *name : std::string("?")) +
                           "' is unknown: allowed " + allowedAlgorithms());
  }
  if (const auto& why = unusable_[static_cast<int>(*a)]; !why.empty())
    return invalidArgument("x-ratelab-algorithm " + std::string(algorithmName(*a)) + " " + why);
  return *a;
}

Result<std::int64_t> ReplicaServer::requestedCost(const HttpRequest& request) const {
  const auto* c = findHeader(request.headers, "x-ratelab-cost");
  if (c == nullptr) return std::int64_t{1};
  std::int64_t cost = 0;
  const auto [ptr, ec] = std::from_chars(c->data(), c->data() + c->size(), cost);
  const auto most = std::min(options_.quota.limit, options_.maxCost);
  const auto allowed = "allowed 1 to " + std::to_string(most) + " (the limit, at most " +
                       std::to_string(options_.maxCost) + ")";
  if (c->empty() || ec != std::errc{} || ptr != c->data() + c->size())
    return invalidArgument("x-ratelab-cost is not an integer: " + allowed);
  if (cost != 1 && !options_.allowClientOverrides)
    return invalidArgument("x-ratelab-cost is honoured only with serve --allow-client-overrides");
  if (cost < 1 || cost > most) return invalidArgument("x-ratelab-cost " + std::to_string(cost) + " is out of range: " + allowed);
  return cost;
}

void ReplicaServer::handle(HttpConnection& connection, HttpRequest&& request) {
  HttpDecisionEvent event;
  event.replica = options_.index;
  auto client = clientKeyOf(request, connection.peerAddress(), options_.trust);
  if (!client) return refuse(connection, client.error().message);
  event.client = std::move(*client);
  const auto algorithm = requestedAlgorithm(request);
  if (!algorithm) return refuse(connection, algorithm.error().message);
  const auto cost = requestedCost(request);
  if (!cost) return refuse(connection, cost.error().message);
  event.algorithm = *algorithm;
  // Skipping the shaping delay is a client override: any other client's answer waits its delay.
  const bool noWait = options_.allowClientOverrides && findHeader(request.headers, "x-ratelab-no-wait") != nullptr;
  static const SystemClock clock;
  event.at = clock.now();
  const DecisionRequest r{event.algorithm, event.client, options_.quota, *cost, event.at};
  decider_->decide(r, [this, target = QPointer<HttpConnection>(&connection), id = connection.currentRequest(), event,
                       cost = *cost, noWait](Result<Decision> d) mutable {
    const DecisionRequest asked{event.algorithm, event.client, options_.quota, cost, event.at};
    finish(target.data(), id, event,
           applyPolicy(std::move(d), asked, options_.onStoreError, kPolicyRetryAfter, fallback_.get()), noWait);
  });
}

void ReplicaServer::finish(HttpConnection* connection, std::uint64_t id, HttpDecisionEvent& event,
                           Result<PolicyDecision> decided,
                           bool noWait) {
  const LimitContext context{event.algorithm, options_.quota, event.client, options_.index};
  HttpResponse response;
  if (!decided) {  // not an outage: bad input (our own checks: safe to show), or a fault whose text stays here
    const bool badInput = classifyStoreError(decided.error()) == StoreErrorClass::BadInput;
    (badInput ? stats_.badRequests : stats_.internalErrors).fetch_add(1);
    if (badInput) {
      response = errorResponse(400, decided.error().message);
    } else {
      const auto requestId = "r" + std::to_string(options_.index) + "-" + std::to_string(++requests_);
      logStoreError(requestId, decided.error());
      response = errorResponse(500, "store error (request id " + requestId + ")");
    }
    if (connection) connection->respondTo(id, std::move(response));
    else stats_.abandoned.fetch_add(1);
    return;
  }
  event.decision = decided->decision;
  event.storeFailed = decided->byPolicy;
  if (!decided->byPolicy) {
    (event.decision.allowed ? stats_.admitted : stats_.denied).fetch_add(1);
    const bool shaped = event.decision.allowed && !noWait && event.decision.delay.count() > 0;
    if (connection != nullptr && !shaped) {  // the hot path: wire bytes straight from the decision
      event.status = event.decision.allowed ? 200 : 429;
      if (options_.observer) options_.observer(event);
      thread_local std::string wire;
      wire.clear();
      const bool keepAlive = connection->keepAliveRequested(id);
      appendDecisionAnswer(wire, event.decision, context, keepAlive, connection->headRequest(id));
      return connection->respondRawTo(id, wire, keepAlive);
    }
    response = decisionResponse(event.decision, context);
  } else {
    (event.decision.allowed ? stats_.failedOpen : stats_.failedClosed).fetch_add(1);
    response = storeFailureResponse(options_.onStoreError, event.decision, context);
  }
  if (connection == nullptr) {
    stats_.abandoned.fetch_add(1);
    return;
  }
  answer(*connection, id, event, std::move(response), noWait);
}

void ReplicaServer::answer(HttpConnection& connection, std::uint64_t id, HttpDecisionEvent& event,
                           HttpResponse response, bool noWait) {
  event.status = response.status;
  if (options_.observer) options_.observer(event);
  const Micros delay = event.decision.allowed && !noWait ? event.decision.delay : Micros{0};
  if (delay.count() <= 0) return connection.respondTo(id, std::move(response));
  // Leaky-bucket shaping: the admitted request waits `delay` in the queue, without blocking the thread.
  QPointer<HttpConnection> target(&connection);
  const auto ms = std::min<std::int64_t>(ceilMillis(delay), std::numeric_limits<int>::max());
  QTimer::singleShot(static_cast<int>(ms), Qt::PreciseTimer, &connection,
                     [target, id, r = std::move(response)]() mutable {
                       if (target) target->respondTo(id, std::move(r));
                     });
}

}  // namespace rl
