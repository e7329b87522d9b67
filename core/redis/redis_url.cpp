#include "redis/redis_url.hpp"

#include <charconv>
#include <optional>

namespace rl {

namespace {
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
                         " (expected redis://[user:password@]host:port[/db])");
}
}  // namespace

std::string RedisEndpoint::address() const {
  const bool v6 = host.find(':') != std::string::npos;
  return (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

std::string RedisEndpoint::toString() const {
  return "redis://" + (user.empty() ? std::string() : user + "@") + address() + "/" +
         std::to_string(db);
}

Result<RedisEndpoint> parseRedisUrl(std::string_view url) {
  constexpr std::string_view kScheme = "redis://";
  if (url.substr(0, kScheme.size()) != kScheme)
    return badUrl(url, "the scheme must be redis://");
  std::string_view rest = url.substr(kScheme.size());
  RedisEndpoint ep;
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
  std::string_view hostPort = rest;
  if (auto slash = rest.find('/'); slash != std::string_view::npos) {
    hostPort = rest.substr(0, slash);
    const auto db = parseIntIn(rest.substr(slash + 1), 0, 1'000'000);
    if (!db) return badUrl(url, "db '" + std::string(rest.substr(slash + 1)) +
                                    "' must be a number >= 0");
    ep.db = *db;
  }
  std::string_view host, port;
  if (!hostPort.empty() && hostPort.front() == '[') {
    const auto close = hostPort.find(']');
    if (close == std::string_view::npos || close + 1 >= hostPort.size() || hostPort[close + 1] != ':')
      return badUrl(url, "an IPv6 host must be written [addr]:port");
    host = hostPort.substr(1, close - 1);
    port = hostPort.substr(close + 2);
  } else {
    const auto colon = hostPort.rfind(':');
    if (colon == std::string_view::npos) return badUrl(url, "the port is missing");
    host = hostPort.substr(0, colon);
    port = hostPort.substr(colon + 1);
  }
  if (host.empty()) return badUrl(url, "the host is empty");
  const auto p = parseIntIn(port, 1, 65535);
  if (!p) return badUrl(url, "port '" + std::string(port) + "' must be 1 to 65535");
  ep.host = std::string(host);
  ep.port = *p;
  return ep;
}

}  // namespace rl
