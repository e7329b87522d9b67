#pragma once
// Plain values the Redis worker hands to the panels (copied across threads).

#include <QList>
#include <QMetaType>
#include <QString>
#include <QStringList>
#include <cstdint>

#include "limiter/quota.hpp"

namespace rl::ui {

/// What a status check found.
struct RedisStatus {
  bool ok = false;        ///< PING answered
  QString url;            ///< the server checked (password hidden)
  QString version;        ///< INFO server redis_version
  double rttMs = 0;       ///< PING round trip (a cluster: the slowest master's)
  int masters = 0;        ///< a Redis Cluster: how many masters serve its slots (0 = one server)
  bool starting = false;  ///< a private server or cluster is being started: `error` says which, not a failure
  QString error;          ///< why not ok
};

/// The managed redis-server's state.
struct ServerState {
  bool running = false;   ///< the child process runs
  int port = 0;           ///< its loopback port (0 when none was started)
  /// The URL the window talks to from now on, when this change switched it (redis://127.0.0.1:<port>,
  /// the private cluster's redis+cluster:// seeds, the embedded default); empty when it did not
  /// (a stop or restart of the managed server leaves the server talked to as it was).
  QString url;
  QString message;        ///< one line for the user
};

/// One key as the inspector shows it.
struct InspectedKey {
  QString name;                            ///< full key name
  QString type;                            ///< string, hash, zset
  std::int64_t pttlMs = -2;                ///< ms left, -1 no TTL, -2 gone
  QString value;                           ///< string keys
  QList<QPair<QString, QString>> entries;  ///< hash fields, or zset (member, score as time)
  std::int64_t size = 0;                   ///< zset: ZCARD, list: LLEN
  QString library;                         ///< the library that wrote it ("" = not recognised)
  QString algorithm;                       ///< its algorithm, in the library's words
  QString explained;                       ///< the key in one or two plain sentences
  QString needs;                           ///< what the key does not hold, as assumptions ("limit=N"); "" = nothing
  QStringList warnings;                    ///< what is wrong with it (no TTL), one sentence each
  QString runQuota;                        ///< RateLab's key of a storm this window ran: that run's quota, as read with
  std::int64_t scoreUnitUs = 0;            ///< zset: us per unit of its scores when they are times (1e6 s, 1e3 ms, 1 us); 0 = not times
  std::int64_t limit = -1;                 ///< -1 = unknown
  std::int64_t used = -1;                  ///< -1 = unknown
  std::int64_t resetMs = -1;               ///< until as good as new; -1 = unknown
  QString node;                            ///< cluster: host:port of the master holding it ("" on one server)
  int slot = -1;                           ///< cluster: its hash slot (-1 on one server)
};

/// A storm this window ran: RateLab's keys with its tag are read with its quota.
struct RunKeys {
  QString prefix;    ///< the storm's key prefix ("ratelab:")
  QString runTag;    ///< its fresh run tag (every client name of the run starts with it)
  rl::Quota quota;   ///< the quota its keys were last written under (quota changes and live tuning applied)
};

/// One page of a scan.
struct KeyPageResult {
  QList<InspectedKey> keys;   ///< keys on this page
  std::uint64_t nextCursor = 0;  ///< 0 = scan complete
  bool firstPage = true;      ///< replaces (true) or extends (false) the list
  QStringList masters;        ///< cluster: every master (host:port) in slot-map order; empty on one server
  QString replication;        ///< one server: its master and replicas' lag (core's replicationLine); "" = none shown
  QString prefix;             ///< the prefix scanned ("" = every key)
  QString pattern;            ///< the pattern within it
};

}  // namespace rl::ui

Q_DECLARE_METATYPE(rl::ui::RedisStatus)
Q_DECLARE_METATYPE(rl::ui::ServerState)
Q_DECLARE_METATYPE(rl::ui::KeyPageResult)
