#include "http/fd_stream.hpp"

#include <QHostAddress>
#include <QSocketNotifier>

#include <arpa/inet.h>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <vector>

#include "http/client_identity.hpp"

namespace rl {
namespace {

constexpr std::size_t kReadChunk = 16 * 1024;

void makeNonBlockingNoDelay(int fd) {
  const int flags = ::fcntl(fd, F_GETFL, 0);
  if (flags >= 0) ::fcntl(fd, F_SETFL, flags | O_NONBLOCK);
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

}  // namespace

/// One epoll set per thread, watched by one QSocketNotifier; dispatches readiness to the
/// thread's FdStreams. Made by the first stream of a thread, deleted with the last.
class EpollHub final : public QObject {
 public:
  static EpollHub* acquire() {
    if (current_ == nullptr) current_ = new EpollHub;
    ++current_->users_;
    return current_;
  }
  void release() {
    if (--users_ > 0) return;
    if (current_ == this) current_ = nullptr;
    if (dispatching_) deleteLater();
    else delete this;
  }
  void set(FdStream* s, std::uint32_t events, bool added) {
    epoll_event ev{};
    ev.events = events;
    ev.data.ptr = s;
    ::epoll_ctl(efd_, added ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, s->fd_, &ev);
  }
  void remove(FdStream* s) {
    ::epoll_ctl(efd_, EPOLL_CTL_DEL, s->fd_, nullptr);
    for (int i = next_; i < count_; ++i)  // events of this batch not delivered yet
      if (batch_[i].data.ptr == s) batch_[i].data.ptr = nullptr;
    std::erase(flushLater_, s);
  }
  bool dispatching() const { return dispatching_; }
  /// `s` wrote during this pass: its output goes out, in one send, when the pass ends.
  void flushAfterPass(FdStream* s) {
    if (std::find(flushLater_.begin(), flushLater_.end(), s) == flushLater_.end()) flushLater_.push_back(s);
  }

 private:
  EpollHub() : efd_(::epoll_create1(EPOLL_CLOEXEC)), notifier_(efd_, QSocketNotifier::Read) {
    connect(&notifier_, &QSocketNotifier::activated, this, [this] { dispatch(); });
  }
  ~EpollHub() override {
    notifier_.setEnabled(false);
    ::close(efd_);
  }

  void dispatch() {
    dispatching_ = true;
    count_ = std::max(0, ::epoll_wait(efd_, batch_, kBatch, 0));
    for (next_ = 0; next_ < count_;) {
      const epoll_event ev = batch_[next_++];
      if (ev.data.ptr != nullptr) static_cast<FdStream*>(ev.data.ptr)->onEvents(ev.events);
    }
    count_ = next_ = 0;
    dispatching_ = false;
    while (!flushLater_.empty()) {  // a flush may close a stream (which erases itself from the list)
      FdStream* s = flushLater_.back();
      flushLater_.pop_back();
      s->flush();
    }
  }

  static constexpr int kBatch = 128;
  static thread_local EpollHub* current_;
  int efd_;                      ///< the epoll set
  QSocketNotifier notifier_;     ///< readable when any stream is ready
  epoll_event batch_[kBatch]{};  ///< the events being dispatched
  int count_ = 0;                ///< events in batch_
  int next_ = 0;                 ///< next event of batch_ to deliver
  int users_ = 0;                ///< streams using the hub
  bool dispatching_ = false;     ///< dispatch() is on the stack
  std::vector<FdStream*> flushLater_;  ///< streams written to during this pass
};

thread_local EpollHub* EpollHub::current_ = nullptr;

FdStream::FdStream(int fd, QObject* parent) : QObject(parent), fd_(fd), hub_(EpollHub::acquire()) {
  makeNonBlockingNoDelay(fd_);
  hub_->set(this, EPOLLIN, false);
}

FdStream::~FdStream() {
  if (fd_ >= 0) {
    hub_->remove(this);
    ::close(fd_);
  }
  hub_->release();
}

void FdStream::watch() {
  if (fd_ >= 0) hub_->set(this, (reading_ ? EPOLLIN : 0u) | (writing_ ? EPOLLOUT : 0u), true);
}

void FdStream::onEvents(std::uint32_t events) {
  const bool broken = (events & (EPOLLERR | EPOLLHUP)) != 0;
  if ((events & EPOLLOUT) || (broken && connecting_)) onWritable();
  if (fd_ < 0 || connecting_) return;
  if ((events & EPOLLIN) || (broken && reading_)) {
    if (readable_) readable_();
  } else if (broken) {
    int error = 0;
    socklen_t len = sizeof error;
    ::getsockopt(fd_, SOL_SOCKET, SO_ERROR, &error, &len);
    finishClose(error);
  }
}

FdStream* FdStream::connectTo(const std::string& address, int port, QObject* parent) {
  QHostAddress host;
  if (!host.setAddress(QString::fromStdString(address))) return nullptr;
  sockaddr_storage addr{};
  socklen_t len = 0;
  if (host.protocol() == QAbstractSocket::IPv6Protocol) {
    auto* a6 = reinterpret_cast<sockaddr_in6*>(&addr);
    a6->sin6_family = AF_INET6;
    a6->sin6_port = htons(static_cast<std::uint16_t>(port));
    const Q_IPV6ADDR ip = host.toIPv6Address();
    std::memcpy(&a6->sin6_addr, ip.c, 16);
    len = sizeof *a6;
  } else {
    auto* a4 = reinterpret_cast<sockaddr_in*>(&addr);
    a4->sin_family = AF_INET;
    a4->sin_port = htons(static_cast<std::uint16_t>(port));
    a4->sin_addr.s_addr = htonl(host.toIPv4Address());
    len = sizeof *a4;
  }
  const int fd = ::socket(addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return nullptr;
  auto* s = new FdStream(fd, parent);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), len) != 0) {
    if (errno != EINPROGRESS) {
      s->connecting_ = true;
      s->finishClose(errno);  // closed() has no listener yet: the caller sees !isOpen()
      return s;
    }
    s->connecting_ = true;
    s->updateWriteNotifier();
  }
  return s;
}

bool FdStream::readInto(std::string& buffer, std::size_t maxBytes) {
  if (fd_ < 0) return false;
  thread_local char scratch[kReadChunk];  // recv() here, then one append: no zero-filled resize
  while (maxBytes > 0) {
    const std::size_t want = std::min(maxBytes, kReadChunk);
    const ssize_t n = ::recv(fd_, scratch, want, 0);
    if (n > 0) {
      buffer.append(scratch, static_cast<std::size_t>(n));
      maxBytes -= static_cast<std::size_t>(n);
      if (static_cast<std::size_t>(n) < want) return true;  // the kernel has no more now
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return true;
    if (n < 0 && errno == EINTR) continue;
    finishClose(n < 0 ? errno : 0);  // EOF or a reset
    return false;
  }
  return true;
}

void FdStream::setReading(bool on) {
  if (reading_ == on) return;
  reading_ = on;
  watch();
}

void FdStream::write(std::string_view bytes) {
  if (fd_ < 0 || closing_ || bytes.empty()) return;
  if (hub_->dispatching() && corked_ == 0 && !connecting_) {  // sent once when the pass ends
    out_.append(bytes);
    hub_->flushAfterPass(this);
    return;
  }
  if (pendingOutput() == 0 && corked_ == 0 && !connecting_) {
    const ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n == static_cast<ssize_t>(bytes.size())) return;
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) return finishClose(errno);
    bytes.remove_prefix(static_cast<std::size_t>(std::max<ssize_t>(0, n)));
    blocked_ = true;
  }
  out_.append(bytes);
  updateWriteNotifier();
}

void FdStream::uncork() {
  if (corked_ > 0 && --corked_ == 0) flush();
}

void FdStream::flush() {
  if (pendingOutput() == 0 && !closing_) return updateWriteNotifier();
  while (fd_ >= 0 && pendingOutput() > 0 && corked_ == 0 && !connecting_) {
    const ssize_t n = ::send(fd_, out_.data() + sent_, pendingOutput(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      blocked_ = true;
      break;
    }
    if (n < 0) return finishClose(errno);
    sent_ += static_cast<std::size_t>(n);
  }
  if (fd_ < 0) return;
  if (pendingOutput() == 0) {
    out_.clear();
    sent_ = 0;
    if (closing_) return finishClose();
    if (std::exchange(blocked_, false) && drained_) drained_();
  }
  if (fd_ >= 0) updateWriteNotifier();
}

void FdStream::onWritable() {
  if (connecting_) {
    int error = 0;
    socklen_t len = sizeof error;
    ::getsockopt(fd_, SOL_SOCKET, SO_ERROR, &error, &len);
    if (error != 0) return finishClose(error);
    connecting_ = false;
  }
  flush();
}

void FdStream::updateWriteNotifier() {
  const bool want = connecting_ || (pendingOutput() > 0 && corked_ == 0);
  if (writing_ == want) return;
  writing_ = want;
  watch();
}

void FdStream::closeAfterFlush() {
  if (fd_ < 0) return;
  closing_ = true;
  corked_ = 0;
  flush();
}

void FdStream::abort() { finishClose(); }

void FdStream::finishClose(int error) {
  if (fd_ < 0) return;
  error_ = error;
  connectFailed_ = connecting_;
  hub_->remove(this);
  ::close(fd_);
  fd_ = -1;
  out_.clear();
  sent_ = 0;
  connecting_ = false;
  if (closed_) closed_();
}

std::string FdStream::closeError() const { return error_ != 0 ? std::strerror(error_) : std::string(); }

std::size_t FdStream::pendingInput() const {
  int n = 0;
  if (fd_ < 0 || ::ioctl(fd_, FIONREAD, &n) != 0 || n < 0) return 0;
  return static_cast<std::size_t>(n);
}

std::string FdStream::peerAddress() const {
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  if (fd_ < 0 || ::getpeername(fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0) return {};
  QHostAddress a(reinterpret_cast<const sockaddr*>(&addr));
  return addressText(a);
}

}  // namespace rl
