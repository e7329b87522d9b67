#pragma once
// NginxFront: Debian's nginx as the cluster's front (`serve --front nginx`).
// It runs as a child process in a private temp dir with its own config, pid,
// error log and temp paths, in one process (`master_process off`). Started by
// root, it runs as an id no user or group has (61184-65519), which alone owns
// its 0700 dir and 0600 config (the config holds the front's secret, so no
// process running as nobody can read it). It dies with its owner
// (PR_SET_PDEATHSIG, also on SIGKILL), and an owner's SIGINT/SIGTERM stops it
// and removes the dir (owned_child.hpp). The config:
//   upstream   = the replicas, keep-alive connections, never marked down;
//   every request goes to exactly one replica (proxy_next_upstream off: a
//   decision is never retried on another replica);
//   X-Forwarded-For = $remote_addr (the client's own address, any client value
//   replaced) and X-RateLab-Front = the run's secret, so the replicas believe
//   exactly this front (client_identity.hpp).
// The destructor stops nginx (SIGQUIT, then SIGKILL after 2 s) and removes the dir.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "http/http_listener.hpp"

namespace rl {

/// How the nginx front is set up.
struct NginxFrontOptions {
  std::string executable;                  ///< nginx path; empty = PATH, then /usr/sbin/nginx
  std::string bindAddress = "127.0.0.1";   ///< listen address
  int port = 0;                            ///< 0 = a free port
  std::string upstreamAddress = "127.0.0.1";  ///< where the replicas listen
  std::vector<int> replicaPorts;           ///< the upstream servers
  std::string secret;                      ///< X-RateLab-Front value
  HttpServerLimits limits;                 ///< header size, body size, timeouts, connections
  Micros upstreamTimeout{10'000'000};      ///< proxy_read_timeout
  int keepalivePerReplica = 64;            ///< idle upstream connections kept (per replica)
  int workerConnections = 0;               ///< nginx's worker_connections (downstream + upstream);
                                           ///< 0 = 2 x limits.maxConnections + the keep-alive pool
};
/// The keep-alive pool of `o`: keepalivePerReplica x replicas.
inline int nginxPool(const NginxFrontOptions& o) {
  return o.keepalivePerReplica * static_cast<int>(o.replicaPorts.size());
}

/// The nginx executable, if installed (PATH, then /usr/sbin/nginx).
std::optional<std::string> findNginx();

/// A running nginx child; see the file comment.
class NginxFront {
 public:
  /// Writes the config, starts nginx and waits until it accepts connections.
  /// Unavailable when nginx is missing or does not start (quoting its error log).
  static Result<std::unique_ptr<NginxFront>> start(const NginxFrontOptions& options);
  ~NginxFront();
  NginxFront(const NginxFront&) = delete;
  NginxFront& operator=(const NginxFront&) = delete;

  /// The bound port.
  int port() const { return port_; }
  /// `http://<address>:<port>`.
  std::string url() const;
  /// The nginx process id.
  int pid() const { return pid_; }
  /// The private dir (nginx.conf, error.log, temp paths).
  const std::string& dir() const { return dir_; }

 private:
  NginxFront() = default;
  Result<void> launch(const std::string& executable, const NginxFrontOptions& options);

  std::string address_;  ///< listen address
  std::string dir_;      ///< private temp dir
  int port_ = 0;         ///< listen port
  int pid_ = 0;          ///< child pid, 0 when stopped
};

/// The nginx.conf text for `options` listening on `port`, with paths under `dir`.
std::string nginxConfig(const NginxFrontOptions& options, int port, const std::string& dir);

}  // namespace rl
