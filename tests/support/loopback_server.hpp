#pragma once
// A loopback TCP listener on a free port that serves one connection at a time
// on its own thread with a handler the test gives (a hostile Sentinel, a
// scripted cluster node). The destructor stops it and joins the thread.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <functional>
#include <thread>
#include <utility>

namespace rl::test {

class LoopbackServer {
 public:
  /// `serve(fd, stopping)` talks to one accepted connection; the server closes it afterwards.
  explicit LoopbackServer(std::function<void(int, const std::atomic<bool>&)> serve) : serve_(std::move(serve)) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    ::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a);
    ::listen(fd_, 4);
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
    thread_ = std::thread([this] {
      while (!stop_) {
        const int c = ::accept(fd_, nullptr, nullptr);
        if (c < 0) return;
        serve_(c, stop_);
        ::close(c);
      }
    });
  }
  LoopbackServer(const LoopbackServer&) = delete;
  LoopbackServer& operator=(const LoopbackServer&) = delete;
  ~LoopbackServer() {
    stop_ = true;
    ::shutdown(fd_, SHUT_RDWR);
    ::close(fd_);
    thread_.join();
  }
  /// The port it listens on (127.0.0.1).
  int port() const { return port_; }

 private:
  std::function<void(int, const std::atomic<bool>&)> serve_;  ///< one connection's conversation
  int fd_ = -1;                    ///< listening socket
  int port_ = 0;                   ///< its port
  std::atomic<bool> stop_{false};  ///< set by the destructor
  std::thread thread_;             ///< accepts and serves
};

}  // namespace rl::test
