#pragma once
// Internal to RedisConnection (redis_connection.cpp, redis_circuit.cpp):
// hiredis helpers shared by the blocking connect and the half-open probe.

#include <hiredis/hiredis.h>
#include <sys/time.h>

#include <chrono>
#include <string>
#include <vector>

#include "redis/redis_connection.hpp"

namespace rl::detail {

/// A positive duration as a timeval (at least 1 us).
timeval toTimeval(Micros d);
/// Text of a context error ("timed out (...)" for a read/write timeout).
std::string contextError(const redisContext* c);
/// True when the context's error is a socket timeout (EAGAIN on a blocking socket).
bool isTimeout(const redisContext* c);
/// The commands a fresh connection sends first: AUTH (if a password), SELECT (if db != 0), PING.
std::vector<std::vector<std::string>> handshakeCommands(const RedisEndpoint& ep);
/// A redis+sentinel:// endpoint: sets host:port to the master the Sentinels name now (no-op otherwise).
Result<void> resolveMasterOf(RedisEndpoint& ep);
/// Opens a blocking connection and runs the handshake (connect + command timeouts).
Result<redisContext*> openContext(const RedisEndpoint& ep);
/// Checks one handshake reply (i-th of handshakeCommands); PING must answer PONG.
Result<void> checkHandshakeReply(const RedisEndpoint& ep, const std::vector<std::string>& command, ReplyView reply);

}  // namespace rl::detail

namespace rl {

/// A half-open probe: a non-blocking connect with the handshake queued.
struct RedisConnection::Probe {
  redisContext* ctx = nullptr;                        ///< owned, non-blocking
  std::vector<std::vector<std::string>> commands;     ///< the handshake sent
  std::size_t replies = 0;                            ///< handshake replies checked so far
  bool written = false;                               ///< the whole handshake is sent
  std::chrono::steady_clock::time_point deadline;     ///< fails without PONG by then
  ~Probe() {
    if (ctx) redisFree(ctx);
  }
};

}  // namespace rl
