#include "redis/redis_url.hpp"

#include <charconv>
#include <optional>

namespace rl {

namespace {
constexpr std::string_view kScheme = "redis://";
constexpr std::string_view kClusterScheme = "redis+cluster://";

// Parses a whole decimal string into [lo, hi]; nullopt otherwise.
std::optional<int> parseIntIn(std::string_view s, int lo, int hi) {
  int v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc{} || p != s.data() + s.size() || v < lo || v > hi)
    return std::nullopt;
  return v;
}

Error badUrl(std::string_view url, const std::string& what) {
  return invalidArgument("bad Redis URL '" + std::string(url) + "': " + what +
                         " (expected redis://[user:password@]host:port[/db] or "
                         "redis+cluster://[user:password@]host:port[,host:port...])");
}

std::string hostPort(const std::string& host, int port) {
  const bool v6 = host.find(':') != std::string::npos;
  return (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

// `host:port` or `[v6]:port`.
Result<std::pair<std::string, int>> parseHostPort(std::string_view url, std::string_view hp) {
  std::string_view host, port;
  if (!hp.empty() && hp.front() == '[') {
    const auto close = hp.find(']');
    if (close == std::string_view::npos || close + 1 >= hp.size() || hp[close + 1] != ':')
      return badUrl(url, "an IPv6 host must be written [addr]:port");
    host = hp.substr(1, close - 1);
    port = hp.substr(close + 2);
  } else {
    const auto colon = hp.rfind(':');
    if (colon == std::string_view::npos) return badUrl(url, "the port is missing");
    host = hp.substr(0, colon);
    port = hp.substr(colon + 1);
  }
  if (host.empty()) return badUrl(url, "the host is empty");
  const auto p = parseIntIn(port, 1, 65535);
  if (!p) return badUrl(url, "port '" + std::string(port) + "' must be 1 to 65535");
  return std::pair<std::string, int>{std::string(host), *p};
}
}  // namespace

std::string RedisEndpoint::address() const { return hostPort(host, port); }

std::string RedisEndpoint::toString() const {
  const std::string user_ = user.empty() ? std::string() : user + "@";
  if (!cluster) return "redis://" + user_ + address() + "/" + std::to_string(db);
  std::string s = "redis+cluster://" + user_ + address();
  for (const auto& [h, p] : moreSeeds) s += "," + hostPort(h, p);
  return s;
}

RedisEndpoint RedisEndpoint::node(std::string h, int p) const {
  RedisEndpoint ep = *this;
  ep.host = std::move(h);
  ep.port = p;
  ep.db = 0;
  ep.cluster = false;
  ep.moreSeeds.clear();
  return ep;
}

Result<RedisEndpoint> parseRedisUrl(std::string_view url) {
  RedisEndpoint ep;
  std::string_view rest;
  if (url.starts_with(kScheme)) {
    rest = url.substr(kScheme.size());
  } else if (url.starts_with(kClusterScheme)) {
    rest = url.substr(kClusterScheme.size());
    ep.cluster = true;
  } else {
    return badUrl(url, "the scheme must be redis:// or redis+cluster://");
  }
  if (auto at = rest.rfind('@'); at != std::string_view::npos) {
    const std::string_view cred = rest.substr(0, at);
    rest = rest.substr(at + 1);
    const auto colon = cred.find(':');
    if (colon == std::string_view::npos)
      return badUrl(url, "credentials must be user:password or :password");
    ep.user = std::string(cred.substr(0, colon));
    ep.password = std::string(cred.substr(colon + 1));
    if (ep.password.empty()) return badUrl(url, "the password after ':' is empty");
  }
  std::string_view hosts = rest;
  if (auto slash = rest.find('/'); slash != std::string_view::npos) {
    hosts = rest.substr(0, slash);
    if (ep.cluster) return badUrl(url, "a cluster URL has no /db (Redis Cluster has database 0 only)");
    const auto db = parseIntIn(rest.substr(slash + 1), 0, 1'000'000);
    if (!db) return badUrl(url, "db '" + std::string(rest.substr(slash + 1)) + "' must be a number >= 0");
    ep.db = *db;
  }
  if (!ep.cluster && hosts.find(',') != std::string_view::npos)
    return badUrl(url, "several hosts need the redis+cluster:// scheme");
  bool first = true;
  while (true) {
    const auto comma = hosts.find(',');
    auto hp = parseHostPort(url, hosts.substr(0, comma));
    if (!hp) return hp.error();
    if (first) {
      ep.host = hp->first;
      ep.port = hp->second;
      first = false;
    } else {
      ep.moreSeeds.push_back(*hp);
    }
    if (comma == std::string_view::npos) break;
    hosts = hosts.substr(comma + 1);
  }
  return ep;
}

}  // namespace rl
