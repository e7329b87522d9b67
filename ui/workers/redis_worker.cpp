#include "ui/workers/redis_worker.hpp"

#include <algorithm>
#include <cstdlib>
#include <exception>

#include "redis/cluster/managed_redis_cluster.hpp"
#include "keys/key_reading.hpp"
#include "redis/key_inspector.hpp"
#include "redis/managed_redis_server.hpp"
#include "redis/redis_link.hpp"
#include "redis/redis_url.hpp"
#include "redis/replication_status.hpp"
#include "redis/sentinel/managed_redis_sentinel.hpp"
#include "redis/server_status.hpp"
#include "ui/qt_text.hpp"

namespace rl::ui {

namespace {
constexpr Micros kInteractiveTimeout{1'000'000};  ///< status, inspector, TTL samples: 1 s before "down"

// The window's private server allows DEBUG from loopback: the latency fault uses DEBUG SLEEP.
ManagedServerOptions managedOptions() {
  ManagedServerOptions o;
  o.extraArgs = {"--enable-debug-command", "local"};
  return o;
}

// The run of this window that wrote `name` (RateLab's <prefix>{<algorithm>:<tag><client>}), or null.
const RunKeys* runOf(const std::string& name, const QList<RunKeys>& runs) {
  const auto open = name.find('{');
  const auto colon = open == std::string::npos ? std::string::npos : name.find(':', open);
  if (colon == std::string::npos) return nullptr;
  for (const RunKeys& r : runs) {
    const std::string prefix = r.prefix.toStdString(), tag = r.runTag.toStdString();
    if (!tag.empty() && open == prefix.size() && name.starts_with(prefix) && name.compare(colon + 1, tag.size(), tag) == 0)
      return &r;
  }
  return nullptr;
}

// What a run's quota says about its keys: the limit, and the rate of its emission interval.
KeyAssumptions assumptionsOf(const Quota& q) {
  KeyAssumptions a;
  a.limit = q.limit;
  a.ratePerSecond = 1e6 / static_cast<double>(q.interval().count());
  return a;
}

InspectedKey toInspected(const KeyInfo& k, const std::optional<KeyReading>& reading) {
  InspectedKey out;
  out.name = qs(k.name);
  out.type = qs(k.type);
  out.pttlMs = k.pttlMs;
  out.value = qs(k.value);
  out.size = k.zsetSize;
  for (const auto& [f, v] : k.fields) out.entries.append({qs(f), qs(v)});
  for (const auto& [m, s] : k.zsetHead) out.entries.append({qs(m), qs(s)});
  if (k.type == "list") {
    out.size = k.listSize;
    for (std::size_t i = 0; i < k.listHead.size() && i < 20; ++i) out.entries.append({QString::number(i), qs(k.listHead[i])});
  }
  if (reading) {
    out.library = qs(reading->library);
    out.algorithm = qs(reading->algorithm);
    out.explained = qs(reading->words);
    out.limit = reading->limit.value_or(-1);
    out.used = reading->used.value_or(-1);
    out.resetMs = reading->resetMs.value_or(-1);
    out.needs = qs(reading->needs);
    for (const std::string& w : reading->warnings) out.warnings << qs(w);
  }
  out.node = qs(k.node);
  out.slot = k.slot;
  return out;
}

// `k` read by the library that wrote it: a key of this window's runs with that run's quota.
InspectedKey inspected(const KeyInfo& k, std::int64_t nowUs, const KeyAssumptions& typed, const QList<RunKeys>& runs) {
  const RunKeys* run = runOf(k.name, runs);
  const auto reading = readKey(k, nowUs, run ? assumptionsOf(run->quota) : typed);
  InspectedKey out = toInspected(k, reading);
  if (run && reading && reading->library == "RateLab") out.runQuota = qs(run->quota.toString());
  if (k.zsetLast) out.scoreUnitUs = timestampUnitUs(std::strtod(k.zsetLast->second.c_str(), nullptr), nowUs);
  return out;
}

QString errorText(const Error& e) { return qs(e.message); }

}  // namespace

RedisWorker::RedisWorker() = default;
RedisWorker::~RedisWorker() = default;

template <class Fn>
void RedisWorker::guarded(const char* what, Fn&& fn) {
  try {
    fn();
  } catch (const std::exception& e) {
    emit errorOccurred(tr("%1 failed: %2").arg(QLatin1String(what), QString::fromUtf8(e.what())));
  } catch (...) {
    emit errorOccurred(tr("%1 failed with an unknown error").arg(QLatin1String(what)));
  }
}

namespace {
// A link for the status line, the inspector and the TTL samples, not decisions: a PING
// slower than a limiter's 100 ms (a VPN, a loaded machine) is slow, not down.
Result<RedisLink> connectInteractive(RedisEndpoint endpoint) {
  endpoint.connectTimeout = std::max(endpoint.connectTimeout, kInteractiveTimeout);
  endpoint.commandTimeout = std::max(endpoint.commandTimeout, kInteractiveTimeout);
  return RedisLink::connect(endpoint);
}
}  // namespace

RedisLink* RedisWorker::link() {
  if (!endpoint_) {
    connError_ = tr("no Redis configured");
    return nullptr;
  }
  if (!link_) {
    auto l = connectInteractive(*endpoint_);
    if (!l) {
      connError_ = errorText(l.error());
      return nullptr;
    }
    link_ = std::make_unique<RedisLink>(std::move(*l));
  }
  return link_.get();
}

RedisLink* RedisWorker::ttlLink(const QString& url) {
  if (url.isEmpty()) return link();
  if (!ttlLink_ || ttlUrl_ != url) {
    ttlLink_.reset();
    ttlUrl_ = url;
    auto ep = parseRedisUrl(url.toStdString());
    if (!ep) return nullptr;
    auto l = connectInteractive(*ep);
    if (!l) return nullptr;
    ttlLink_ = std::make_unique<RedisLink>(std::move(*l));
  }
  return ttlLink_.get();
}

void RedisWorker::useEndpoint(const RedisEndpoint& endpoint) {
  endpoint_ = std::make_unique<RedisEndpoint>(endpoint);
  link_.reset();
}

void RedisWorker::setUrl(const QString& url) {
  guarded("Redis URL", [&] {
    if (url.trimmed() == qs(kPrivateClusterWord)) return startCluster();
    if (url.trimmed() == qs(kPrivateSentinelWord)) return startSentinel();
    auto ep = resolveRedisUrl(url.toStdString());
    if (!ep) {
      emit errorOccurred(errorText(ep.error()));
      return;
    }
    useEndpoint(*ep);
    checkStatus();
  });
}

// Starts `owned` (Set::start()) unless it runs, then talks to it; `what` names it for the user.
template <class Set>
void RedisWorker::startPrivate(std::unique_ptr<Set>& owned, const QString& word, const QString& what) {
  if (!owned) {
    RedisStatus starting;
    starting.url = word;
    starting.starting = true;
    starting.error = tr("starting a %1…").arg(what);
    emit statusReady(starting);
    auto c = Set::start();
    if (!c) {
      RedisStatus failed;
      failed.url = starting.url;
      failed.error = tr("cannot start a %1: %2").arg(what, errorText(c.error()));
      emit statusReady(failed);
      emit errorOccurred(failed.error);
      return;
    }
    owned = std::make_unique<Set>(std::move(*c));
  }
  useEndpoint(owned->endpoint());
  ServerState st = serverState(tr("%1 on loopback, stopped when the window closes").arg(what));
  st.url = qs(endpoint_->toString());
  emit serverChanged(st);
  checkStatus();
}

void RedisWorker::startCluster() {
  guarded("Starting a Redis Cluster", [&] {
    const ManagedClusterOptions options;
    const QString shape = tr("%1 masters + %2 replicas").arg(options.masters).arg(options.masters * options.replicasPerMaster);
    startPrivate(cluster_, qs(kPrivateClusterWord), tr("private Redis Cluster (%1)").arg(shape));
  });
}

void RedisWorker::startSentinel() {
  guarded("Starting a Sentinel set", [&] {
    startPrivate(sentinel_, qs(kPrivateSentinelWord), tr("private Sentinel set (1 master, 2 replicas, 3 Sentinels)"));
  });
}

ServerState RedisWorker::serverState(const QString& message) const {
  ServerState s;
  s.running = server_ && server_->running();
  s.port = server_ ? server_->port() : 0;
  s.message = message;
  return s;  // no url: only a change that makes the window talk to another server names one
}

void RedisWorker::useManagedServer(const QString& message) {
  useEndpoint(server_->endpoint());
  ServerState st = serverState(message);
  st.url = qs(endpoint_->toString());
  emit serverChanged(st);
  checkStatus();
}

void RedisWorker::startServer() {
  guarded("Starting redis-server", [&] {
    if (server_ && server_->running())
      return useManagedServer(tr("private redis-server on 127.0.0.1:%1").arg(server_->port()));
    if (server_) {
      if (auto ok = server_->restart(); !ok) {
        emit serverChanged(serverState(qs(ok.error().message)));
        return emit errorOccurred(qs(ok.error().message));
      }
      return useManagedServer(tr("private redis-server restarted on 127.0.0.1:%1").arg(server_->port()));
    }
    auto s = ManagedRedisServer::start(managedOptions());
    if (!s) {
      emit serverChanged(serverState(qs(s.error().message)));
      emit errorOccurred(qs(s.error().message));
      return;
    }
    server_ = std::make_unique<ManagedRedisServer>(std::move(*s));
    useManagedServer(tr("private redis-server on 127.0.0.1:%1").arg(server_->port()));
  });
}

void RedisWorker::useEmbeddedDefault(int probePort) {
  guarded("Embedded Redis", [&] {
    auto e = resolveEmbeddedDefault(probePort, managedOptions());
    if (!e) {
      const QString msg = qs(e.error().message) +
                          tr(". The memory backend still works; the distributed demos need Redis.");
      emit serverChanged(serverState(msg));
      emit errorOccurred(msg);
      return;
    }
    useEndpoint(e->endpoint);
    if (e->server) server_ = std::make_unique<ManagedRedisServer>(std::move(*e->server));
    ServerState st = serverState(qs(e->description));
    st.url = qs(e->endpoint.toString());
    emit serverChanged(st);
    checkStatus();
  });
}

void RedisWorker::useSavedOrEmbedded(const QString& savedUrl, int probePort) {
  guarded("Saved Redis", [&] {
    auto ep = resolveRedisUrl(savedUrl.toStdString());
    if (ep) {
      useEndpoint(*ep);
      if (link()) return checkStatus();  // it answers: the window goes on where it was
    }
    const QString why = ep ? connError_ : errorText(ep.error());
    emit serverChanged(serverState(tr("the saved Redis %1 does not answer (%2): using the embedded default")
                                       .arg(qs(withoutPassword(savedUrl.toStdString())), why)));
    useEmbeddedDefault(probePort);
  });
}

void RedisWorker::stopServer() {
  guarded("Stopping redis-server", [&] {
    if (!server_)
      return emit errorOccurred(tr("No managed redis-server to stop: this Redis is not RateLab's; the outage demo "
                                   "needs the managed server (Connection panel: Start server)"));
    if (auto ok = server_->stop(); !ok) emit errorOccurred(qs(ok.error().message));
    link_.reset();
    emit serverChanged(serverState(tr("redis-server stopped")));
    checkStatus();  // the Status line says so when the window talks to it
  });
}

void RedisWorker::restartServer() {
  guarded("Restarting redis-server", [&] {
    if (!server_) return emit errorOccurred(tr("No managed redis-server to restart: start it in the Connection panel"));
    if (auto ok = server_->restart(); !ok) emit errorOccurred(qs(ok.error().message));
    link_.reset();
    emit serverChanged(serverState(tr("redis-server restarted on port %1").arg(server_->port())));
    checkStatus();
  });
}

void RedisWorker::checkStatus() {
  guarded("Redis status", [&] {
    RedisStatus st;
    st.url = endpoint_ ? qs(endpoint_->toString()) : QString();
    RedisLink* l = link();
    if (!l) {
      st.error = connError_;
      emit statusReady(st);
      return;
    }
    // Every master answers PING (a cluster: the slowest round trip counts) and names its version.
    Micros slowest{0};
    std::string version;
    auto ok = l->forEachMaster([&](RedisConnection& c) -> Result<void> {
      auto status = serverStatus(c);
      if (!status) return Error{status.error().code, (l->router() ? c.endpoint().address() + ": " : "") + status.error().message};
      slowest = std::max(slowest, status->rtt);
      if (version.empty()) version = status->version;
      return {};
    });
    if (!ok) {
      st.error = errorText(ok.error());
      link_.reset();
      emit statusReady(st);
      return;
    }
    st.rttMs = static_cast<double>(slowest.count()) / 1000.0;
    st.version = qs(version);
    st.masters = l->router() ? static_cast<int>(l->router()->map().masters().size()) : 0;
    st.ok = true;
    emit statusReady(st);
  });
}

void RedisWorker::scanKeys(const QString& prefix, const QString& pattern, quint64 cursor, int count,
                           const QString& assume, const QList<RunKeys>& runs) {
  guarded("Key scan", [&] {
    auto assumptions = parseKeyAssumptions(assume.toStdString());
    if (!assumptions) return emit errorOccurred(tr("Assume field: %1").arg(errorText(assumptions.error())));
    RedisLink* l = link();
    if (!l) return emit errorOccurred(connError_);
    constexpr int kZsetHead = 20;
    KeyPageResult out;
    out.firstPage = cursor == 0;
    out.prefix = prefix;
    out.pattern = pattern;
    std::vector<KeyInfo> keys;
    if (ClusterRouter* router = l->router()) {  // every master, to the end: node and slot per key
      auto all = scanAllLimiterKeys(*l, prefix.toStdString(), pattern.toStdString(), kZsetHead);
      if (!all) return emit errorOccurred(errorText(all.error()));
      keys = std::move(*all);
      for (const ClusterNode& m : router->map().masters()) out.masters << qs(m.address());
    } else {
      auto page = l->onKey({}, [&](RedisConnection& c) {
        return scanLimiterKeys(c, prefix.toStdString(), pattern.toStdString(), cursor, count, kZsetHead);
      });
      if (!page) return emit errorOccurred(errorText(page.error()));
      out.nextCursor = page->nextCursor;
      keys = std::move(page->keys);
      if (out.firstPage) {  // the master and its replicas' lag (INFO replication, read in core), once per scan
        auto line = l->onKey({}, [](RedisConnection& c) -> Result<std::string> { return replicationLine(c); });
        if (line) out.replication = qs(*line);
      }
    }
    auto now = l->onKey({}, [](RedisConnection& c) { return serverTimeUs(c); });
    if (!now) return emit errorOccurred(errorText(now.error()));
    for (const KeyInfo& k : keys) out.keys.append(inspected(k, now.value(), assumptions.value(), runs));
    emit keysReady(out);
  });
}

void RedisWorker::deleteKeys(const QString& prefix, const QStringList& keys) {
  guarded("Delete", [&] {
    RedisLink* l = link();
    if (!l) return emit errorOccurred(connError_);
    std::vector<std::string> names;
    for (const QString& k : keys) names.push_back(k.toStdString());
    auto n = rl::deleteKeys(*l, prefix.toStdString(), names);
    if (!n) return emit errorOccurred(errorText(n.error()));
    emit keysDeleted(*n);
  });
}

void RedisWorker::deletePrefix(const QString& prefix) {
  guarded("Delete prefix", [&] {
    RedisLink* l = link();
    if (!l) return emit errorOccurred(connError_);
    auto all = scanAllLimiterKeys(*l, prefix.toStdString());
    if (!all) return emit errorOccurred(errorText(all.error()));
    std::vector<std::string> names;
    for (const KeyInfo& k : *all) names.push_back(k.name);
    auto n = rl::deleteKeys(*l, prefix.toStdString(), names);
    if (!n) return emit errorOccurred(errorText(n.error()));
    emit keysDeleted(*n);
  });
}

void RedisWorker::sampleTtl(const QStringList& baseKeys, qint64 atUs, const QString& url) {
  guarded("TTL sample", [&] {
    const QList<qint64> none(baseKeys.size(), -2);
    RedisLink* l = ttlLink(url);
    if (!l) return emit ttlSampled(atUs, none);  // an outage: the TTL chart has a gap
    QList<qint64> out;
    for (const QString& base : baseKeys) {
      // Window algorithms add a ":<window start>" suffix: take the longest PTTL under the base key.
      // Every key of one client shares the base key's hash tag, so one master holds them all.
      const std::string b = base.toStdString();
      auto keys = l->onKey(b, [&](RedisConnection& c) { return scanAllLimiterKeys(c, b); });
      if (!keys) {
        (url.isEmpty() ? link_ : ttlLink_).reset();
        return emit ttlSampled(atUs, none);
      }
      qint64 best = -2;
      for (const KeyInfo& k : *keys) best = std::max<qint64>(best, k.pttlMs);
      out.append(best);
    }
    emit ttlSampled(atUs, out);
  });
}

ManagedRedisServer* RedisWorker::managedServer() {
  if (!server_ || !server_->running() || (endpoint_ && endpoint_->cluster)) return nullptr;
  return server_.get();
}

void RedisWorker::faultsEnded() { link_.reset(); }

}  // namespace rl::ui
