#pragma once
// DeadPort: a loopback port where no HTTP server answers, for tests of dead
// targets. Listening: the kernel completes the TCP handshake, nobody ever
// accepts or reads (a stopped server). Not listening: bound to get a free
// port, then closed again, so connects are refused.

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

namespace rl::test {

/// See the file comment; check port > 0.
struct DeadPort {
  explicit DeadPort(bool listening) {
    fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (::bind(fd, reinterpret_cast<sockaddr*>(&a), len) == 0 &&
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0)
      port = ntohs(a.sin_port);
    if (listening && ::listen(fd, 512) == 0) return;
    ::close(fd);
    fd = -1;
  }
  ~DeadPort() {
    if (fd >= 0) ::close(fd);
  }
  DeadPort(const DeadPort&) = delete;
  DeadPort& operator=(const DeadPort&) = delete;
  int fd = -1;    ///< the listening socket, -1 when closed
  int port = 0;   ///< the port, 0 if none could be bound
};

}  // namespace rl::test
