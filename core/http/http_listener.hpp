#pragma once
// HttpListener: a bounded HTTP/1.1 server on one address and port, on the Qt
// event loop of the thread that creates it (see EventThread). It owns its
// connections; a handler answers each parsed request through
// HttpConnection::respond(), at once or later (same thread).
//
// Robustness, all configurable (HttpServerLimits):
//   malformed request            400 and close   (Bad Request)
//   header section too large     431 and close
//   body too large               413 and close
//   headers/body not complete    408 and close after `headerTimeout`
//   new connection, no request   closed after `headerTimeout` (silently)
//   idle keep-alive connection   closed after `idleTimeout` (after a first answer)
//   Expect: 100-continue         100 Continue at once, then the body is read
//   more than `maxConnections`   503 and close at once
// Requests on one connection are answered in order (pipelining is allowed);
// a client that does not read its responses stops being read from.
//
// Speed: connections are raw sockets (fd_stream.hpp): an answer is sent at
// once (answers to pipelined requests decided at once go out in one send),
// and the deadline timer is re-armed only when a deadline comes earlier than
// the armed one, not twice per request.

#include <QPointer>
#include <QTcpServer>
#include <QTimer>

#include <atomic>
#include <chrono>
#include <deque>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "common/result.hpp"
#include "http/http_message.hpp"
#include "http/lazy_deadline.hpp"
#include "limiter/time.hpp"


namespace rl {

/// Limits of one listener; see the file comment.
struct HttpServerLimits {
  HttpLimits message;                 ///< header and body size limits
  int maxConnections = 512;           ///< open connections at once; more are refused with 503
  Micros headerTimeout{10'000'000};   ///< a started request must complete within this (408)
  Micros idleTimeout{60'000'000};     ///< an idle keep-alive connection is closed after this
  int maxPipelined = 1;               ///< requests of one connection handled at once (answers
                                      ///< still leave in order); 1 = the next is read after the answer
};

/// Counters of one listener, readable from any thread.
struct ListenerStats {
  std::atomic<int> open{0};               ///< connections open now
  std::atomic<std::int64_t> accepted{0};  ///< connections accepted so far
  std::atomic<std::int64_t> refused{0};   ///< connections refused over maxConnections
  std::atomic<std::int64_t> malformed{0}; ///< requests answered 400/413/431/501/505
  std::atomic<std::int64_t> timedOut{0};  ///< requests answered 408
};

class HttpConnection;
class FdStream;
/// Answers one request; must call `connection.respond()` exactly once, now or later.
using HttpHandler = std::function<void(HttpConnection& connection, HttpRequest&& request)>;

/// One accepted connection; lives on the listener's thread. Deletes itself when closed.
class HttpConnection final : public QObject {
 public:
  /// Takes ownership of the accepted socket `fd`.
  HttpConnection(int fd, const HttpServerLimits& limits, const HttpHandler& handler, ListenerStats& stats,
                 QObject* parent);
  ~HttpConnection() override;

  /// Sends the answer to the current request (keep-alive only if both sides want it).
  void respond(HttpResponse response);
  /// Sends an answer already on the wire format (a proxy relaying its upstream's bytes);
  /// `keepAlive` must match the Connection header inside `bytes`.
  void respondRaw(std::string_view bytes, bool keepAlive);
  /// The current request allows keep-alive and is not HEAD (a relayed answer fits it as is).
  bool relayable() const;
  /// The current request allows keep-alive.
  bool keepAliveRequested() const;
  /// The current request is HEAD (its answer carries no body).
  bool headRequest() const;

  /// With `maxPipelined` > 1 several requests are handled at once: a handler that answers
  /// later keeps currentRequest() and answers with respondTo() / respondRawTo(). Answers
  /// leave in request order, whatever order they are given in.
  std::uint64_t currentRequest() const;
  void respondTo(std::uint64_t request, HttpResponse response);
  void respondRawTo(std::uint64_t request, std::string_view bytes, bool keepAlive);
  bool keepAliveRequested(std::uint64_t request) const;
  bool headRequest(std::uint64_t request) const;
  /// The peer's address ("127.0.0.1").
  const std::string& peerAddress() const { return peer_; }
  /// Called (once) if this connection dies before answering the current request; cleared by
  /// the answer. A proxy frees its upstream connection with it.
  void onAbandoned(std::function<void()> f) { abandoned_ = std::move(f); }

 private:
  enum class Phase { Idle, Partial, Busy, Closing };
  /// One request handled and not yet sent its answer.
  struct Slot {
    std::uint64_t id;           ///< request number on this connection
    bool keepAlive;             ///< the request allows keep-alive
    bool head;                  ///< HEAD: no body in the answer
    bool done;                  ///< answered; `bytes` wait for the answers before it
    bool answerKeepAlive;       ///< the answer keeps the connection
    std::string bytes;          ///< the answer, when it must wait
  };
  Slot* slot(std::uint64_t id);
  void onReadable();
  void processBuffer();
  void fail(int status, const std::string& message);
  void onTimeout();
  void enter(Phase phase);
  void close();

  FdStream* stream_;                ///< owned (child)
  const HttpServerLimits& limits_;  ///< the listener's limits
  const HttpHandler& handler_;      ///< the listener's handler
  ListenerStats& stats_;            ///< the listener's counters
  std::string peer_;                ///< peer address
  std::string buffer_;              ///< received, not yet parsed bytes
  std::size_t maxBuffer_;           ///< most received bytes held (header + body limits + slack)
  LazyDeadline deadline_{[this] { onTimeout(); }};  ///< idle / header / closing; none while Busy
  Phase phase_ = Phase::Idle;       ///< what the connection waits for
  bool inLoop_ = false;             ///< processBuffer() is on the stack
  std::deque<Slot> slots_;          ///< requests handled, answers not sent, oldest first
  std::uint64_t nextRequest_ = 0;   ///< number of the next request
  bool answered_ = false;           ///< at least one request was answered (idle timeout applies)
  bool continued_ = false;          ///< 100 Continue sent for the request being received
  std::function<void()> abandoned_; ///< see onAbandoned()
};

/// A listening socket and its connections; see the file comment.
class HttpListener final : public QObject {
 public:
  HttpListener(HttpServerLimits limits, HttpHandler handler);
  ~HttpListener() override;

  /// Binds `address` ("127.0.0.1", "::1", "0.0.0.0") and `port` (0 = any free port).
  /// Returns the bound port; InvalidArgument for a bad address, Unavailable when binding fails.
  Result<int> listen(const std::string& address, int port);
  /// Counters (any thread).
  ListenerStats& stats() { return stats_; }

 private:
  void accept(int fd);

  HttpServerLimits limits_;             ///< applied to every connection
  HttpHandler handler_;                 ///< answers requests
  ListenerStats stats_;                 ///< counters
  std::unique_ptr<QTcpServer> server_;  ///< the listening socket (hands over raw descriptors)
};

/// Bytes of a 503 answer sent to a connection over the limit (shared with tests).
std::string refusedConnectionResponse();

}  // namespace rl
