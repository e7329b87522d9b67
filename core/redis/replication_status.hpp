#pragma once
// ReplicationStatus: which node is the master and how far behind its replicas
// are, read from one `INFO replication` reply, and the one sentence that says
// it. `ratelab-cli keys` and the window's key inspector print that sentence
// from replicationSentence(), so they cannot disagree.
//
// On a master, each `slaveN:ip=...,port=...,state=...,offset=...,lag=...`
// line is one replica; bytes behind = master_repl_offset - its offset. On a
// replica (role:slave), master_host, master_port and master_link_status say
// whose replica it is. INFO is remote input: a slaveN line with a field
// missing or out of bounds is skipped and counted, never trusted, and at most
// kMaxReplicasRead replicas are read.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"
#include "redis/redis_url.hpp"

namespace rl {

class RedisConnection;

/// The most slaveN lines read from one reply; further ones are counted in ReplicationStatus::notRead.
inline constexpr int kMaxReplicasRead = 64;

/// One replica as its master lists it (`slaveN:` in INFO replication).
struct ReplicaLag {
  std::string host;             ///< ip=
  int port = 0;                 ///< port=, 1..65535
  std::string state;            ///< state= (online, wait_bgsave, send_bulk, ...)
  std::int64_t offset = 0;      ///< offset=: the replication offset it acknowledged
  std::int64_t lagSeconds = -1; ///< lag=: seconds since its last acknowledgement; -1 = not given
};

/// What one `INFO replication` reply says; see the file comment.
struct ReplicationStatus {
  std::string role;                 ///< "master", "slave", or "" when the reply names no role
  std::string masterHost;           ///< role slave: master_host
  int masterPort = 0;               ///< role slave: master_port (0 = not given)
  std::string masterLinkStatus;     ///< role slave: master_link_status (up, down)
  std::vector<ReplicaLag> replicas; ///< role master: the slaveN lines read, in order
  std::int64_t masterOffset = -1;   ///< master_repl_offset; -1 = not given
  int malformed = 0;                ///< slaveN lines skipped: a field missing or out of bounds
  int notRead = 0;                  ///< well-formed or not, slaveN lines past kMaxReplicasRead
};

/// Reads an `INFO replication` reply (any text: fields it does not find stay empty or -1).
ReplicationStatus parseReplicationInfo(std::string_view info);

/// Sends `INFO replication` on `connection` and reads it. The command's error when it fails.
Result<ReplicationStatus> readReplicationStatus(RedisConnection& connection);

/// The one line naming the node at `node` (a connection's endpoint: for a Sentinel target, the
/// master the Sentinels named) and its replicas, e.g. "master 127.0.0.1:40123 (named by the
/// Sentinels for service ratelab); replicas: 127.0.0.1:40125 online, lag 0 s, 0 bytes behind".
/// Remote text in it is made printable.
std::string replicationSentence(const RedisEndpoint& node, const ReplicationStatus& status);

/// INFO replication on `connection`, as replicationSentence() of its endpoint when showsReplication(), else ""
/// (also when INFO fails): the line `ratelab-cli keys` and the window's inspector show above the keys.
std::string replicationLine(RedisConnection& connection);

/// True when the keys listing shows the sentence: a Sentinel target, a master with replicas, or a
/// replica. A lone server (and a Cluster, which has its own per-master line) shows none.
bool showsReplication(const RedisEndpoint& node, const ReplicationStatus& status);

}  // namespace rl
