#include "ui/workers/redis_worker.hpp"

#include <algorithm>
#include <exception>

#include "redis/foreign_keys/key_reading.hpp"
#include "redis/key_inspector.hpp"
#include "redis/managed_redis_server.hpp"
#include "redis/redis_connection.hpp"
#include "redis/redis_url.hpp"
#include "redis/server_status.hpp"

namespace rl::ui {

namespace {
constexpr Micros kInteractiveTimeout{1'000'000};  ///< status, inspector, TTL samples: 1 s before "down"

// The window's private server allows DEBUG from loopback: the latency fault uses DEBUG SLEEP.
ManagedServerOptions managedOptions() {
  ManagedServerOptions o;
  o.extraArgs = {"--enable-debug-command", "local"};
  return o;
}

QString qs(std::string_view s) { return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size())); }

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
  }
  return out;
}

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

RedisConnection* RedisWorker::connection() {
  if (!endpoint_) {
    connError_ = tr("no Redis configured");
    return nullptr;
  }
  if (!conn_) {
    // This connection answers the status line, the inspector and the TTL
    // samples, not decisions: a PING slower than a limiter's 100 ms (a VPN, a
    // loaded machine) is slow, not down.
    RedisEndpoint interactive = *endpoint_;
    interactive.connectTimeout = std::max(interactive.connectTimeout, kInteractiveTimeout);
    interactive.commandTimeout = std::max(interactive.commandTimeout, kInteractiveTimeout);
    auto c = RedisConnection::connect(interactive);
    if (!c) {
      connError_ = QString::fromStdString(c.error().message);
      return nullptr;
    }
    conn_ = std::make_unique<RedisConnection>(std::move(*c));
  }
  return conn_.get();
}

void RedisWorker::setUrl(const QString& url) {
  guarded("Redis URL", [&] {
    auto ep = resolveRedisUrl(url.toStdString());
    if (!ep) {
      emit errorOccurred(QString::fromStdString(ep.error().message));
      return;
    }
    endpoint_ = std::make_unique<RedisEndpoint>(*ep);
    conn_.reset();
    checkStatus();
  });
}

ServerState RedisWorker::serverState(const QString& message) const {
  ServerState s;
  s.running = server_ && server_->running();
  s.port = server_ ? server_->port() : 0;
  s.url = server_ ? QStringLiteral("redis://127.0.0.1:%1").arg(s.port) : QString();
  s.message = message;
  return s;
}

void RedisWorker::startServer() {
  guarded("Starting redis-server", [&] {
    if (server_ && server_->running()) {
      emit serverChanged(serverState(tr("redis-server already runs on port %1").arg(server_->port())));
      return;
    }
    if (server_) {
      restartServer();
      return;
    }
    auto s = ManagedRedisServer::start(managedOptions());
    if (!s) {
      emit serverChanged(serverState(QString::fromStdString(s.error().message)));
      emit errorOccurred(QString::fromStdString(s.error().message));
      return;
    }
    server_ = std::make_unique<ManagedRedisServer>(std::move(*s));
    endpoint_ = std::make_unique<RedisEndpoint>(server_->endpoint());
    conn_.reset();
    emit serverChanged(serverState(tr("private redis-server on 127.0.0.1:%1").arg(server_->port())));
    checkStatus();
  });
}

void RedisWorker::useEmbeddedDefault(int probePort) {
  guarded("Embedded Redis", [&] {
    auto e = resolveEmbeddedDefault(probePort, managedOptions());
    if (!e) {
      const QString msg = QString::fromStdString(e.error().message) +
                          tr(". The memory backend still works; the distributed demos need Redis.");
      emit serverChanged(serverState(msg));
      emit errorOccurred(msg);
      return;
    }
    endpoint_ = std::make_unique<RedisEndpoint>(e->endpoint);
    conn_.reset();
    if (e->server) server_ = std::make_unique<ManagedRedisServer>(std::move(*e->server));
    ServerState st = serverState(QString::fromStdString(e->description));
    st.url = qs(e->endpoint.toString());
    emit serverChanged(st);
    checkStatus();
  });
}

void RedisWorker::stopServer() {
  guarded("Stopping redis-server", [&] {
    if (!server_)
      return emit errorOccurred(tr("No managed redis-server to stop: this Redis is not RateLab's; the outage demo "
                                   "needs the managed server (Connection panel: Start server)"));
    if (auto ok = server_->stop(); !ok) emit errorOccurred(QString::fromStdString(ok.error().message));
    conn_.reset();
    emit serverChanged(serverState(tr("redis-server stopped")));
  });
}

void RedisWorker::restartServer() {
  guarded("Restarting redis-server", [&] {
    if (!server_) return startServer();
    if (auto ok = server_->restart(); !ok) emit errorOccurred(QString::fromStdString(ok.error().message));
    conn_.reset();
    emit serverChanged(serverState(tr("redis-server restarted on port %1").arg(server_->port())));
  });
}

void RedisWorker::checkStatus() {
  guarded("Redis status", [&] {
    RedisStatus st;
    st.url = endpoint_ ? qs(endpoint_->toString()) : QString();
    RedisConnection* c = connection();
    if (!c) {
      st.error = connError_;
      emit statusReady(st);
      return;
    }
    auto status = serverStatus(*c);
    if (!status) {
      st.error = QString::fromStdString(status.error().message);
      conn_.reset();
      emit statusReady(st);
      return;
    }
    st.rttMs = static_cast<double>(status->rtt.count()) / 1000.0;
    st.version = qs(status->version);
    st.ok = true;
    emit statusReady(st);
  });
}

void RedisWorker::scanKeys(const QString& prefix, const QString& pattern, quint64 cursor, int count,
                           const QString& assume) {
  guarded("Key scan", [&] {
    auto assumptions = parseKeyAssumptions(assume.toStdString());
    if (!assumptions) return emit errorOccurred(QString::fromStdString(assumptions.error().message));
    RedisConnection* c = connection();
    if (!c) return emit errorOccurred(connError_);
    auto page = scanLimiterKeys(*c, prefix.toStdString(), pattern.toStdString(), cursor, count, 20);
    if (!page) return emit errorOccurred(QString::fromStdString(page.error().message));
    auto now = serverTimeUs(*c);
    if (!now) return emit errorOccurred(QString::fromStdString(now.error().message));
    KeyPageResult out;
    out.firstPage = cursor == 0;
    out.nextCursor = page->nextCursor;
    for (const KeyInfo& k : page->keys) out.keys.append(toInspected(k, readKey(k, now.value(), assumptions.value())));
    emit keysReady(out);
  });
}

void RedisWorker::deleteKeys(const QString& prefix, const QStringList& keys) {
  guarded("Delete", [&] {
    RedisConnection* c = connection();
    if (!c) return emit errorOccurred(connError_);
    std::vector<std::string> names;
    for (const QString& k : keys) names.push_back(k.toStdString());
    auto n = rl::deleteKeys(*c, prefix.toStdString(), names);
    if (!n) return emit errorOccurred(QString::fromStdString(n.error().message));
    emit keysDeleted(*n);
  });
}

void RedisWorker::deletePrefix(const QString& prefix) {
  guarded("Delete prefix", [&] {
    RedisConnection* c = connection();
    if (!c) return emit errorOccurred(connError_);
    auto all = scanAllLimiterKeys(*c, prefix.toStdString());
    if (!all) return emit errorOccurred(QString::fromStdString(all.error().message));
    std::vector<std::string> names;
    for (const KeyInfo& k : *all) names.push_back(k.name);
    auto n = rl::deleteKeys(*c, prefix.toStdString(), names);
    if (!n) return emit errorOccurred(QString::fromStdString(n.error().message));
    emit keysDeleted(*n);
  });
}

void RedisWorker::sampleTtl(const QStringList& baseKeys, qint64 atUs) {
  guarded("TTL sample", [&] {
    const QList<qint64> none(baseKeys.size(), -2);
    RedisConnection* c = connection();
    if (!c) return emit ttlSampled(atUs, none);  // an outage: the TTL chart has a gap
    QList<qint64> out;
    for (const QString& base : baseKeys) {
      // Window algorithms add a ":<window start>" suffix: take the longest PTTL under the base key.
      auto keys = scanAllLimiterKeys(*c, base.toStdString());
      if (!keys) {
        conn_.reset();
        return emit ttlSampled(atUs, none);
      }
      qint64 best = -2;
      for (const KeyInfo& k : *keys) best = std::max<qint64>(best, k.pttlMs);
      out.append(best);
    }
    emit ttlSampled(atUs, out);
  });
}

void RedisWorker::startFaults(const std::vector<FaultEvent>& schedule, qint64 originSteadyUs) {
  guarded("Fault schedule", [&] {
    if (!server_ || !server_->running()) {
      emit errorOccurred(tr("The fault schedule needs the window's managed redis-server (Start server in the "
                            "Connection panel); it is never done to a server given by URL"));
      emit faultsDone({});
      return;
    }
    faults_ = std::make_unique<FaultInjector>(*server_, schedule);
    faults_->start(originSteadyUs);
  });
}

void RedisWorker::stopFaults() {
  guarded("Fault schedule", [&] {
    if (!faults_) return;
    faults_->stop();
    QStringList steps;
    for (const FaultAction& a : faults_->actions())
      steps << (a.error.empty() ? tr("%1 at %2 ms").arg(QString::fromStdString(a.what)).arg(a.doneUs / 1000)
                                : tr("%1: %2").arg(QString::fromStdString(a.what), QString::fromStdString(a.error)));
    faults_.reset();
    conn_.reset();  // a kill or restart broke it
    emit faultsDone(steps);
  });
}

}  // namespace rl::ui
