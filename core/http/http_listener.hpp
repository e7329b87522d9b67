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
//   new connection, no request   closed after `requestLineTimeout` (silently)
//   request line not complete    408 and close after `requestLineTimeout`
//   idle keep-alive connection   closed after `idleTimeout` (after a first answer)
//   Expect: 100-continue         100 Continue at once, then the body is read
//   more than `maxPerAddress`    503 and close at once (from one client address)
//   more than `maxConnections`   the connection idle longest is closed to make room
//                                (nginx reuses keep-alive connections so); with none
//                                idle, 503 and close at once
//   out of descriptors (EMFILE)  an idle connection is closed, accepting pauses with a
//                                back-off (acceptor.hpp)
// A listener reserved for a front (reserveFor(), a replica behind its front) knows the
// front's connections by the secret their requests carry: those are never counted per
// address nor closed to make room. Other connections are counted per address at their
// first request (a fresh front connection is not known yet at accept), and when full the
// oldest of them that is not busy is closed, whatever its phase: direct clients cannot
// take the front's share.
// Requests on one connection are answered in order (pipelining is allowed);
// a client that does not read its responses stops being read from.
//
// Speed: connections are raw sockets (fd_stream.hpp): an answer is sent at
// once (answers to pipelined requests decided at once go out in one send),
// and the deadline timer is re-armed only when a deadline comes earlier than
// the armed one, not twice per request.

#include <QPointer>
#include <QTimer>

#include <atomic>
#include <chrono>
#include <deque>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <string>
#include <unordered_map>

#include "common/result.hpp"
#include "http/http_message.hpp"
#include "http/lazy_deadline.hpp"
#include "limiter/time.hpp"


namespace rl {

/// Limits of one listener; see the file comment.
struct HttpServerLimits {
  HttpLimits message;                 ///< header and body size limits
  int maxConnections = 512;           ///< open connections at once; see the file comment
  int maxPerAddress = 64;             ///< open connections from one client address; 0 = no cap
  Micros requestLineTimeout{5'000'000};  ///< a connection must send a request line within this
  Micros headerTimeout{10'000'000};   ///< a started request must complete within this (408)
  Micros idleTimeout{60'000'000};     ///< an idle keep-alive connection is closed after this
  int maxPipelined = 1;               ///< requests of one connection handled at once (answers
                                      ///< still leave in order); 1 = the next is read after the answer
};

/// Counters of one listener, readable from any thread.
struct ListenerStats {
  std::atomic<int> open{0};               ///< connections open now
  std::atomic<std::int64_t> accepted{0};  ///< connections accepted so far
  std::atomic<std::int64_t> refused{0};   ///< connections refused (503): over a cap, none idle
  std::atomic<std::int64_t> refusedPerAddress{0};  ///< of which over maxPerAddress
  std::atomic<std::int64_t> reclaimed{0}; ///< idle connections closed to make room
  std::atomic<std::int64_t> outOfDescriptors{0};  ///< accept() calls failed: EMFILE, ENFILE, ENOMEM
  std::atomic<std::int64_t> malformed{0}; ///< requests answered 400/413/431/501/505
  std::atomic<std::int64_t> timedOut{0};  ///< requests answered 408
};

class HttpConnection;
class HttpListener;
class FdStream;
class Acceptor;
/// Answers one request; must call `connection.respond()` exactly once, now or later.
using HttpHandler = std::function<void(HttpConnection& connection, HttpRequest&& request)>;

/// One accepted connection; lives on the listener's thread. Deletes itself when closed.
class HttpConnection final : public QObject {
 public:
  /// Takes ownership of the accepted socket `fd` from `peer`; `counted`: `peer`'s count
  /// at the listener includes this connection already.
  HttpConnection(int fd, std::string peer, bool counted, HttpListener& listener);
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
  /// Not busy and not the front's: may be closed to make room (see the file comment).
  bool reclaimable(bool reserved) const;
  friend class HttpListener;

  HttpListener& listener_;          ///< owner
  FdStream* stream_;                ///< owned (child)
  const HttpServerLimits& limits_;  ///< the listener's limits
  const HttpHandler& handler_;      ///< the listener's handler
  ListenerStats& stats_;            ///< the listener's counters
  std::string peer_;                ///< peer address
  bool counted_;                    ///< counted in the listener's per-address table
  bool front_ = false;              ///< carries the front's secret (reserved listeners)
  bool awaitingLine_ = false;       ///< a first request started, its request line not complete
  std::list<HttpConnection*>::iterator entry_;  ///< in the listener's list; end() once reclaimed
  std::int64_t idleSince_ = 0;      ///< steady us when it last became idle (oldest is reclaimed first)
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
  /// Reserves this listener for a front whose requests carry X-RateLab-Front: `secret`
  /// (see the file comment). Call before listen().
  void reserveFor(std::string secret) { frontSecret_ = std::move(secret); }
  /// Addresses `exempt` accepts (a team's trusted proxies) are not capped per address.
  void exemptFromAddressCap(std::function<bool(const std::string&)> exempt) { exempt_ = std::move(exempt); }
  /// Counters (any thread).
  ListenerStats& stats() { return stats_; }

 private:
  friend class HttpConnection;
  void accept(int fd);
  void refuse(int fd, bool perAddress);
  /// Closes the reclaimable connection idle longest; false when there is none.
  bool reclaimOne();
  /// A connection opens / closes: the list and the per-address table.
  void opened(HttpConnection& c);
  void closed(HttpConnection& c);
  /// Counts `c` for its address at its first request (reserved listeners); false: over the cap.
  bool countLate(HttpConnection& c);
  void uncount(const std::string& peer);

  HttpServerLimits limits_;             ///< applied to every connection
  HttpHandler handler_;                 ///< answers requests
  ListenerStats stats_;                 ///< counters
  std::string frontSecret_;             ///< see reserveFor(); empty = a public listener
  std::function<bool(const std::string&)> exempt_;  ///< see exemptFromAddressCap()
  std::list<HttpConnection*> live_;     ///< open connections that may still be reclaimed
  std::unordered_map<std::string, int> perAddress_;  ///< counted connections per peer address
  std::unique_ptr<Acceptor> acceptor_;  ///< the listening socket (hands over raw descriptors)
};

/// Bytes of a 503 answer sent to a connection over the limit (shared with tests);
/// `perAddressCap` > 0: over that many from one address.
std::string refusedConnectionResponse(int perAddressCap = 0);

}  // namespace rl
