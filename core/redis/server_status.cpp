#include "redis/server_status.hpp"

#include <chrono>

#include "redis/redis_connection.hpp"

namespace rl {

std::string infoField(std::string_view info, std::string_view field) {
  for (std::size_t at = 0; at < info.size();) {
    const std::size_t end = std::min(info.find_first_of("\r\n", at), info.size());
    const std::string_view line = info.substr(at, end - at);
    if (line.size() > field.size() && line.substr(0, field.size()) == field && line[field.size()] == ':')
      return std::string(line.substr(field.size() + 1));
    at = end + 1;
  }
  return {};
}

Result<ServerStatus> serverStatus(RedisConnection& connection) {
  const auto t0 = std::chrono::steady_clock::now();
  auto pong = connection.command({"PING"});
  const auto t1 = std::chrono::steady_clock::now();
  if (!pong) return pong.error();
  ServerStatus s;
  s.rtt = std::chrono::duration_cast<Micros>(t1 - t0);
  auto info = connection.command({"INFO", "server"});
  s.version = info ? infoField(info->str(), "redis_version") : std::string();
  if (s.version.empty()) s.version = "?";
  return s;
}

}  // namespace rl
