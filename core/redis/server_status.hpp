#pragma once
// ServerStatus: is a Redis server there, how fast does it answer, which
// version is it. One PING (timed) and one INFO server, for the window's
// connection panel and the CLI.

#include <string>
#include <string_view>

#include "common/result.hpp"
#include "limiter/time.hpp"

namespace rl {

class RedisConnection;

/// What a status check found.
struct ServerStatus {
  Micros rtt{0};        ///< the PING round trip
  std::string version;  ///< INFO server redis_version, "?" when absent
};

/// PINGs `connection` (timed) and reads its version. The PING's error when it does not answer.
Result<ServerStatus> serverStatus(RedisConnection& connection);

/// The value of `field` in an INFO reply ("redis_version" -> "7.0.15"), or empty.
std::string infoField(std::string_view info, std::string_view field);

}  // namespace rl
