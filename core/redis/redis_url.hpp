#pragma once
// RedisEndpoint: where a Redis server (or a Redis Cluster) is and how to talk
// to it, parsed from `redis://[user:password@]host:port[/db]` or
// `redis+cluster://[user:password@]host:port[,host:port...]`.

#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"
#include "limiter/time.hpp"

namespace rl {

/// Address, credentials, database and timeouts of one Redis server.
struct RedisEndpoint {
  std::string host = "127.0.0.1";     ///< host name or IPv4/IPv6 address
  int port = 6379;                    ///< TCP port, 1..65535
  std::string user;                   ///< ACL user; empty = the default user
  std::string password;               ///< empty = no AUTH
  int db = 0;                         ///< database selected after connect, 0..
  Micros connectTimeout{100'000};     ///< TCP connect timeout (default 100 ms)
  Micros commandTimeout{100'000};     ///< socket read/write timeout per command (default 100 ms)
  bool cluster = false;               ///< a Redis Cluster: host:port is its first seed node
  std::vector<std::pair<std::string, int>> moreSeeds;  ///< cluster: further seed nodes (host, port)

  /// `redis://[user@]host:port/db` or `redis+cluster://[user@]host:port[,host:port...]`:
  /// never shows the password (safe for logs and errors).
  std::string toString() const;
  /// `host:port`, as error messages name the address.
  std::string address() const;
  /// The same credentials and timeouts at another node (a single server, db 0).
  RedisEndpoint node(std::string host, int port) const;
};

/// Parses `redis://[user:password@]host:port[/db]` (IPv6 hosts in brackets) or
/// `redis+cluster://[user:password@]host:port[,host:port...]` (no db: a cluster has db 0 only).
/// Errors are InvalidArgument naming the bad part (scheme, host, port, db) and what is allowed.
Result<RedisEndpoint> parseRedisUrl(std::string_view url);

}  // namespace rl
