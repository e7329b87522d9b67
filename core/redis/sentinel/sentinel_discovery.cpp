#include "redis/sentinel/sentinel_discovery.hpp"

#include <hiredis/hiredis.h>
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstring>
#include <optional>

#include "redis/redis_connection.hpp"
#include "redis/redis_connection_detail.hpp"

namespace rl {

namespace {
using Clock = std::chrono::steady_clock;
constexpr std::size_t kMaxLine = 64;     // "*2", "$9", "-ERR ..." (an error line is cut, not waited for)
constexpr std::size_t kMaxHostLen = 255;

Error badReply(const std::string& why) { return protocolError("the Sentinel's reply " + why); }

// The text of the line at `pos` (without CRLF) and where the next begins; nullopt while incomplete.
std::optional<Result<std::pair<std::string_view, std::size_t>>> lineAt(std::string_view b, std::size_t pos) {
  const auto end = b.find("\r\n", pos);
  if (end == std::string_view::npos) {
    if (b.size() - pos > kMaxLine) return Result<std::pair<std::string_view, std::size_t>>(badReply("has a line over 64 bytes"));
    return std::nullopt;
  }
  return Result<std::pair<std::string_view, std::size_t>>(std::pair{b.substr(pos, end - pos), end + 2});
}

// One bulk string of 1..255 bytes at `pos`: its text and the position after it.
std::optional<Result<std::pair<std::string_view, std::size_t>>> bulkAt(std::string_view b, std::size_t pos) {
  using R = Result<std::pair<std::string_view, std::size_t>>;
  if (pos >= b.size()) return std::nullopt;
  if (b[pos] != '$') return R(badReply("is not an array of two strings"));
  auto line = lineAt(b, pos + 1);
  if (!line || !*line) return line;
  const std::string_view digits = (*line)->first;
  std::size_t len = 0;
  auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), len);
  if (digits.empty() || ec != std::errc{} || p != digits.data() + digits.size() || len == 0 || len > kMaxHostLen)
    return R(badReply("has a string of length '" + std::string(digits) + "': allowed 1 to 255"));
  const std::size_t start = (*line)->second;
  if (b.size() < start + len + 2) return std::nullopt;
  if (b.substr(start + len, 2) != "\r\n") return R(badReply("has a string not ended by CRLF"));
  return R(std::pair{b.substr(start, len), start + len + 2});
}

Error sentinelError(const std::string& host, int port, const Error& e) {
  return Error{e.code, "Sentinel " + host + ":" + std::to_string(port) + ": " + e.message};
}

std::int64_t msLeft(Clock::time_point until) {
  return std::max<std::int64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now()).count(), 0);
}
}  // namespace

std::optional<Result<SentinelAnswer>> parseSentinelReply(std::string_view b) {
  using R = Result<SentinelAnswer>;
  if (b.empty()) return std::nullopt;
  auto line = lineAt(b, 1);
  if (!line) return std::nullopt;
  if (!*line) return R(line->error());
  const auto [text, next] = line->value();
  auto finished = [&](std::size_t at, SentinelAnswer a) -> R {
    if (at != b.size()) return badReply("has bytes after its end");
    return a;
  };
  if (b[0] == '-') return R(badReply("is an error: " + std::string(text)));
  if ((b[0] == '$' || b[0] == '*') && text == "-1") return finished(next, SentinelAnswer{});
  if (b[0] != '*' || text != "2") return R(badReply("is not an array of two strings (host, port)"));
  auto host = bulkAt(b, next);
  if (!host || !*host) return host ? std::optional<R>(R(host->error())) : std::nullopt;
  auto port = bulkAt(b, (*host)->second);
  if (!port || !*port) return port ? std::optional<R>(R(port->error())) : std::nullopt;
  const std::string_view p = (*port)->first;
  int portNumber = 0;
  auto [end, ec] = std::from_chars(p.data(), p.data() + p.size(), portNumber);
  if (ec != std::errc{} || end != p.data() + p.size() || portNumber < 1 || portNumber > 65535)
    return R(badReply("names port '" + std::string(p.substr(0, 16)) + "': allowed 1 to 65535"));
  return finished((*port)->second, SentinelAnswer{true, std::string((*host)->first), portNumber});
}

Result<SentinelAnswer> askSentinel(const std::string& host, int port, const std::string& service, Micros wait) {
  redisContext* c = redisConnectWithTimeout(host.c_str(), port, detail::toTimeval(wait));
  if (!c || c->err) {
    const std::string why = detail::contextError(c);
    if (c) redisFree(c);
    return unavailable("Sentinel " + host + ":" + std::to_string(port) + ": cannot connect: " + why);
  }
  const int fd = c->fd;
  const char* argv[] = {"SENTINEL", "get-master-addr-by-name", service.c_str()};
  const size_t lens[] = {8, 23, service.size()};
  char* cmd = nullptr;
  const int len = redisFormatCommandArgv(&cmd, 3, argv, lens);
  Result<SentinelAnswer> out = unavailable("no reply");
  const auto until = Clock::now() + wait;
  std::string got;
  std::size_t sent = 0;
  while (true) {
    pollfd pfd{fd, static_cast<short>(sent < static_cast<std::size_t>(len) ? POLLOUT : POLLIN), 0};
    if (len < 0 || ::poll(&pfd, 1, static_cast<int>(msLeft(until))) <= 0) {
      out = unavailable("no reply within " + std::to_string(wait.count() / 1000) + " ms");
      break;
    }
    if (sent < static_cast<std::size_t>(len)) {
      const ssize_t n = ::send(fd, cmd + sent, static_cast<std::size_t>(len) - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n < 0 && errno != EAGAIN && errno != EINTR) { out = unavailable(std::string("send: ") + std::strerror(errno)); break; }
      if (n > 0) sent += static_cast<std::size_t>(n);
      continue;
    }
    char buf[256];
    const std::size_t room = std::min(sizeof buf, kMaxSentinelReply + 1 - got.size());
    const ssize_t n = ::recv(fd, buf, room, MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) continue;
    if (n <= 0) { out = unavailable(n == 0 ? "closed the connection before a whole reply" : std::strerror(errno)); break; }
    got.append(buf, static_cast<std::size_t>(n));
    if (auto parsed = parseSentinelReply(got)) { out = std::move(*parsed); break; }
    if (got.size() > kMaxSentinelReply) { out = badReply("is longer than 1024 bytes"); break; }
  }
  if (cmd) redisFreeCommand(cmd);
  redisFree(c);
  if (!out) return sentinelError(host, port, out.error());
  return out;
}

Result<std::pair<std::string, int>> resolveSentinelMaster(const RedisEndpoint& ep) {
  if (!ep.viaSentinel()) return invalidArgument("not a redis+sentinel:// endpoint");
  const Micros wait = std::min({kSentinelWait, ep.connectTimeout, ep.commandTimeout});
  std::string said;
  for (const auto& [host, port] : ep.sentinels) {
    auto a = askSentinel(host, port, ep.sentinelService, wait);
    if (a && a->known) return std::pair{a->host, a->port};
    said += (said.empty() ? "" : "; ") +
            (a ? "Sentinel " + host + ":" + std::to_string(port) + " does not know '" + ep.sentinelService + "'"
               : a.error().message);
  }
  return unavailable("no Sentinel named a master for '" + ep.sentinelService + "' (" + said + ")");
}

Result<RedisEndpoint> sentinelReplica(const RedisEndpoint& ep) {
  if (!ep.viaSentinel()) return invalidArgument("--read-from replica needs Sentinels: allowed with --redis sentinel or a redis+sentinel:// URL");
  std::string said;
  for (const auto& [host, port] : ep.sentinels) {
    RedisEndpoint s;
    s.host = host;
    s.port = port;
    s.connectTimeout = s.commandTimeout = std::min({kSentinelWait, ep.connectTimeout, ep.commandTimeout});
    auto c = RedisConnection::connect(s);
    auto r = c ? c->command({"SENTINEL", "replicas", ep.sentinelService}) : Result<RedisReply>(c.error());
    if (!r) {
      said += (said.empty() ? "" : "; ") + r.error().message;
      continue;
    }
    for (std::size_t i = 0; i < r->size(); ++i) {
      std::string ip, flags;
      int rport = 0;
      for (std::size_t f = 0; f + 1 < (*r)[i].size(); f += 2) {
        const std::string_view name = (*r)[i][f].str();
        if (name == "ip") ip = std::string((*r)[i][f + 1].str());
        if (name == "port") rport = static_cast<int>((*r)[i][f + 1].toInt().value_or(0));
        if (name == "flags") flags = std::string((*r)[i][f + 1].str());
      }
      if (flags == "slave" && !ip.empty() && rport > 0 && rport <= 65535) {
        RedisEndpoint out = ep.node(ip, rport);
        out.db = ep.db;
        return out;
      }
    }
    said += (said.empty() ? "" : "; ") + host + ":" + std::to_string(port) + " lists no replica that is up";
  }
  return unavailable("no replica of '" + ep.sentinelService + "' to read from (" + said + ")");
}

}  // namespace rl
