#include "http/http_client.hpp"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <sys/time.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <charconv>
#include <cstring>

#include "http/client_response.hpp"

namespace rl {
namespace {

using SteadyClock = std::chrono::steady_clock;

// Waits until `fd` is ready for `events` or the deadline passes; false on timeout.
bool waitFor(int fd, short events, SteadyClock::time_point deadline) {
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - SteadyClock::now());
    if (left.count() < 0) return false;
    pollfd p{fd, events, 0};
    const int n = ::poll(&p, 1, static_cast<int>(left.count()) + 1);
    if (n > 0) return true;
    if (n < 0 && errno != EINTR) return true;  // let the following call report the error
  }
}

// A blocking call may overrun its deadline by this much before its socket
// timeout is shortened: so the usual one-segment answer costs no setsockopt.
constexpr Micros kTimeoutSlack{1'000};

timeval asTimeval(Micros t) {
  const auto us = std::max<std::int64_t>(t.count(), 1);  // 0 would mean "no timeout"
  return timeval{static_cast<time_t>(us / 1'000'000), static_cast<suseconds_t>(us % 1'000'000)};
}

}  // namespace

std::string HttpTarget::toString() const {
  const bool v6 = host.find(':') != std::string::npos;
  return (tls ? "https://" : "http://") + (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port) + path;
}

Result<HttpTarget> parseHttpUrl(std::string_view url) {
  const std::string shown(url);
  HttpTarget t;
  if (url.substr(0, 8) == "https://") {
    t.tls = true;
    t.port = 443;
    url.remove_prefix(8);
  } else if (url.substr(0, 7) == "http://") {
    url.remove_prefix(7);
  } else {
    return invalidArgument("URL '" + shown + "' must start with http:// or https://");
  }
  const auto slash = url.find('/');
  std::string_view authority = url.substr(0, slash);
  t.path = slash == std::string_view::npos ? "/" : std::string(url.substr(slash));
  std::string_view port;
  if (!authority.empty() && authority.front() == '[') {
    const auto close = authority.find(']');
    if (close == std::string_view::npos) return invalidArgument("URL '" + shown + "': unclosed [ in the IPv6 host");
    t.host = std::string(authority.substr(1, close - 1));
    if (close + 1 < authority.size()) {
      if (authority[close + 1] != ':') return invalidArgument("URL '" + shown + "': expected :port after ]");
      port = authority.substr(close + 2);
    }
  } else {
    const auto colon = authority.find(':');
    t.host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) port = authority.substr(colon + 1);
  }
  if (t.host.empty()) return invalidArgument("URL '" + shown + "' has no host: expected http://host:port");
  if (!port.empty() || authority.find(':') != std::string_view::npos) {
    const auto [ptr, ec] = std::from_chars(port.data(), port.data() + port.size(), t.port);
    if (port.empty() || ec != std::errc{} || ptr != port.data() + port.size() || t.port < 1 || t.port > 65535)
      return invalidArgument("URL '" + shown + "': port must be a number in 1..65535");
  }
  return t;
}

HttpClient::HttpClient(HttpTarget target, Micros timeout, std::string sourceAddress, TlsOptions tls)
    : target_(std::move(target)), source_(std::move(sourceAddress)), timeout_(timeout), tlsOptions_(std::move(tls)) {
  limits_.maxBodyBytes = 1 << 20;
  limits_.maxHeaderBytes = 64 * 1024;
}

HttpClient::~HttpClient() { close(); }

void HttpClient::close() {
  tls_.reset();
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  buffer_.clear();
}

Error HttpClient::failure(const std::string& what) const {
  return unavailable("HTTP " + target_.toString() + ": " + what);
}

Result<void> HttpClient::connect() {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const auto port = std::to_string(target_.port);
  if (const int rc = ::getaddrinfo(target_.host.c_str(), port.c_str(), &hints, &found); rc != 0)
    return failure(std::string("cannot resolve host: ") + ::gai_strerror(rc));
  std::string lastError = "no address";
  const auto deadline = SteadyClock::now() + timeout_;
  for (addrinfo* a = found; a != nullptr && fd_ < 0; a = a->ai_next) {
    const int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    if (!source_.empty()) {
      sockaddr_in local{};
      local.sin_family = AF_INET;
      if (a->ai_family != AF_INET || ::inet_pton(AF_INET, source_.c_str(), &local.sin_addr) != 1 ||
          ::bind(fd, reinterpret_cast<sockaddr*>(&local), sizeof local) != 0) {
        lastError = "cannot bind the source address " + source_ + " (an IPv4 target and address are needed): " +
                    std::strerror(errno);
        ::close(fd);
        continue;
      }
    }
    int err = ::connect(fd, a->ai_addr, a->ai_addrlen) == 0 ? 0 : errno;
    if (err == EINPROGRESS) {
      err = ETIMEDOUT;
      if (waitFor(fd, POLLOUT, deadline)) {
        socklen_t len = sizeof err;
        ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
      }
    }
    if (err != 0) {
      lastError = std::strerror(err);
      ::close(fd);
      continue;
    }
    const int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (!target_.tls) {
      // Plain http blocks, bounded by the socket timeouts: a request costs one
      // send and (usually) one recv, not send + recv + poll + recv.
      ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
      const timeval tv = asTimeval(timeout_);
      ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
      ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
      receiveBound_ = sendBound_ = timeout_;
    }
    fd_ = fd;
  }
  ::freeaddrinfo(found);
  if (fd_ < 0) return failure("cannot connect: " + lastError);
  if (!target_.tls) return {};
  if (!tlsContext_) {
    auto ctx = TlsSession::makeContext(tlsOptions_);
    if (!ctx) {
      close();
      return ctx.error();
    }
    tlsContext_ = std::move(ctx).value();
  }
  tls_ = std::make_unique<TlsSession>(tlsContext_, !tlsOptions_.insecure);
  if (auto ok = tls_->handshake(fd_, target_.host, deadline); !ok) {
    close();
    return failure(ok.error().message);
  }
  return {};
}

Result<void> HttpClient::open() {
  if (fd_ >= 0) return {};
  return connect();
}

Result<void> HttpClient::writeAll(std::string_view bytes) {
  const auto deadline = SteadyClock::now() + timeout_;
  if (tls_) {
    std::string error;
    if (!tls_->write(bytes.data(), bytes.size(), deadline, error)) return failure(error);
    return {};
  }
  while (!bytes.empty()) {
    if (!bound(SO_SNDTIMEO, sendBound_, deadline)) return failure("timed out sending the request");
    const auto n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n > 0) {
      bytes.remove_prefix(static_cast<std::size_t>(n));
    } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
      continue;  // the socket timeout passed (or a signal): the deadline decides
    } else {
      peerClosed_ = errno == EPIPE || errno == ECONNRESET;
      return failure(std::string("send failed: ") + std::strerror(errno));
    }
  }
  return {};
}

// Reads up to `n` bytes: > 0 read, 0 the server closed, -1 failed (`error`), -2 timed out.
long HttpClient::receive(char* buffer, std::size_t n, SteadyClock::time_point deadline, std::string& error) {
  if (tls_) return tls_->read(buffer, n, deadline, error);
  for (;;) {
    if (!bound(SO_RCVTIMEO, receiveBound_, deadline)) return -2;
    const auto got = ::recv(fd_, buffer, n, 0);
    if (got > 0) return got;
    if (got == 0 || errno == ECONNRESET) return 0;
    if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
      error = std::string("receive failed: ") + std::strerror(errno);
      return -1;
    }
  }
}

bool HttpClient::bound(int option, Micros& inForce, SteadyClock::time_point deadline) {
  const auto left = std::chrono::duration_cast<Micros>(deadline - SteadyClock::now());
  if (left.count() <= 0) return false;
  if (left + kTimeoutSlack >= inForce) return true;  // the timeout in force ends near enough the deadline
  const timeval tv = asTimeval(left);
  ::setsockopt(fd_, SOL_SOCKET, option, &tv, sizeof tv);
  inForce = left;
  return true;
}

Result<HttpResponse> HttpClient::readResponse(bool head, bool& gotBytes) {
  const auto deadline = SteadyClock::now() + timeout_;  // the whole answer, however it is dripped
  char chunk[16384];
  bool eof = false;
  for (;;) {
    HttpResponse response;
    if (!buffer_.empty() || eof) {
      const auto outcome = parseClientResponse(buffer_, limits_, head, eof, response);
      if (outcome.state == ParseState::Complete) {
        buffer_.erase(0, outcome.consumed);
        if (eof) response.keepAlive = false;
        return response;
      }
      if (outcome.state == ParseState::Failed) return protocolError("HTTP " + target_.toString() + ": " + outcome.error);
      if (eof) {
        peerClosed_ = true;
        return failure("the server closed the connection before answering");
      }
    }
    std::string error;
    const long n = receive(chunk, sizeof chunk, deadline, error);
    if (n > 0) {
      gotBytes = true;
      buffer_.append(chunk, static_cast<std::size_t>(n));
    } else if (n == 0) {
      eof = true;
    } else if (n == -2) {
      return failure("no complete answer within " + std::to_string(ceilMillis(timeout_)) + " ms");
    } else {
      return failure(error);
    }
  }
}

Result<HttpResponse> HttpClient::send(const HttpRequest& request) {
  HttpRequest r = request;
  if (findHeader(r.headers, "host") == nullptr) r.headers.insert(r.headers.begin(), {"Host", target_.host});
  const auto bytes = r.serialize();
  const bool head = r.method == "HEAD";
  for (int attempt = 0; attempt < 2; ++attempt) {
    const bool reused = fd_ >= 0;
    if (!reused)
      if (auto c = connect(); !c) return c.error();
    bool gotBytes = false;
    peerClosed_ = false;
    auto sent = writeAll(bytes);
    auto response = sent ? readResponse(head, gotBytes) : Result<HttpResponse>(sent.error());
    if (response) {
      if (!response->keepAlive || !r.keepAlive()) close();
      return response;
    }
    close();
    // Only a kept-alive connection closed by the server before any answer byte is retried.
    if (!reused || gotBytes || !peerClosed_) return response.error();
  }
  return failure("the server closed the connection twice");
}

}  // namespace rl
