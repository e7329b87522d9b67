#include "http/tls_session.hpp"

#include <arpa/inet.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <poll.h>

#include <cerrno>

namespace rl {
namespace {

// Waits for `events` on `fd` until the deadline; false on timeout.
bool waitUntil(int fd, short events, TlsSession::Deadline deadline) {
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() < 0) return false;
    pollfd p{fd, events, 0};
    const int n = ::poll(&p, 1, static_cast<int>(left.count()) + 1);
    if (n > 0 || (n < 0 && errno != EINTR)) return true;
  }
}

std::string lastSslError() {
  const unsigned long e = ERR_get_error();
  if (e == 0) return "TLS error";
  char buf[256];
  ERR_error_string_n(e, buf, sizeof buf);
  return buf;
}

bool isIpLiteral(const std::string& host) {
  unsigned char buf[16];
  return ::inet_pton(AF_INET, host.c_str(), buf) == 1 || ::inet_pton(AF_INET6, host.c_str(), buf) == 1;
}

}  // namespace

Result<std::shared_ptr<ssl_ctx_st>> TlsSession::makeContext(const TlsOptions& options) {
  std::shared_ptr<SSL_CTX> ctx(SSL_CTX_new(TLS_client_method()), SSL_CTX_free);
  if (!ctx) return unavailable("cannot make a TLS context: " + lastSslError());
  SSL_CTX_set_min_proto_version(ctx.get(), TLS1_2_VERSION);
  SSL_CTX_set_mode(ctx.get(), SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  if (options.insecure) {
    SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_NONE, nullptr);
    return ctx;
  }
  SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_PEER, nullptr);
  const bool loaded = options.caFile.empty() ? SSL_CTX_set_default_verify_paths(ctx.get()) == 1
                                             : SSL_CTX_load_verify_locations(ctx.get(), options.caFile.c_str(), nullptr) == 1;
  if (!loaded)
    return invalidArgument("--cacert '" + options.caFile + "' is not a readable PEM file of CA certificates: " +
                           lastSslError());
  return ctx;
}

TlsSession::TlsSession(std::shared_ptr<ssl_ctx_st> context, bool verify)
    : context_(std::move(context)), verify_(verify) {}

TlsSession::~TlsSession() {
  if (ssl_ != nullptr) SSL_free(ssl_);
}

Result<void> TlsSession::handshake(int fd, const std::string& host, Deadline deadline) {
  fd_ = fd;
  ssl_ = SSL_new(context_.get());
  if (ssl_ == nullptr || SSL_set_fd(ssl_, fd) != 1) return unavailable("cannot start TLS: " + lastSslError());
  if (!isIpLiteral(host)) SSL_set_tlsext_host_name(ssl_, host.c_str());
  if (verify_) {
    X509_VERIFY_PARAM* param = SSL_get0_param(ssl_);
    const int ok = isIpLiteral(host) ? X509_VERIFY_PARAM_set1_ip_asc(param, host.c_str())
                                     : X509_VERIFY_PARAM_set1_host(param, host.c_str(), 0);
    if (ok != 1) return unavailable("cannot check the certificate name " + host);
  }
  for (;;) {
    ERR_clear_error();
    const int rc = SSL_connect(ssl_);
    if (rc == 1) return {};
    const int e = SSL_get_error(ssl_, rc);
    if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) {
      if (!waitUntil(fd, e == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT, deadline))
        return unavailable("TLS handshake timed out");
      continue;
    }
    const long verified = SSL_get_verify_result(ssl_);
    if (verify_ && verified != X509_V_OK)
      return unavailable(std::string("TLS certificate rejected: ") + X509_verify_cert_error_string(verified) +
                         " (--cacert FILE trusts a CA, --insecure skips the check)");
    return unavailable("TLS handshake failed: " + lastSslError());
  }
}

long TlsSession::read(char* buffer, std::size_t n, Deadline deadline, std::string& error) {
  for (;;) {
    ERR_clear_error();
    const int rc = SSL_read(ssl_, buffer, static_cast<int>(n));
    if (rc > 0) return rc;
    const int e = SSL_get_error(ssl_, rc);
    if (e == SSL_ERROR_ZERO_RETURN) return 0;
    if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) {
      if (!waitUntil(fd_, e == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT, deadline)) return -2;
      continue;
    }
    if (e == SSL_ERROR_SYSCALL && ERR_peek_error() == 0) return 0;  // closed without close_notify
    error = "TLS read failed: " + lastSslError();
    return -1;
  }
}

bool TlsSession::write(const char* data, std::size_t n, Deadline deadline, std::string& error) {
  while (n > 0) {
    ERR_clear_error();
    const int rc = SSL_write(ssl_, data, static_cast<int>(n));
    if (rc > 0) {
      data += rc;
      n -= static_cast<std::size_t>(rc);
      continue;
    }
    const int e = SSL_get_error(ssl_, rc);
    if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) {
      if (!waitUntil(fd_, e == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT, deadline)) {
        error = "timed out sending the request";
        return false;
      }
      continue;
    }
    error = "TLS write failed: " + lastSslError();
    return false;
  }
  return true;
}

}  // namespace rl
