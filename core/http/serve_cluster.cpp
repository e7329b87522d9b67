#include "http/serve_cluster.hpp"

#include <algorithm>
#include <thread>

#include "http/serve_descriptors.hpp"

namespace rl {
namespace {

constexpr int kMaxReplicas = 64;
// Room a replica leaves beyond the front's limits for what the front adds (X-Forwarded-For,
// X-RateLab-Front, Host), so the front never forwards what its replicas would refuse with 431.
constexpr std::size_t kForwardedBytes = 512;
constexpr std::size_t kForwardedFields = 4;
// Requests in flight per builtin-front upstream connection to pipelinable replicas.
constexpr int kPipelineDepth = 16;

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
  if (o.limits.headerTimeout.count() < 1000 || o.limits.idleTimeout.count() < 1000 ||
      o.limits.requestLineTimeout.count() < 1000)
    return invalidArgument("--request-line-timeout-ms, --header-timeout-ms and --idle-timeout-ms must be at least 1");
  if (o.limits.maxPerAddress < 0)
    return invalidArgument("--max-connections-per-address " + std::to_string(o.limits.maxPerAddress) +
                           " is out of range: allowed 0 (no cap) or more");
  if (o.limits.message.maxHeaderBytes < 256)
    return invalidArgument("--max-header-bytes " + std::to_string(o.limits.message.maxHeaderBytes) +
                           " is too small: allowed 256 or more");
  if (o.replicaThreads < 0 || o.replicaThreads > o.replicas)
    return invalidArgument("--replica-threads " + std::to_string(o.replicaThreads) +
                           " is out of range: allowed 1 to the number of replicas (" + std::to_string(o.replicas) + ")");
  if (o.maxCost < 1) return invalidArgument("--max-cost " + std::to_string(o.maxCost) + " is out of range: allowed 1 or more");
  return o.quota.validate(o.algorithm);
}

// Front listeners for `o` (bind address, limits, upstream).
FrontOptions frontOptions(const ServeOptions& o, const std::string& secret) {
  FrontOptions front;
  front.bindAddress = o.bindAddress;
  front.port = o.frontPort;
  front.upstreamAddress = o.bindAddress == "0.0.0.0" ? "127.0.0.1" : o.bindAddress == "::" ? "::1" : o.bindAddress;
  front.limits = o.limits;
  front.secret = secret;
  // A shaped (leaky-bucket, maybe chosen per request) answer may wait a full queue: limit x interval.
  front.upstreamTimeout += std::min(o.quota.interval() * o.quota.limit, Micros{3600LL * kSecond.count()});
  return front;
}

Result<std::unique_ptr<NginxFront>> startNginx(const FrontOptions& f, int workerConnections) {
  NginxFrontOptions n;
  n.bindAddress = f.bindAddress;
  n.port = f.port;
  n.upstreamAddress = f.upstreamAddress;
  n.replicaPorts = f.replicaPorts;
  n.secret = f.secret;
  n.limits = f.limits;
  n.upstreamTimeout = f.upstreamTimeout;
  n.workerConnections = workerConnections;
  return NginxFront::start(n);
}

// The counters that are rarely non-zero, shown once they are.
std::string connectionExtras(const ServeTally& t) {
  std::string out;
  if (t.refusedPerAddress > 0) out += " (per address: " + std::to_string(t.refusedPerAddress) + ")";
  if (t.reclaimedConnections > 0) out += "  reclaimed: " + std::to_string(t.reclaimedConnections);
  if (t.outOfDescriptors > 0) out += "  emfile: " + std::to_string(t.outOfDescriptors);
  if (t.evictedKeys > 0) out += "  evicted keys: " + std::to_string(t.evictedKeys);
  return out;
}

}  // namespace

int sharedReplicaThreads(int replicas) {
  const int cores = static_cast<int>(std::thread::hardware_concurrency());
  return std::clamp(cores - 1, 1, std::max(1, replicas));
}

int defaultReplicaThreads(Backend backend, bool redisCluster, int replicas) {
  const bool nonBlocking = backend == Backend::Memory || (backend == Backend::RedisLua && !redisCluster);
  return nonBlocking ? sharedReplicaThreads(replicas) : replicas;
}

std::string_view frontKindName(FrontKind k) {
  switch (k) {
    case FrontKind::Builtin: return "builtin";
    case FrontKind::Nginx: return "nginx";
    case FrontKind::None: return "none";
  }
  return "builtin";
}

Result<FrontKind> parseFrontKind(std::string_view name) {
  for (const auto k : {FrontKind::Builtin, FrontKind::Nginx, FrontKind::None})
    if (name == frontKindName(k)) return k;
  return invalidArgument("--front '" + std::string(name) + "' is unknown: allowed builtin, nginx or none");
}

Result<std::unique_ptr<ServeCluster>> ServeCluster::start(ServeOptions options, const ReplicaStoreFactory& factory) {
  if (auto v = validateOptions(options); !v) return v.error();
  ForwardTrust trust;
  if (!options.trustedProxies.empty()) {
    auto proxies = parseTrustedProxies(options.trustedProxies);
    if (!proxies) return proxies.error();
    trust.proxies = std::move(*proxies);
  }
  if (options.front != FrontKind::None) trust.frontSecret = makeFrontSecret();
  // Descriptors: the cluster at its caps must fit the open-file limit.
  const int pool = NginxFrontOptions{}.keepalivePerReplica * options.replicas;
  const long openFiles = raiseOpenFileLimit();
  const int fitting = mostConnectionsFitting(options.front, options.replicas, pool, openFiles);
  std::string lowered;
  if (options.fitConnections && options.limits.maxConnections > fitting && fitting > 0) {
    lowered = " (lowered from " + std::to_string(options.limits.maxConnections) + " to fit)";
    options.limits.maxConnections = fitting;
  }
  if (auto fit = checkConnectionsFit(options.front, options.replicas, options.limits.maxConnections, pool, openFiles);
      !fit)
    return fit.error();
  const auto need = serveDescriptors(options.front, options.replicas, options.limits.maxConnections, pool);
  std::unique_ptr<ServeCluster> cluster(new ServeCluster);
  cluster->kind_ = options.front;
  cluster->descriptorLine_ = "open files: at most " + std::to_string(std::max(need.process, need.nginx)) + " of " +
                             std::to_string(openFiles) + " (ulimit -n) with " +
                             std::to_string(options.limits.maxConnections) + " connections at the front" + lowered;
  FrontOptions front = frontOptions(options, trust.frontSecret);

  std::vector<std::shared_ptr<EventThread>> threads;  // empty: each replica makes its own
  for (int t = 0; t < options.replicaThreads && options.replicaThreads < options.replicas; ++t)
    threads.push_back(std::make_shared<EventThread>("rl-replicas-" + std::to_string(t)));
  for (int i = 0; i < options.replicas; ++i) {
    ReplicaOptions r;
    r.index = i;
    r.algorithm = options.algorithm;
    r.quota = options.quota;
    r.onStoreError = options.onStoreError;
    r.bindAddress = options.bindAddress;
    r.port = options.replicaPorts.empty() ? 0 : options.replicaPorts[static_cast<std::size_t>(i)];
    r.limits = options.limits;
    r.limits.message.maxHeaderBytes += kForwardedBytes;
    r.limits.message.maxHeaderCount += kForwardedFields;
    // Behind a front, one replica may get every upstream connection, plus a few direct ones.
    r.limits.maxConnections = need.replicaConnections;
    r.trust = trust;
    r.allowClientOverrides = options.allowClientOverrides;
    r.maxCost = options.maxCost;
    r.localMaxKeys = options.localMaxKeys;
    r.observer = options.observer;
    auto replica = ReplicaServer::start(std::move(r), factory,
                                        threads.empty() ? nullptr : threads[static_cast<std::size_t>(i) % threads.size()]);
    if (!replica) return replica.error();
    front.replicaPorts.push_back((*replica)->port());
    cluster->replicas_.push_back(std::move(*replica));
  }
  // Pipelined upstream connections only where no answer is held up behind a shaped one.
  const bool pipelinable = std::all_of(cluster->replicas_.begin(), cluster->replicas_.end(),
                                       [](const auto& r) { return r->pipelinable(); });
  if (pipelinable) front.pipelineDepth = kPipelineDepth;
  cluster->pipelinable_ = pipelinable;
  if (options.front == FrontKind::Nginx) {
    auto n = startNginx(front, need.nginxConnections);
    if (!n) return n.error();
    cluster->nginx_ = std::move(*n);
  } else if (options.front == FrontKind::Builtin) {
    auto f = FrontProxy::start(std::move(front));
    if (!f) return f.error();
    cluster->front_ = std::move(*f);
  }
  return cluster;
}

ServeCluster::~ServeCluster() {
  front_.reset();
  nginx_.reset();
  replicas_.clear();
}

std::string ServeCluster::frontUrl() const {
  if (front_) return front_->url();
  if (nginx_) return nginx_->url();
  return replicas_.front()->url();
}

std::vector<std::string> ServeCluster::replicaUrls() const {
  std::vector<std::string> urls;
  for (const auto& r : replicas_) urls.push_back(r->url());
  return urls;
}

ServeTally ServeCluster::tally() const {
  ServeTally t;
  if (front_) {
    const auto& fl = front_->listenerStats();
    t.badRequests = fl.malformed.load() + fl.timedOut.load();
    t.refusedConnections = fl.refused.load();
    t.refusedPerAddress = fl.refusedPerAddress.load();
    t.reclaimedConnections = fl.reclaimed.load();
    t.outOfDescriptors = fl.outOfDescriptors.load();
    t.openConnections = fl.open.load();
    t.upstreamErrors = front_->upstreamErrors();
  }
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
    t.internalErrors += s.internalErrors.load();
    t.refusedConnections += l.refused.load();
    t.refusedPerAddress += l.refusedPerAddress.load();
    t.reclaimedConnections += l.reclaimed.load();
    t.outOfDescriptors += l.outOfDescriptors.load();
    t.evictedKeys += r->evictedKeys();
    if (!front_) t.openConnections += l.open.load();
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
         "  bad: " + std::to_string(t.badRequests) + "  500: " + std::to_string(t.internalErrors) +
         "  502/504: " + std::to_string(t.upstreamErrors) + "  conns: " + std::to_string(t.openConnections) +
         "  refused: " + std::to_string(t.refusedConnections) + connectionExtras(t) + "  per replica: " + per;
}

}  // namespace rl
