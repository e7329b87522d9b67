#pragma once
// ManagedRedisServer: a private redis-server child process on a free loopback
// port in its own temp dir (`--save '' --appendonly no`), for tests and for
// the embedded default (ARCHITECTURE.md). It never touches :6379.
//
// Lifetime: the destructor stops the server and removes the temp dir. The
// server is an owned child (owned_child.hpp): it dies with its owner, and
// installServerSignalCleanup() makes SIGINT/SIGTERM stop it and remove its
// dir. A dir left by an owner killed with SIGKILL (the server dies with it,
// the dir cannot be removed then) is swept by the next start() once it is a
// minute old. start/stop/restart of one server: one thread at a time.

#include <optional>
#include <utility>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "process/owned_child.hpp"
#include "redis/redis_url.hpp"

namespace rl {

/// How to start a managed server.
struct ManagedServerOptions {
  std::string executable;          ///< redis-server path; empty = search PATH, then /usr/bin
  int port = 0;                    ///< 0 = pick a free loopback port
  Micros startTimeout{5'000'000};  ///< how long to wait for PING (default 5 s)
  std::vector<std::string> extraArgs;  ///< appended to the command line (e.g. "--requirepass", "pw")
  /// Not empty: run as a Sentinel, `redis-server <dir>/sentinel.conf --sentinel ...`, the file
  /// written once with these lines (a Sentinel rewrites it as it learns; a restart keeps it).
  std::vector<std::string> sentinelConfig;
};

/// A redis-server child process; see the file comment. Move-only.
class ManagedRedisServer {
 public:
  /// Starts redis-server and waits until it answers PING. Unavailable when no
  /// redis-server is installed ("redis-server not found in PATH or /usr/bin")
  /// or it does not come up (the error quotes the end of its log).
  static Result<ManagedRedisServer> start(const ManagedServerOptions& options = {});

  ManagedRedisServer(ManagedRedisServer&& o) noexcept;
  ManagedRedisServer& operator=(ManagedRedisServer&& o) noexcept;
  ManagedRedisServer(const ManagedRedisServer&) = delete;
  ManagedRedisServer& operator=(const ManagedRedisServer&) = delete;
  /// Stops the server (if running) and removes the temp dir.
  ~ManagedRedisServer();

  /// Stops the server (SIGTERM, then SIGKILL after 2 s); keeps port and dir for restart().
  Result<void> stop();
  /// Kills the server at once with SIGKILL (a crash: no shutdown); keeps port and dir for restart().
  Result<void> kill();
  /// Freezes the server with SIGSTOP: its kernel still accepts connections, nothing answers.
  Result<void> pause();
  /// Lets a paused server run again (SIGCONT).
  Result<void> resume();
  /// Starts the server again on the same port and dir (outage demos and tests).
  Result<void> restart();
  /// True while the child process runs.
  bool running() const { return pid_ > 0; }
  /// 127.0.0.1:<port> with default timeouts.
  RedisEndpoint endpoint() const;
  /// The loopback port.
  int port() const { return port_; }
  /// The child's pid, or 0 when stopped.
  int pid() const { return pid_; }
  /// The private temp dir (working dir and log of the server).
  const std::string& dir() const { return dir_; }

 private:
  ManagedRedisServer() = default;
  Result<void> spawn();
  void release();

  std::string executable_;      ///< resolved redis-server path
  std::vector<std::string> extraArgs_;  ///< from the options
  std::vector<std::string> sentinelConfig_;  ///< from the options: not empty = a Sentinel
  Micros startTimeout_{0};      ///< from the options
  std::string dir_;             ///< private temp dir, removed by the destructor
  int port_ = 0;                ///< loopback port
  int pid_ = 0;                 ///< child pid, 0 when stopped
};

/// Finds redis-server in PATH, then /usr/bin; nullopt when not installed.
std::optional<std::string> findRedisServer();

/// The embedded default: what to use when no --redis was given.
struct EmbeddedRedis {
  RedisEndpoint endpoint;                     ///< where to connect
  std::optional<ManagedRedisServer> server;   ///< set when a private server was started (owned)
  std::string description;                    ///< one line for the user: which Redis and why
};

/// Uses 127.0.0.1:<probePort> if it answers PING, else starts a managed
/// server. Unavailable when neither works: the message says why and what to do
/// (it does not promise a fallback: the CLI exits 3, the window says what it
/// still offers). Tests pass an unused probePort.
Result<EmbeddedRedis> resolveEmbeddedDefault(int probePort = 6379,
                                             const ManagedServerOptions& options = {});

}  // namespace rl
