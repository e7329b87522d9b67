#pragma once
// Finding the master behind a redis+sentinel:// endpoint, as Redis's client
// guide for Sentinel describes: ask each Sentinel in turn for
// `SENTINEL get-master-addr-by-name <service>`, take the first address one
// names; the connection then checks `ROLE` on it (redis_connection.cpp's
// handshake) and asks again on every reconnect, so a failover is followed
// the next time the old master's socket breaks (or it answers READONLY).
//
// A Sentinel is not trusted with more than a short wait and a small reply:
// each is given at most kSentinelWait to connect and kSentinelWait to answer,
// and its reply is read through a strict parser of the one shape the command
// has (an array of two short strings, nil or an error line) that stops after
// kMaxSentinelReply bytes. A Sentinel that stalls, trickles bytes, sends a
// huge or nested reply or closes early costs that wait, never a hang or a
// crash, and the next Sentinel is asked.

#include <string>
#include <utility>
#include <vector>

#include "common/result.hpp"
#include "redis/redis_url.hpp"

namespace rl {

/// The longest one Sentinel is waited for, to connect and again to answer (capped by the endpoint's timeouts).
inline constexpr Micros kSentinelWait{200'000};
/// The most bytes read from one Sentinel's reply.
inline constexpr std::size_t kMaxSentinelReply = 1024;

/// What one Sentinel said about a service: the master's address, or nothing (it does not know the name).
struct SentinelAnswer {
  bool known = false;  ///< false: the Sentinel answered nil (no such service)
  std::string host;    ///< the master's host
  int port = 0;        ///< the master's port
};

/// Asks the Sentinel at `host:port` `SENTINEL get-master-addr-by-name service`, waiting at most
/// `wait` to connect and `wait` for the reply. Unavailable (down, slow), Protocol (a reply of another
/// shape, too long, an error line), each naming the Sentinel.
Result<SentinelAnswer> askSentinel(const std::string& host, int port, const std::string& service, Micros wait);

/// The master's address for `ep` (ep.viaSentinel()): the first answer of ep.sentinels, asked in
/// order. Unavailable naming every Sentinel and what it said when none names a master.
Result<std::pair<std::string, int>> resolveSentinelMaster(const RedisEndpoint& ep);

/// A replica of `ep`'s master that its Sentinels see up (`SENTINEL replicas`, flags "slave"), with
/// the master's credentials and db: where a `limits`-style limiter with use_replicas=True reads.
Result<RedisEndpoint> sentinelReplica(const RedisEndpoint& ep);

/// Parses a get-master-addr-by-name reply held in `bytes`: nullopt while incomplete; Protocol
/// for any other shape (exposed for the fuzz target and tests).
std::optional<Result<SentinelAnswer>> parseSentinelReply(std::string_view bytes);

}  // namespace rl
