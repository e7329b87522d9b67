#pragma once
// RedisWorker: every Redis call the window makes outside a storm (status,
// managed server, key inspector, TTL sampling), on its own thread.
//
// Threading: the controller moves it to a QThread and calls its slots with
// queued connections (or QMetaObject::invokeMethod); results come back as
// signals. It owns one RedisLink (one connection to a server, or one per
// master of a Redis Cluster; a redisContext belongs to one thread), the
// managed redis-server, the private Redis Cluster (the URL word `cluster`) and
// the private Sentinel set (the URL word `sentinel`),
// which it starts on its own long-lived thread and which are stopped (their
// dirs removed) when it is destroyed. Every slot catches and reports through
// errorOccurred; nothing throws out.

#include <QObject>
#include <QString>
#include <QStringList>
#include <memory>
#include <optional>

#include "ui/workers/redis_types.hpp"

namespace rl {
class RedisLink;
class ManagedRedisServer;
class ManagedRedisCluster;
class ManagedRedisSentinel;
struct RedisEndpoint;
}  // namespace rl

namespace rl::ui {

/// Redis work off the GUI thread; see the file comment.
class RedisWorker : public QObject {
  Q_OBJECT
 public:
  RedisWorker();
  ~RedisWorker() override;

 public slots:
  /// Talks to `url` from now on (redis://..., redis+cluster://..., or the word
  /// `cluster`: startCluster()); reports the status.
  void setUrl(const QString& url);
  /// Starts a private Redis Cluster (3 masters + 3 replicas; reused when one
  /// runs) and talks to it: serverChanged carries its redis+cluster:// seed URL.
  void startCluster();
  /// Starts a private Sentinel set (1 master, 2 replicas, 3 Sentinels; reused when one
  /// runs) and talks to it: serverChanged carries its redis+sentinel:// URL.
  void startSentinel();
  /// Starts a private redis-server on a free loopback port (or restarts the stopped one, or
  /// keeps the running one) and talks to it: serverChanged carries its URL.
  void startServer();
  /// The embedded default: a Redis on 127.0.0.1:`probePort` if one answers, else a private server.
  void useEmbeddedDefault(int probePort);
  /// The Redis the window used last (`savedUrl`) when it answers; else, saying so, the embedded default.
  void useSavedOrEmbedded(const QString& savedUrl, int probePort);
  /// Stops the managed server (keeps its port for restartServer); the server talked to stays.
  void stopServer();
  /// Restarts the managed server on the same port (an outage's end); the server talked to stays.
  void restartServer();
  /// PING (timed) and INFO server: emits statusReady.
  void checkStatus();
  /// One SCAN page of keys matching prefix + pattern ("" prefix: every key), each read by the
  /// library that wrote it (`assume`: what keys do not hold, e.g. "rate=10/s burst=20"; RateLab's
  /// keys of one of `runs` are read with that run's quota instead): emits keysReady.
  /// On a cluster: every master scanned to the end in one page, each key with its node and slot.
  void scanKeys(const QString& prefix, const QString& pattern, quint64 cursor, int count, const QString& assume = {},
                const QList<rl::ui::RunKeys>& runs = {});
  /// Deletes keys (all must start with prefix): emits keysDeleted.
  void deleteKeys(const QString& prefix, const QStringList& keys);
  /// Deletes every key under prefix (never outside it): emits keysDeleted.
  void deletePrefix(const QString& prefix);
  /// Longest PTTL of the keys under each base key (on a cluster, on the master of its slot),
  /// on the server talked to or, with `url`, on that one (a failover run's own cluster):
  /// emits ttlSampled (same order, -2 = none).
  void sampleTtl(const QStringList& baseKeys, qint64 atUs, const QString& url = {});
  /// The managed server when it runs and the window talks to it (not a cluster), else
  /// null: lent to a storm's fault schedule (the controller refuses to stop or
  /// restart it until the storm is over).
  rl::ManagedRedisServer* managedServer();
  /// A fault schedule ended: the window's own connection is dropped (a kill or
  /// restart broke it) and made again on the next command.
  void faultsEnded();

 signals:
  /// A status check finished.
  void statusReady(const rl::ui::RedisStatus& status);
  /// The managed server started, stopped or restarted.
  void serverChanged(const rl::ui::ServerState& state);
  /// A scan page arrived.
  void keysReady(const rl::ui::KeyPageResult& page);
  /// Keys were deleted.
  void keysDeleted(qint64 count);
  /// PTTLs sampled at `atUs` (us since the storm started).
  void ttlSampled(qint64 atUs, const QList<qint64>& pttlMs);
  /// Something failed: one sentence for the user.
  void errorOccurred(const QString& message);

 private:
  template <class Fn>
  void guarded(const char* what, Fn&& fn);
  RedisLink* link();
  RedisLink* ttlLink(const QString& url);
  ServerState serverState(const QString& message) const;
  void useManagedServer(const QString& message);
  void useEndpoint(const RedisEndpoint& endpoint);
  template <class Set>
  void startPrivate(std::unique_ptr<Set>& owned, const QString& word, const QString& what);

  std::unique_ptr<RedisEndpoint> endpoint_;       ///< where to talk; null until set
  std::unique_ptr<RedisLink> link_;               ///< lazily connected (server or cluster)
  std::unique_ptr<RedisLink> ttlLink_;            ///< TTL samples on another server (a failover run's cluster)
  QString ttlUrl_;                                ///< where ttlLink_ goes
  std::unique_ptr<ManagedRedisServer> server_;    ///< the private server, if started
  std::unique_ptr<ManagedRedisCluster> cluster_;  ///< the private cluster, if started
  std::unique_ptr<ManagedRedisSentinel> sentinel_;  ///< the private Sentinel set, if started
  QString connError_;                             ///< why the last connect failed
};

}  // namespace rl::ui
