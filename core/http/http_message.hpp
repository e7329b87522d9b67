#pragma once
// HTTP/1.1 messages (RFC 9112) and a parser with hard limits. Qt-free: the
// Qt Network servers and the blocking POSIX client share it.
//
// The parser is re-entrant over a growing buffer: call it with everything
// received so far; it answers NeedMore, Complete (with how many bytes the
// message took) or Failed (with the status to answer: 400, 413, 431, 501,
// 505). Request lines are checked as soon as their line ends, so garbage is
// refused at once instead of waiting for a header block that never comes.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rl {

/// One header field as received (name case preserved, value trimmed).
struct HttpHeader {
  std::string name;   ///< field name
  std::string value;  ///< field value without surrounding whitespace
};
using HttpHeaders = std::vector<HttpHeader>;

/// The value of the first header named `name` (case-insensitive), or nullptr.
const std::string* findHeader(const HttpHeaders& headers, std::string_view name);
/// Case-insensitive ASCII comparison.
bool equalsIgnoreCase(std::string_view a, std::string_view b);
/// `list` ("keep-alive, Upgrade") holds `token` (case-insensitive).
bool hasToken(std::string_view list, std::string_view token);
/// Some Connection field of `headers` holds `token` ("close", "keep-alive").
bool connectionHas(const HttpHeaders& headers, std::string_view token);

/// Size limits a parser enforces; beyond them a message fails.
struct HttpLimits {
  std::size_t maxHeaderBytes = 8 * 1024;  ///< request/status line plus header block
  std::size_t maxHeaderCount = 100;       ///< header fields per message
  std::size_t maxBodyBytes = 64 * 1024;   ///< Content-Length accepted
};

/// One request.
struct HttpRequest {
  std::string method;     ///< "GET", "POST", ...
  std::string target;     ///< request target as sent ("/ping?x=1")
  int minorVersion = 1;   ///< HTTP/1.<minorVersion>
  HttpHeaders headers;    ///< header fields in order
  std::string body;       ///< Content-Length bytes

  /// HTTP/1.1 keeps the connection unless `Connection: close`; 1.0 only with keep-alive.
  bool keepAlive() const;
  /// The request line, headers and body as bytes on the wire.
  std::string serialize() const;
};

/// One response. serialize() adds Content-Length and Connection.
struct HttpResponse {
  int status = 200;       ///< status code
  HttpHeaders headers;    ///< header fields (without Content-Length / Connection)
  std::string body;       ///< payload
  bool keepAlive = true;  ///< Connection: keep-alive or close
  std::optional<std::size_t> headLength;  ///< Content-Length of a HEAD answer (no body); unset = body size

  /// Adds one header field.
  HttpResponse& set(std::string name, std::string value);
  /// Status line, headers, Content-Length, Connection and (unless `headOnly`) the body.
  std::string serialize(bool headOnly = false) const;
};

/// The standard reason phrase of a status code ("Too Many Requests").
std::string_view httpReason(int status);

/// What a parse attempt found.
enum class ParseState {
  NeedMore,  ///< incomplete: read more bytes
  Complete,  ///< one message parsed; `consumed` bytes belong to it
  Failed,    ///< malformed or over a limit: answer `status` and close
};

/// The outcome of one parse attempt.
struct ParseOutcome {
  ParseState state = ParseState::NeedMore;  ///< see ParseState
  std::size_t consumed = 0;                 ///< bytes of the message (Complete only)
  int status = 0;                           ///< HTTP status for a failure (400, 413, 431, 501, 505)
  std::string error;                        ///< what was wrong, for the error body
  bool expectContinue = false;              ///< NeedMore: headers done, the client waits for 100 Continue
};

/// Parses one request from the start of `data` into `out`.
ParseOutcome parseRequest(std::string_view data, const HttpLimits& limits, HttpRequest& out);

/// A response's framing, as a proxy relaying its bytes needs it (no header or body copies).
struct ResponseFrame {
  int status = 0;                         ///< status code
  bool keepAlive = true;                  ///< the upstream keeps the connection
  std::size_t headerBegin = 0;            ///< offset of the header lines (after the status line)
  std::size_t headerEnd = 0;              ///< offset of the blank line's CRLF CRLF
  std::size_t bodyLength = 0;             ///< body bytes after the head (0 for HEAD, 1xx, 204, 304)
  std::optional<std::size_t> headLength;  ///< Content-Length of a HEAD answer
};

/// Checks one response from the start of `data` exactly as parseResponse() does (same
/// outcomes and errors) and fills only its framing.
ParseOutcome scanResponse(std::string_view data, const HttpLimits& limits, bool headRequest, ResponseFrame& out);

/// Checks the header lines of `block` (between the start line and the blank line, CRLF
/// separated) with the same rules and limits as every message here, and stores them in `out`.
ParseOutcome parseHeaderBlock(std::string_view block, const HttpLimits& limits, HttpHeaders& out);

/// Parses one response from the start of `data`; `headRequest` means no body follows.
/// Only Content-Length framing is accepted (chunked fails with 502): the front's strict
/// framing. A client reading any server uses parseClientResponse() (client_response.hpp).
ParseOutcome parseResponse(std::string_view data, const HttpLimits& limits, bool headRequest,
                           HttpResponse& out);

}  // namespace rl
