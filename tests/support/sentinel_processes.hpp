#pragma once
// The processes of a running Sentinel set, found from outside with plain
// commands (INFO server, SENTINEL get-master-addr-by-name / replicas, CONFIG
// GET dir): every pid and temp dir, so a test can check they are gone after
// the set's owner (a ratelab-cli run, the window) ended.

#include <signal.h>

#include <cerrno>
#include <filesystem>
#include <string>
#include <vector>

#include "redis/redis_connection.hpp"

namespace rl::test {

/// Pids and dirs of a Sentinel set's data nodes and Sentinels.
struct SentinelProcesses {
  std::vector<int> pids;          ///< every process
  std::vector<std::string> dirs;  ///< every temp dir
  std::string error;              ///< why they could not all be read ("" = read)

  /// True once no pid runs and no dir exists.
  bool allGone() const {
    for (int pid : pids)
      if (::kill(pid, 0) == 0 || errno != ESRCH) return false;
    for (const auto& d : dirs)
      if (std::filesystem::exists(d)) return false;
    return true;
  }
};

namespace detail {
inline Result<RedisReply> askPort(int port, std::initializer_list<std::string_view> argv) {
  RedisEndpoint ep;
  ep.port = port;
  auto c = RedisConnection::connect(ep);
  if (!c) return c.error();
  return c->command(argv);
}
inline std::string infoField(std::string_view info, const std::string& field) {
  const auto p = info.find(field + ":");
  if (p == std::string_view::npos) return {};
  const auto start = p + field.size() + 1;
  return std::string(info.substr(start, info.find('\r', start) - start));
}
}  // namespace detail

/// The ports of the replicas the Sentinel on `sentinelPort` lists for `service` (SENTINEL replicas), in its order.
inline Result<std::vector<int>> sentinelReplicaPorts(int sentinelPort, std::string_view service = "ratelab") {
  auto replicas = detail::askPort(sentinelPort, {"SENTINEL", "replicas", service});
  if (!replicas) return replicas.error();
  std::vector<int> ports;
  for (std::size_t i = 0; i < replicas->size(); ++i)
    for (std::size_t f = 0; f + 1 < (*replicas)[i].size(); f += 2)
      if ((*replicas)[i][f].str() == "port") ports.push_back(static_cast<int>((*replicas)[i][f + 1].toInt().value_or(0)));
  return ports;
}

/// Reads the processes of the set whose Sentinels listen on `sentinelPorts` (service `service`).
inline SentinelProcesses sentinelProcesses(const std::vector<int>& sentinelPorts, std::string_view service = "ratelab") {
  SentinelProcesses out;
  auto fail = [&](const std::string& why) { out.error = why; return out; };
  std::vector<int> nodes;
  for (int port : sentinelPorts) {
    auto info = detail::askPort(port, {"INFO", "server"});
    if (!info) return fail(info.error().message);
    out.pids.push_back(std::stoi(detail::infoField(info->str(), "process_id")));
    const std::string conf = detail::infoField(info->str(), "config_file");
    out.dirs.push_back(conf.substr(0, conf.rfind('/')));
  }
  auto master = detail::askPort(sentinelPorts.front(), {"SENTINEL", "get-master-addr-by-name", service});
  auto replicas = sentinelReplicaPorts(sentinelPorts.front(), service);
  if (!master || !replicas) return fail("SENTINEL get-master-addr-by-name / replicas failed");
  nodes.push_back(static_cast<int>((*master)[1].toInt().value_or(0)));
  nodes.insert(nodes.end(), replicas->begin(), replicas->end());
  for (int port : nodes) {
    auto dir = detail::askPort(port, {"CONFIG", "GET", "dir"});
    auto info = detail::askPort(port, {"INFO", "server"});
    if (!dir || !info) return fail("node 127.0.0.1:" + std::to_string(port) + " did not answer");
    out.dirs.emplace_back((*dir)[1].str());
    out.pids.push_back(std::stoi(detail::infoField(info->str(), "process_id")));
  }
  return out;
}

}  // namespace rl::test
