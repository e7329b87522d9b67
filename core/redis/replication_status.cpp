#include "redis/replication_status.hpp"

#include <algorithm>
#include <optional>

#include "common/number_text.hpp"
#include "common/printable_text.hpp"
#include "redis/redis_connection.hpp"
#include "redis/server_status.hpp"

namespace rl {

namespace {
constexpr std::size_t kMaxHostBytes = 255;  ///< a DNS name's bound; longer ip= values are not hosts
constexpr std::size_t kMaxStateBytes = 32;  ///< Redis's states are short words (wait_bgsave, send_bulk)

// A whole decimal number in lo..hi, or nullopt.
std::optional<std::int64_t> wholeNumber(std::string_view text, std::int64_t lo, std::int64_t hi) {
  std::int64_t v = 0;
  if (!parseWholeText(text, v) || v < lo || v > hi) return std::nullopt;
  return v;
}

// "slave0".."slave99999": the name of a replica line (not slave_repl_offset, slave_priority, ...).
bool isReplicaLineName(std::string_view name) {
  if (name.size() <= 5 || name.substr(0, 5) != "slave") return false;
  return std::all_of(name.begin() + 5, name.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// The value of `key` in "ip=...,port=...,..." (the first one), or nullopt.
std::optional<std::string_view> pairValue(std::string_view pairs, std::string_view key) {
  for (std::size_t at = 0; at <= pairs.size();) {
    const std::size_t end = std::min(pairs.find(',', at), pairs.size());
    const std::string_view pair = pairs.substr(at, end - at);
    if (pair.size() > key.size() && pair.substr(0, key.size()) == key && pair[key.size()] == '=')
      return pair.substr(key.size() + 1);
    at = end + 1;
  }
  return std::nullopt;
}

// One slaveN line's value, or nullopt when a field is missing or out of bounds. lag= may be absent.
std::optional<ReplicaLag> parseReplicaLine(std::string_view pairs) {
  const auto ip = pairValue(pairs, "ip"), port = pairValue(pairs, "port"), state = pairValue(pairs, "state"),
             offset = pairValue(pairs, "offset"), lag = pairValue(pairs, "lag");
  if (!ip || !port || !state || !offset) return std::nullopt;
  if (ip->empty() || ip->size() > kMaxHostBytes || state->empty() || state->size() > kMaxStateBytes) return std::nullopt;
  if (!std::all_of(state->begin(), state->end(), [](char c) { return (c >= 'a' && c <= 'z') || c == '_'; }))
    return std::nullopt;
  const auto portNumber = wholeNumber(*port, 1, 65535);
  const auto offsetNumber = wholeNumber(*offset, 0, INT64_MAX);
  const auto lagNumber = lag ? wholeNumber(*lag, 0, INT64_MAX) : std::optional<std::int64_t>(-1);
  if (!portNumber || !offsetNumber || !lagNumber) return std::nullopt;
  return ReplicaLag{std::string(*ip), static_cast<int>(*portNumber), std::string(*state), *offsetNumber, *lagNumber};
}

std::string hostAndPort(const std::string& host, int port) {
  RedisEndpoint at;
  at.host = host;
  at.port = port;
  return printableText(at.address());
}

// How the node was found: the words in brackets after its address.
std::string howFound(const RedisEndpoint& node) {
  return node.viaSentinel() ? "named by the Sentinels for service " + printableText(node.sentinelService)
                            : std::string("the address given");
}

std::string replicaWords(const ReplicaLag& r, std::int64_t masterOffset) {
  std::string out = hostAndPort(r.host, r.port) + " " + r.state + ", lag ";
  out += r.lagSeconds < 0 ? std::string("?") : std::to_string(r.lagSeconds);
  out += " s, ";
  out += masterOffset < 0 ? std::string("?") : std::to_string(std::max<std::int64_t>(0, masterOffset - r.offset));
  return out + " bytes behind";
}

std::string plural(int n, const char* one, const char* many) { return std::to_string(n) + " " + (n == 1 ? one : many); }
}  // namespace

ReplicationStatus parseReplicationInfo(std::string_view info) {
  ReplicationStatus s;
  s.role = infoField(info, "role");
  s.masterHost = infoField(info, "master_host");
  s.masterPort = static_cast<int>(wholeNumber(infoField(info, "master_port"), 1, 65535).value_or(0));
  s.masterLinkStatus = infoField(info, "master_link_status");
  s.masterOffset = wholeNumber(infoField(info, "master_repl_offset"), 0, INT64_MAX).value_or(-1);
  for (std::size_t at = 0; at < info.size();) {
    const std::size_t end = std::min(info.find_first_of("\r\n", at), info.size());
    const std::string_view line = info.substr(at, end - at);
    at = end + 1;
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos || !isReplicaLineName(line.substr(0, colon))) continue;
    if (static_cast<int>(s.replicas.size()) + s.malformed >= kMaxReplicasRead) {
      ++s.notRead;
      continue;
    }
    if (auto r = parseReplicaLine(line.substr(colon + 1))) s.replicas.push_back(std::move(*r));
    else ++s.malformed;
  }
  return s;
}

Result<ReplicationStatus> readReplicationStatus(RedisConnection& connection) {
  auto info = connection.command({"INFO", "replication"});
  if (!info) return info.error();
  return parseReplicationInfo(info->str());
}

std::string replicationSentence(const RedisEndpoint& node, const ReplicationStatus& s) {
  const std::string self = printableText(node.address()) + " (" + howFound(node) + ")";
  if (s.role == "slave") {
    const std::string master = s.masterPort ? hostAndPort(s.masterHost, s.masterPort) : std::string("an unnamed master");
    const std::string link = s.masterLinkStatus.empty() ? std::string("?") : printableText(s.masterLinkStatus);
    return self + " is a replica of " + master + ", link " + link;
  }
  if (s.role != "master")
    return self + ": INFO replication names " + (s.role.empty() ? std::string("no role") : "role " + printableText(s.role));
  std::string out = "master " + self + "; ";
  if (s.replicas.empty()) out += "no replicas";
  for (std::size_t i = 0; i < s.replicas.size(); ++i)
    out += (i ? "; " : "replicas: ") + replicaWords(s.replicas[i], s.masterOffset);
  if (s.malformed) out += "; " + plural(s.malformed, "replica line", "replica lines") + " unreadable";
  if (s.notRead) out += "; " + plural(s.notRead, "more replica", "more replicas") + " not read";
  return out;
}

bool showsReplication(const RedisEndpoint& node, const ReplicationStatus& s) {
  if (node.cluster) return false;
  return node.viaSentinel() || s.role == "slave" || !s.replicas.empty() || s.malformed > 0 || s.notRead > 0;
}

std::string replicationLine(RedisConnection& connection) {
  auto status = readReplicationStatus(connection);
  if (!status || !showsReplication(connection.endpoint(), *status)) return {};
  return replicationSentence(connection.endpoint(), *status);
}

}  // namespace rl
