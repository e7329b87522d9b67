#include "redis/redis_url.hpp"

#include <charconv>
#include <cstdlib>
#include <optional>

#include "common/file_read.hpp"

namespace rl {

namespace {
constexpr std::string_view kScheme = "redis://";
constexpr std::string_view kClusterScheme = "redis+cluster://";
constexpr std::string_view kSentinelScheme = "redis+sentinel://";
constexpr std::size_t kMaxServiceName = 128;
constexpr std::size_t kMaxSentinels = 16;

// Parses a whole decimal string into [lo, hi]; nullopt otherwise.
std::optional<int> parseIntIn(std::string_view s, int lo, int hi) {
  int v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc{} || p != s.data() + s.size() || v < lo || v > hi)
    return std::nullopt;
  return v;
}

Error badUrl(std::string_view url, const std::string& what) {
  return invalidArgument("bad Redis URL '" + redactRedisUrl(url) + "': " + what +
                         " (expected redis://[user:password@]host:port[/db], "
                         "redis+cluster://[user:password@]host:port[,host:port...] or "
                         "redis+sentinel://[user:password@]host:port[,host:port...]/service_name[/db])");
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

std::string hostPortText(std::string_view host, int port) {
  const bool v6 = host.find(':') != std::string_view::npos;
  return (v6 ? "[" + std::string(host) + "]" : std::string(host)) + ":" + std::to_string(port);
}

std::string RedisEndpoint::address() const { return hostPortText(host, port); }

std::string RedisEndpoint::toString() const {
  const std::string user_ = user.empty() ? std::string() : user + "@";
  if (viaSentinel()) {
    std::string s = "redis+sentinel://" + user_;
    for (std::size_t i = 0; i < sentinels.size(); ++i) s += (i ? "," : "") + hostPortText(sentinels[i].first, sentinels[i].second);
    return s + "/" + sentinelService + "/" + std::to_string(db);
  }
  if (!cluster) return "redis://" + user_ + address() + "/" + std::to_string(db);
  std::string s = "redis+cluster://" + user_ + address();
  for (const auto& [h, p] : moreSeeds) s += "," + hostPortText(h, p);
  return s;
}

RedisEndpoint RedisEndpoint::node(std::string h, int p) const {
  RedisEndpoint ep = *this;
  ep.host = std::move(h);
  ep.port = p;
  ep.db = 0;
  ep.cluster = false;
  ep.moreSeeds.clear();
  ep.sentinelService.clear();
  ep.sentinels.clear();
  return ep;
}

namespace {
// The credentials' span in `url`: everything between the scheme and the last
// '@', as parseRedisUrl reads it (a password may hold '/', ':' and '@'); npos if none.
std::pair<std::size_t, std::size_t> credentialSpan(std::string_view url) {
  const auto scheme = url.find("://");
  const std::size_t start = scheme == std::string_view::npos ? 0 : scheme + 3;
  const auto at = url.rfind('@');
  if (at == std::string_view::npos || at < start) return {std::string_view::npos, 0};
  return {start, at - start};
}

int hexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string gPasswordFile;  // set once at startup, before any thread reads it
bool gClusterAnyNode = false;  // likewise
}  // namespace

std::optional<std::string> percentDecode(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      out.push_back(s[i]);
      continue;
    }
    if (i + 2 >= s.size()) return std::nullopt;
    const int hi = hexValue(s[i + 1]), lo = hexValue(s[i + 2]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out.push_back(static_cast<char>(hi * 16 + lo));
    i += 2;
  }
  return out;
}

std::string redactRedisUrl(std::string_view url) {
  const auto [start, len] = credentialSpan(url);
  if (start == std::string_view::npos) return std::string(url);
  const std::string_view cred = url.substr(start, len);
  const auto colon = cred.find(':');
  if (colon == std::string_view::npos) return std::string(url);
  return std::string(url.substr(0, start + colon + 1)) + "***" + std::string(url.substr(start + len));
}

std::string withoutPassword(std::string_view url) {
  const auto [start, len] = credentialSpan(url);
  if (start == std::string_view::npos) return std::string(url);
  const std::string_view user = url.substr(start, len).substr(0, url.substr(start, len).find(':'));
  return std::string(url.substr(0, start)) + std::string(user) + (user.empty() ? "" : "@") +
         std::string(url.substr(start + len + 1));
}

Result<void> applyPasswordSources(RedisEndpoint& ep, const std::string& passwordFile) {
  if (!ep.password.empty()) return {};
  if (!passwordFile.empty()) {
    auto text = readWholeFile(passwordFile, "--redis-password-file");
    if (!text) return text.error();
    std::string pw = text->substr(0, text->find_first_of("\r\n"));
    if (pw.empty())
      return invalidArgument("--redis-password-file '" + passwordFile +
                             "' is empty: allowed a file whose first line is the password");
    ep.password = std::move(pw);
    return {};
  }
  if (const char* env = std::getenv("REDISCLI_AUTH"); env && *env) ep.password = env;
  return {};
}

void setRedisPasswordFile(std::string path) { gPasswordFile = std::move(path); }
const std::string& redisPasswordFile() { return gPasswordFile; }
void setClusterAnyNode(bool any) { gClusterAnyNode = any; }

Result<RedisEndpoint> resolveRedisUrl(std::string_view url) {
  auto ep = parseRedisUrl(url);
  if (!ep) return ep;
  if (auto ok = applyPasswordSources(*ep, gPasswordFile); !ok) return ok.error();
  ep->clusterAnyNode = gClusterAnyNode;
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
  } else if (url.starts_with(kSentinelScheme)) {
    rest = url.substr(kSentinelScheme.size());
  } else {
    return badUrl(url, "the scheme must be redis://, redis+cluster:// or redis+sentinel://");
  }
  const bool sentinel = url.starts_with(kSentinelScheme);
  if (auto at = rest.rfind('@'); at != std::string_view::npos) {
    const std::string_view cred = rest.substr(0, at);
    rest = rest.substr(at + 1);
    // user@ alone: an ACL user whose password comes from --redis-password-file or REDISCLI_AUTH.
    const auto colon = cred.find(':');
    if (colon == std::string_view::npos && cred.empty()) return badUrl(url, "the user before '@' is empty");
    auto user = percentDecode(cred.substr(0, colon));
    auto password = colon == std::string_view::npos ? std::optional<std::string>("-") : percentDecode(cred.substr(colon + 1));
    if (!user) return badUrl(url, "the user has a bad %-escape: allowed %XX with two hex digits");
    if (!password) return badUrl(url, "the password has a bad %-escape: allowed %XX with two hex digits");
    ep.user = std::move(*user);
    if (colon != std::string_view::npos) {
      ep.password = std::move(*password);
      if (ep.password.empty()) return badUrl(url, "the password after ':' is empty");
    }
  }
  std::string_view hosts = rest;
  if (sentinel) {
    const auto slash = rest.find('/');
    if (slash == std::string_view::npos || slash + 1 >= rest.size())
      return badUrl(url, "the service name is missing: a Sentinel URL ends in /service_name[/db]");
    hosts = rest.substr(0, slash);
    std::string_view path = rest.substr(slash + 1);
    const auto dbSlash = path.find('/');
    const std::string_view service = path.substr(0, dbSlash);
    if (service.empty() || service.size() > kMaxServiceName ||
        service.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") !=
            std::string_view::npos)
      return badUrl(url, "service name '" + std::string(service.substr(0, kMaxServiceName)) +
                             "' must be 1 to 128 of A-Z a-z 0-9 . _ -");
    ep.sentinelService = std::string(service);
    if (dbSlash != std::string_view::npos) {
      const auto db = parseIntIn(path.substr(dbSlash + 1), 0, 1'000'000);
      if (!db) return badUrl(url, "db '" + std::string(path.substr(dbSlash + 1)) + "' must be a number >= 0");
      ep.db = *db;
    }
  } else if (auto slash = rest.find('/'); slash != std::string_view::npos) {
    hosts = rest.substr(0, slash);
    if (ep.cluster) return badUrl(url, "a cluster URL has no /db (Redis Cluster has database 0 only)");
    const auto db = parseIntIn(rest.substr(slash + 1), 0, 1'000'000);
    if (!db) return badUrl(url, "db '" + std::string(rest.substr(slash + 1)) + "' must be a number >= 0");
    ep.db = *db;
  }
  if (!ep.cluster && !sentinel && hosts.find(',') != std::string_view::npos)
    return badUrl(url, "several hosts need the redis+cluster:// or redis+sentinel:// scheme");
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
    if (sentinel) ep.sentinels.push_back(*hp);
    if (comma == std::string_view::npos) break;
    hosts = hosts.substr(comma + 1);
  }
  if (sentinel) ep.moreSeeds.clear();
  if (ep.sentinels.size() > kMaxSentinels)
    return badUrl(url, std::to_string(ep.sentinels.size()) + " Sentinels: allowed at most " + std::to_string(kMaxSentinels));
  return ep;
}

}  // namespace rl
