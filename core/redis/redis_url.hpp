#pragma once
// RedisEndpoint: where a Redis server (or a Redis Cluster, or the master a set
// of Sentinels names) is and how to talk to it, parsed from
// `redis://[user:password@]host:port[/db]`,
// `redis+cluster://[user:password@]host:port[,host:port...]` or
// `redis+sentinel://[user:password@]host:port[,host:port...]/service[/db]`
// (the form Python `limits` takes; the credentials and db are the master's,
// the Sentinels are asked without AUTH).
//
// Passwords. User and password are percent-decoded (`p%40ss` is `p@ss`). No
// message, log or saved setting ever holds a password: errors show the URL
// redacted (`redis://user:***@host:port`), RedisEndpoint::toString() leaves
// it out. A password need not sit in argv: when the URL has none,
// applyPasswordSources() reads `--redis-password-file FILE`, then the
// REDISCLI_AUTH environment variable (as redis-cli does).

#include <optional>
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
  bool clusterAnyNode = false;        ///< cluster: follow any node the cluster names (--cluster-any-node; cluster_trust.hpp)
  std::string sentinelService;        ///< redis+sentinel://: the master's name at the Sentinels; empty = no Sentinel
  std::vector<std::pair<std::string, int>> sentinels;  ///< redis+sentinel://: the Sentinels (host, port), asked in turn

  /// True for a redis+sentinel:// endpoint (host:port is then the master last resolved, or the first Sentinel).
  bool viaSentinel() const { return !sentinelService.empty(); }

  /// `redis://[user@]host:port/db`, `redis+cluster://[user@]host:port[,host:port...]` or
  /// `redis+sentinel://[user@]host:port[,...]/service/db`: never shows the password (safe for logs and errors).
  std::string toString() const;
  /// `host:port`, as error messages name the address.
  std::string address() const;
  /// The same credentials and timeouts at another node (a single server, db 0).
  RedisEndpoint node(std::string host, int port) const;
};

/// `host:port`, or `[v6]:port` for an IPv6 host: how every message names an address.
std::string hostPortText(std::string_view host, int port);

/// Parses `redis://[user:password@ | user@ | :password@]host:port[/db]` (IPv6 hosts in brackets) or
/// `redis+cluster://[credentials@]host:port[,host:port...]` (no db: a cluster has db 0 only) or
/// `redis+sentinel://[credentials@]host:port[,host:port...]/service[/db]` (service: 1 to 128 of
/// A-Z a-z 0-9 . _ -).
/// Errors are InvalidArgument naming the bad part (scheme, host, port, db) and
/// what is allowed; they quote the URL redacted, never the password.
Result<RedisEndpoint> parseRedisUrl(std::string_view url);

/// `url` with the password replaced by `***` (any text: also a malformed URL).
std::string redactRedisUrl(std::string_view url);

/// `url` with the password removed (`redis://user@host:port/db`): what may be saved.
std::string withoutPassword(std::string_view url);

/// Decodes %XX escapes; nullopt on a bad escape ('%' not followed by two hex digits).
std::optional<std::string> percentDecode(std::string_view s);

/// When `ep` has no password: the first line of `passwordFile` (if not empty;
/// read capped, see common/file_read.hpp), else $REDISCLI_AUTH (if set and not
/// empty). InvalidArgument names the file when it cannot be read or is empty.
Result<void> applyPasswordSources(RedisEndpoint& ep, const std::string& passwordFile);

/// The process-wide `--redis-password-file` (set once at startup by the app).
void setRedisPasswordFile(std::string path);
/// The process-wide password file ("" = none).
const std::string& redisPasswordFile();

/// The process-wide `--cluster-any-node` (set once at startup by the app):
/// every URL resolveRedisUrl reads gets clusterAnyNode.
void setClusterAnyNode(bool any);

/// parseRedisUrl + applyPasswordSources with the process-wide password file,
/// and the process-wide --cluster-any-node: what every user-given URL goes through.
Result<RedisEndpoint> resolveRedisUrl(std::string_view url);

}  // namespace rl
