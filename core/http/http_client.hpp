#pragma once
// HttpClient: a small blocking HTTP/1.1 client over POSIX sockets (no Qt), for
// the HTTP client store and tests. One keep-alive connection, one request at
// a time, every wait bounded by the timeout. Not thread-safe: one per thread.

#include <string>
#include <string_view>

#include "common/result.hpp"
#include "http/http_message.hpp"
#include "limiter/time.hpp"

namespace rl {

/// Where an HTTP server is: parsed from `http://host:port[/path]`.
struct HttpTarget {
  std::string host = "127.0.0.1";  ///< name, IPv4, or IPv6 (without brackets)
  int port = 80;                   ///< 1..65535
  std::string path = "/";          ///< request path of the target ("/" when none)

  /// `http://host:port/path`.
  std::string toString() const;
};

/// Parses `http://host[:port][/path]`; InvalidArgument names the bad part and what is allowed.
Result<HttpTarget> parseHttpUrl(std::string_view url);

/// A blocking keep-alive client; see the file comment.
class HttpClient {
 public:
  /// `sourceAddress` (an IPv4 address such as 127.0.0.7, or empty for the
  /// kernel's choice) is bound before connecting: per-IP limits see it as the client.
  explicit HttpClient(HttpTarget target, Micros timeout = Micros{5'000'000}, std::string sourceAddress = {});
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
  Error failure(const std::string& what) const;

  HttpTarget target_;     ///< the server
  std::string source_;    ///< local address bound before connect ("" = any)
  Micros timeout_;        ///< bound of each connect / write / read
  int fd_ = -1;           ///< the socket, -1 when closed
  std::string buffer_;    ///< received bytes not yet parsed
  HttpLimits limits_;     ///< response size limits
  bool peerClosed_ = false;  ///< the last attempt failed because the server closed the connection
};

}  // namespace rl
