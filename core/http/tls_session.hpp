#pragma once
// TlsSession: OpenSSL over a connected non-blocking socket, for HttpClient's
// https targets. Certificates are checked by default: the chain against the
// system's CA store (or `caFile`), and the name against the URL's host (DNS
// name, or IP address for a literal). `insecure` skips both, as curl -k does.
// Every wait is bounded by the deadline the caller passes.

#include <chrono>
#include <memory>
#include <string>

#include "common/result.hpp"

struct ssl_st;
struct ssl_ctx_st;

namespace rl {

/// How an https target's certificate is checked.
struct TlsOptions {
  std::string caFile;     ///< PEM file of trusted CAs ("" = the system's store)
  bool insecure = false;  ///< accept any certificate and name (--insecure)
};

/// One TLS connection; see the file comment. Not thread-safe.
class TlsSession {
 public:
  using Deadline = std::chrono::steady_clock::time_point;

  /// A context for `options` (CA store loaded once); InvalidArgument for an unreadable caFile.
  static Result<std::shared_ptr<ssl_ctx_st>> makeContext(const TlsOptions& options);

  TlsSession(std::shared_ptr<ssl_ctx_st> context, bool verify);
  ~TlsSession();
  TlsSession(const TlsSession&) = delete;
  TlsSession& operator=(const TlsSession&) = delete;

  /// Handshakes on `fd` with server name `host`; Unavailable naming why (certificate, timeout).
  Result<void> handshake(int fd, const std::string& host, Deadline deadline);
  /// Reads up to `n` bytes: > 0 read, 0 the peer closed, -1 error (`error` says), -2 timed out.
  long read(char* buffer, std::size_t n, Deadline deadline, std::string& error);
  /// Writes all of `n` bytes; false with `error` on failure or timeout.
  bool write(const char* data, std::size_t n, Deadline deadline, std::string& error);

 private:
  std::shared_ptr<ssl_ctx_st> context_;  ///< shared by the connections of one client
  ssl_st* ssl_ = nullptr;                ///< this connection's state
  int fd_ = -1;                          ///< the socket (owned by the caller)
  bool verify_ = true;                   ///< check the certificate and its name
};

}  // namespace rl
