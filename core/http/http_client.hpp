#pragma once
// HttpClient: a small blocking HTTP/1.1 client over POSIX sockets (no Qt), for
// the HTTP client store, the audit and tests. One keep-alive connection, one
// request at a time. It reads what real servers send (chunked, close-delimited,
// HTTP/1.0, interim 1xx: client_response.hpp) and https through OpenSSL with
// certificate checks (tls_session.hpp). A plain http socket blocks, bounded by
// its socket timeouts (one send and one recv per usual request). Redirects are answers, never followed.
// A hostile server is bounded: head 64 KiB, body 1 MiB, and the whole answer
// must arrive within the timeout (a server dripping bytes does not extend it).
// Not thread-safe: one per thread.

#include <string>
#include <string_view>

#include "common/result.hpp"
#include "http/http_message.hpp"
#include "http/tls_session.hpp"
#include "limiter/time.hpp"

namespace rl {

/// A storm's bound of each connect / send / receive on an HTTP target (`--http-timeout-ms`): default and range.
inline constexpr Micros kDefaultHttpTimeout{2'000'000};
inline constexpr std::int64_t kMinHttpTimeoutMs = 1;       ///< --http-timeout-ms at least
inline constexpr std::int64_t kMaxHttpTimeoutMs = 60'000;  ///< --http-timeout-ms at most

/// Where an HTTP server is: parsed from `http[s]://host:port[/path]`.
struct HttpTarget {
  std::string host = "127.0.0.1";  ///< name, IPv4, or IPv6 (without brackets)
  int port = 80;                   ///< 1..65535 (443 by default for https)
  std::string path = "/";          ///< request path of the target ("/" when none)
  bool tls = false;                ///< https

  /// `http[s]://host:port/path`.
  std::string toString() const;
};

/// Parses `http[s]://host[:port][/path]`; InvalidArgument names the bad part and what is allowed.
Result<HttpTarget> parseHttpUrl(std::string_view url);

/// A blocking keep-alive client; see the file comment.
class HttpClient {
 public:
  /// `sourceAddress` (an IPv4 address such as 127.0.0.7, or empty for the
  /// kernel's choice) is bound before connecting: per-IP limits see it as the client.
  /// `tls` says how an https target's certificate is checked.
  explicit HttpClient(HttpTarget target, Micros timeout = Micros{5'000'000}, std::string sourceAddress = {},
                      TlsOptions tls = {});
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  /// Sends `request` (Host is added) and reads the answer. A kept-alive
  /// connection the server has closed meanwhile is reopened once.
  /// Unavailable when the server cannot be reached or does not answer in time.
  Result<HttpResponse> send(const HttpRequest& request);
  /// Closes the connection (the next send reconnects).
  void close();
  /// Opens the connection now (a reachability check); Unavailable when it cannot.
  Result<void> open();
  /// The server this client talks to.
  const HttpTarget& target() const { return target_; }

 private:
  Result<void> connect();
  Result<void> writeAll(std::string_view bytes);
  Result<HttpResponse> readResponse(bool head, bool& gotBytes);
  long receive(char* buffer, std::size_t n, std::chrono::steady_clock::time_point deadline, std::string& error);
  /// Plain http: shortens the socket timeout `option` (SO_RCVTIMEO / SO_SNDTIMEO, now `inForce`) when
  /// the next blocking call would otherwise overrun `deadline`; false once the deadline has passed.
  bool bound(int option, Micros& inForce, std::chrono::steady_clock::time_point deadline);
  Error failure(const std::string& what) const;

  HttpTarget target_;     ///< the server
  std::string source_;    ///< local address bound before connect ("" = any)
  Micros timeout_;        ///< bound of each connect / write / read
  int fd_ = -1;           ///< the socket, -1 when closed
  std::string buffer_;    ///< received bytes not yet parsed
  HttpLimits limits_;     ///< response size limits
  bool peerClosed_ = false;  ///< the last attempt failed because the server closed the connection
  Micros receiveBound_{0};   ///< plain http: the socket's SO_RCVTIMEO in force
  Micros sendBound_{0};      ///< plain http: the socket's SO_SNDTIMEO in force
  TlsOptions tlsOptions_;    ///< certificate checks of an https target
  std::shared_ptr<ssl_ctx_st> tlsContext_;  ///< made at the first https connect
  std::unique_ptr<TlsSession> tls_;         ///< the open connection's TLS, null for http
};

}  // namespace rl
