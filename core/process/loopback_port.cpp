#include "process/loopback_port.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace rl {

namespace {

// `address`:`port` as a socket address; false for an address that is not a literal.
bool socketAddress(const std::string& address, int port, sockaddr_storage& s, socklen_t& len) {
  s = {};
  if (address.find(':') != std::string::npos) {
    auto* a = reinterpret_cast<sockaddr_in6*>(&s);
    a->sin6_family = AF_INET6;
    a->sin6_port = htons(static_cast<std::uint16_t>(port));
    len = sizeof *a;
    return ::inet_pton(AF_INET6, address.c_str(), &a->sin6_addr) == 1;
  }
  auto* a = reinterpret_cast<sockaddr_in*>(&s);
  a->sin_family = AF_INET;
  a->sin_port = htons(static_cast<std::uint16_t>(port));
  len = sizeof *a;
  return ::inet_pton(AF_INET, address.c_str(), &a->sin_addr) == 1;
}

// Binds `address`:`port` (0: any) and returns the bound port, -1 when it cannot.
int bindPort(const std::string& address, int port) {
  sockaddr_storage s{};
  socklen_t len = 0;
  if (!socketAddress(address, port, s, len)) return -1;
  const int fd = ::socket(s.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  int got = -1;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&s), len) == 0 && ::getsockname(fd, reinterpret_cast<sockaddr*>(&s), &len) == 0)
    got = ntohs(s.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&s)->sin6_port
                                        : reinterpret_cast<sockaddr_in*>(&s)->sin_port);
  ::close(fd);
  return got;
}

}  // namespace

Result<int> freePort(const std::string& address) {
  const int port = bindPort(address, 0);
  if (port <= 0) return unavailable("cannot find a free port on " + address + ": " + std::strerror(errno));
  return port;
}

bool portFree(const std::string& address, int port) { return port > 0 && bindPort(address, port) == port; }

bool accepts(const std::string& address, int port) {
  const std::string target = address == "0.0.0.0" ? "127.0.0.1" : address == "::" ? "::1" : address;
  sockaddr_storage s{};
  socklen_t len = 0;
  if (!socketAddress(target, port, s, len)) return false;
  const int fd = ::socket(s.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  const bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&s), len) == 0;
  ::close(fd);
  return ok;
}

}  // namespace rl
