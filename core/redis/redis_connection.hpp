#pragma once
// RedisConnection: one hiredis connection with RAII, timeouts, AUTH, SELECT,
// pipelining and reconnect-with-backoff. Errors are values.
//
// Threading: a connection belongs to ONE thread at a time (a redisContext is
// not thread-safe). Every worker opens its own; moving a connection to another
// thread between calls is fine, sharing it is not.
//
// Circuit breaker. After an I/O error or a timeout the socket is dropped and
// the circuit opens: calls fail fast with Unavailable for the backoff period
// (10 ms doubling to 250 ms per failed attempt; the first attempt after a plain
// I/O error, e.g. a restarted server, is made at once). Once the backoff is
// over, one half-open probe runs: a non-blocking connect that sends (AUTH,
// SELECT and) PING. The probe never blocks a call for more than 20 ms; calls
// while it waits fail fast, and it fails when no PONG came within the command
// timeout. Only a PONG closes the circuit: a stopped (SIGSTOP) server whose
// kernel still accepts connections does not reset the backoff. So a paused
// server costs one call the command timeout; every other call fails at once.
// The failure count and backoff schedule are store/circuit_breaker.hpp's, as
// an HTTP target's breaker's are.
//
// Error replies map to codes by their first word (redisReplyError): OOM ->
// OutOfMemory, READONLY -> ReadOnly, LOADING/BUSY/MASTERDOWN/TRYAGAIN/
// CLUSTERDOWN -> Unavailable, anything else (script errors, NOSCRIPT,
// WRONGTYPE, ...) -> Protocol. A command timeout is Timeout; a lost
// connection or an open circuit is Unavailable.
//
// Sentinel (redis+sentinel:// endpoint): connect() and every reconnect first
// ask the Sentinels where the master is (sentinel/sentinel_discovery.hpp),
// then check ROLE there; endpoint() is the master last resolved. A READONLY
// reply (the master was demoted) drops the socket, so the next call asks again.
// A `+switch-master` the Sentinels announce on their Pub/Sub
// (sentinel/sentinel_switches.hpp, one feed shared by the process) moves the
// connection at its next call to the announced master, ROLE checked. And
// while connected the Sentinels are asked again at most every
// kSentinelRecheck, the fallback for an announcement missed: a SENTINEL
// FAILOVER leaves the old master up and writable until Sentinel demotes it,
// and a connection that never broke would go on writing there.
//
// The first connect() sets SIGPIPE to SIG_IGN if it is still at its default:
// a write to a socket the server reset must be an error value, not a kill.

#include <chrono>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"
#include "redis/redis_url.hpp"
#include "store/circuit_breaker.hpp"

struct redisContext;
struct redisReply;

namespace rl {

class SentinelSwitches;

/// Sentinel endpoints: how often a connected connection asks the Sentinels whether the master moved.
inline constexpr std::chrono::milliseconds kSentinelRecheck{500};

/// A non-owning view of one reply (or one element of an array reply).
class ReplyView {
 public:
  explicit ReplyView(const redisReply* r = nullptr) : r_(r) {}
  bool isNil() const;      ///< nil bulk or nil array (also: no reply)
  bool isString() const;   ///< bulk or status string
  bool isInteger() const;  ///< integer reply
  bool isArray() const;    ///< array reply
  bool isError() const;    ///< error reply
  std::string_view str() const;  ///< string, status or error text ("" otherwise)
  std::int64_t integer() const;  ///< integer value (0 otherwise)
  std::size_t size() const;      ///< array length (0 otherwise)
  ReplyView operator[](std::size_t i) const;  ///< array element i (nil view if out of range)
  /// The value as an integer: an integer reply or a decimal string; nullopt otherwise.
  std::optional<std::int64_t> toInt() const;
  /// One-line rendering for error messages ("(integer) 3", "(nil)", ...).
  std::string describe() const;

 protected:
  const redisReply* r_;  ///< not owned
};

/// An owned reply; frees it on destruction. Move-only.
class RedisReply : public ReplyView {
 public:
  explicit RedisReply(redisReply* r = nullptr);
  RedisReply(RedisReply&& o) noexcept;
  RedisReply& operator=(RedisReply&& o) noexcept;
  RedisReply(const RedisReply&) = delete;
  RedisReply& operator=(const RedisReply&) = delete;
  ~RedisReply();
};

/// The Error for a Redis error reply `text` ("OOM command not allowed ...");
/// `context` (e.g. "EVALSHA") is prefixed to the message when not empty.
Error redisReplyError(std::string_view text, std::string_view context = {});

/// One connection to one Redis server; see the file comment for threading.
class RedisConnection {
 public:
  /// Connects (connect timeout), sets the command timeout, AUTHs when a
  /// password is set, SELECTs the db. Unavailable: "cannot connect to
  /// 127.0.0.1:6390: Connection refused"; Protocol: AUTH/SELECT refused.
  static Result<RedisConnection> connect(const RedisEndpoint& endpoint);

  RedisConnection(RedisConnection&& o) noexcept;
  RedisConnection& operator=(RedisConnection&& o) noexcept;
  RedisConnection(const RedisConnection&) = delete;
  RedisConnection& operator=(const RedisConnection&) = delete;
  ~RedisConnection();

  /// Sends one command and waits for its reply. A Redis error reply becomes
  /// redisReplyError(text); a timeout Timeout; an I/O error or open circuit Unavailable.
  Result<RedisReply> command(std::initializer_list<std::string_view> argv);
  /// Same, for an argument vector built at run time.
  Result<RedisReply> command(std::span<const std::string_view> argv);
  /// Same, for owned strings.
  Result<RedisReply> command(const std::vector<std::string>& argv);

  /// Pipelining: queues a command (nothing is sent until getReply()).
  Result<void> append(std::initializer_list<std::string_view> argv);
  /// Queues a command built at run time.
  Result<void> append(std::span<const std::string_view> argv);
  /// Sends what is queued (once) and reads the next reply, in order. Error
  /// replies are returned as replies (check isError()): one failed command
  /// must not desynchronise the rest of the pipeline.
  Result<RedisReply> getReply();

  // Non-blocking use: one thread drives many connections with poll() on fd().
  // append() queues, flush() sends, tryGetReply() never waits for the server.
  // getReply() and command() may follow once pending() is back to 0.

  /// The socket for poll()/select(); -1 while not connected.
  int fd() const;
  /// Sends every queued command now (redisBufferWrite until the output
  /// buffer is empty). Unavailable on an I/O error or when the send times out.
  Result<void> flush();
  /// The next reply if one is complete: first from the bytes already read,
  /// else after one read of what the socket holds (MSG_DONTWAIT, never waits).
  /// nullopt: no complete reply yet. Error replies are replies (isError());
  /// the server closing the socket or an I/O error is Unavailable.
  Result<std::optional<RedisReply>> tryGetReply();
  /// A subscribed connection (SUBSCRIBE, PSUBSCRIBE): the next pushed message if one is
  /// complete, as tryGetReply but with no command queued for it (never waits).
  Result<std::optional<RedisReply>> tryGetMessage();
  /// Commands queued by append() whose replies were not read yet.
  int pending() const { return pending_; }
  /// Bytes read from the socket and not yet parsed into a reply (a subscriber bounds what a server may pile up).
  std::size_t bufferedBytes() const;

  /// Drops the socket and connects again now, blocking, PING included (ignores the backoff).
  Result<void> reconnect();
  /// True while the circuit is open or half-open (calls fail fast until a probe gets PONG).
  bool circuitOpen() const { return circuit_.open(); }
  /// True while the socket is usable (no I/O error seen).
  bool connected() const;
  /// Successful reconnects since connect().
  std::int64_t reconnects() const { return reconnects_; }
  /// The endpoint this connection talks to.
  const RedisEndpoint& endpoint() const { return endpoint_; }

  /// Internal: a half-open probe in flight (defined in redis_connection_detail.hpp).
  struct Probe;

 private:
  RedisConnection(redisContext* ctx, RedisEndpoint endpoint);
  Result<void> ensureConnected();
  Error ioError(std::string_view what);
  void openCircuit(std::string why);
  void dropForSentinel(const std::string& why);
  Result<void> runProbe(Micros wait);
  Result<std::optional<RedisReply>> replyFromReader();
  void free();

  redisContext* ctx_ = nullptr;  ///< owned; null or broken after an I/O error
  RedisEndpoint endpoint_;       ///< where to (re)connect
  std::int64_t reconnects_ = 0;  ///< successful reconnects
  int pending_ = 0;              ///< replies queued by append() and not yet read
  /// Failed attempts, backoff (10 ms doubling to 250 ms: probes are cheap, so recover quickly) and why.
  CircuitBreaker circuit_{std::chrono::milliseconds{10}, std::chrono::milliseconds{250}};
  std::unique_ptr<Probe> probe_;  ///< the half-open probe, while one runs
  std::chrono::steady_clock::time_point nextSentinelCheck_{};  ///< Sentinel: next time to ask where the master is
  std::shared_ptr<SentinelSwitches> switches_;                  ///< Sentinel: the +switch-master feed
  std::uint64_t switchesSeen_ = 0;                              ///< Sentinel: the feed's count last acted on
  std::optional<std::pair<std::string, int>> announced_;        ///< Sentinel: where the next reconnect goes first
};

}  // namespace rl
