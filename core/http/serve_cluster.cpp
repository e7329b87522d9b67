#include "http/serve_cluster.hpp"

namespace rl {
namespace {

constexpr int kMaxReplicas = 64;

Result<void> validateOptions(const ServeOptions& o) {
  if (o.replicas < 1 || o.replicas > kMaxReplicas)
    return invalidArgument("--replicas " + std::to_string(o.replicas) + " is out of range: allowed 1.." +
                           std::to_string(kMaxReplicas));
  if (!o.replicaPorts.empty() && static_cast<int>(o.replicaPorts.size()) != o.replicas)
    return invalidArgument("--replica-ports lists " + std::to_string(o.replicaPorts.size()) +
                           " ports for " + std::to_string(o.replicas) + " replicas: give one per replica");
  if (o.limits.maxConnections < 1)
    return invalidArgument("--max-connections " + std::to_string(o.limits.maxConnections) +
                           " is out of range: allowed 1 or more");
  if (o.limits.headerTimeout.count() < 1000 || o.limits.idleTimeout.count() < 1000)
    return invalidArgument("--header-timeout-ms and --idle-timeout-ms must be at least 1");
  if (o.limits.message.maxHeaderBytes < 256)
    return invalidArgument("--max-header-bytes " + std::to_string(o.limits.message.maxHeaderBytes) +
                           " is too small: allowed 256 or more");
  return o.quota.validate(o.algorithm);
}

}  // namespace

Result<std::unique_ptr<ServeCluster>> ServeCluster::start(ServeOptions options, const ReplicaStoreFactory& factory) {
  if (auto v = validateOptions(options); !v) return v.error();
  std::unique_ptr<ServeCluster> cluster(new ServeCluster);
  FrontOptions front;
  front.bindAddress = options.bindAddress;
  front.port = options.frontPort;
  front.upstreamAddress = options.bindAddress == "0.0.0.0" ? "127.0.0.1"
                          : options.bindAddress == "::" ? "::1" : options.bindAddress;
  front.limits = options.limits;
  // A shaped (leaky-bucket, maybe chosen per request) answer may wait a full queue: limit x interval.
  front.upstreamTimeout += std::min(options.quota.interval() * options.quota.limit, Micros{3600LL * kSecond.count()});
  for (int i = 0; i < options.replicas; ++i) {
    ReplicaOptions r;
    r.index = i;
    r.algorithm = options.algorithm;
    r.quota = options.quota;
    r.onStoreError = options.onStoreError;
    r.bindAddress = options.bindAddress;
    r.port = options.replicaPorts.empty() ? 0 : options.replicaPorts[static_cast<std::size_t>(i)];
    r.limits = options.limits;
    // Every front connection may hold one upstream connection per replica at once.
    r.limits.maxConnections = options.limits.maxConnections + front.maxIdlePerReplica;
    r.observer = options.observer;
    auto replica = ReplicaServer::start(std::move(r), factory);
    if (!replica) return replica.error();
    front.replicaPorts.push_back((*replica)->port());
    cluster->replicas_.push_back(std::move(*replica));
  }
  auto f = FrontProxy::start(std::move(front));
  if (!f) return f.error();
  cluster->front_ = std::move(*f);
  return cluster;
}

ServeCluster::~ServeCluster() {
  front_.reset();
  replicas_.clear();
}

std::string ServeCluster::frontUrl() const { return front_->url(); }

std::vector<std::string> ServeCluster::replicaUrls() const {
  std::vector<std::string> urls;
  for (const auto& r : replicas_) urls.push_back(r->url());
  return urls;
}

ServeTally ServeCluster::tally() const {
  ServeTally t;
  const auto& fl = front_->listenerStats();
  t.badRequests = fl.malformed.load() + fl.timedOut.load();
  t.refusedConnections = fl.refused.load();
  t.openConnections = fl.open.load();
  t.upstreamErrors = front_->upstreamErrors();
  for (const auto& r : replicas_) {
    const auto& s = r->stats();
    const auto& l = r->listenerStats();
    const std::int64_t admitted = s.admitted.load(), denied = s.denied.load();
    const std::int64_t open = s.failedOpen.load(), closed = s.failedClosed.load();
    t.admitted += admitted;
    t.denied += denied;
    t.failedOpen += open;
    t.failedClosed += closed;
    t.badRequests += s.badRequests.load() + l.malformed.load() + l.timedOut.load();
    t.refusedConnections += l.refused.load();
    t.perReplica.push_back(admitted + denied + open + closed);
  }
  return t;
}

std::string ServeCluster::tallyLine() const {
  const auto t = tally();
  std::string per;
  for (const auto n : t.perReplica) per.append(per.empty() ? "" : "/").append(std::to_string(n));
  return "200: " + std::to_string(t.admitted + t.failedOpen) + "  429: " + std::to_string(t.denied) +
         "  503: " + std::to_string(t.failedClosed) + "  fail-open: " + std::to_string(t.failedOpen) +
         "  bad: " + std::to_string(t.badRequests) + "  502/504: " + std::to_string(t.upstreamErrors) +
         "  conns: " + std::to_string(t.openConnections) + "  refused: " + std::to_string(t.refusedConnections) +
         "  per replica: " + per;
}

}  // namespace rl
