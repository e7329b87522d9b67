#include "http/acceptor.hpp"

#include <QHostAddress>
#include <QSocketNotifier>

#include <arpa/inet.h>
#include <cerrno>
#include <cstring>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>

namespace rl {
namespace {

constexpr int kBacklog = 1024;
// Connections taken per wakeup: others wait for the next loop pass, so a connection flood
// cannot starve the connections already open.
constexpr int kAcceptBatch = 64;
constexpr int kFirstBackOffMs = 10;
constexpr int kMaxBackOffMs = 1000;

bool outOfResources(int error) {
  return error == EMFILE || error == ENFILE || error == ENOBUFS || error == ENOMEM;
}

}  // namespace

Acceptor::Acceptor(std::function<void(int)> accept, std::function<void()> onExhausted)
    : accept_(std::move(accept)), onExhausted_(std::move(onExhausted)) {
  retry_.setSingleShot(true);
  connect(&retry_, &QTimer::timeout, this, [this] {
    if (notifier_) notifier_->setEnabled(true);
    onReadable();
  });
}

Acceptor::~Acceptor() { close(); }

void Acceptor::close() {
  retry_.stop();
  notifier_.reset();
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

Result<int> Acceptor::listen(const std::string& address, int port) {
  QHostAddress host;
  if (!host.setAddress(QString::fromStdString(address)))
    return invalidArgument("bind address '" + address + "' is not an IP address (e.g. 127.0.0.1 or ::1)");
  if (port < 0 || port > 65535)
    return invalidArgument("port " + std::to_string(port) + " is out of range: allowed 0..65535");
  sockaddr_storage storage{};
  socklen_t length = 0;
  const bool v6 = host.protocol() == QAbstractSocket::IPv6Protocol;
  if (v6) {
    auto* a = reinterpret_cast<sockaddr_in6*>(&storage);
    a->sin6_family = AF_INET6;
    a->sin6_port = htons(static_cast<std::uint16_t>(port));
    const Q_IPV6ADDR bytes = host.toIPv6Address();
    std::memcpy(&a->sin6_addr, &bytes, sizeof a->sin6_addr);
    length = sizeof *a;
  } else {
    auto* a = reinterpret_cast<sockaddr_in*>(&storage);
    a->sin_family = AF_INET;
    a->sin_port = htons(static_cast<std::uint16_t>(port));
    a->sin_addr.s_addr = htonl(host.toIPv4Address());
    length = sizeof *a;
  }
  const auto failed = [&](const char* what) {
    const std::string why = std::strerror(errno);
    close();
    return unavailable("cannot listen on " + address + ":" + std::to_string(port) + ": " + what + ": " + why);
  };
  close();
  fd_ = ::socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd_ < 0) return failed("socket");
  const int one = 1;
  ::setsockopt(fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (v6) ::setsockopt(fd_, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
  if (::bind(fd_, reinterpret_cast<const sockaddr*>(&storage), length) != 0) return failed("bind");
  if (::listen(fd_, kBacklog) != 0) return failed("listen");
  sockaddr_storage bound{};
  socklen_t boundLength = sizeof bound;
  ::getsockname(fd_, reinterpret_cast<sockaddr*>(&bound), &boundLength);
  const int boundPort = v6 ? ntohs(reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port)
                           : ntohs(reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
  notifier_ = std::make_unique<QSocketNotifier>(fd_, QSocketNotifier::Read);
  connect(notifier_.get(), &QSocketNotifier::activated, this, [this] { onReadable(); });
  return boundPort;
}

void Acceptor::onReadable() {
  for (int i = 0; i < kAcceptBatch && fd_ >= 0; ++i) {
    const int fd = ::accept4(fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd >= 0) {
      backOffMs_ = 0;
      accept_(fd);
      continue;
    }
    if (errno == EINTR || errno == ECONNABORTED || errno == EPROTO) continue;
    if (outOfResources(errno)) backOff();
    return;  // EAGAIN: nothing more waits
  }
}

void Acceptor::backOff() {
  exhausted_.fetch_add(1);
  backOffMs_ = backOffMs_ == 0 ? kFirstBackOffMs : std::min(kMaxBackOffMs, backOffMs_ * 2);
  if (notifier_) notifier_->setEnabled(false);
  if (onExhausted_) onExhausted_();
  retry_.start(backOffMs_);
}

}  // namespace rl
