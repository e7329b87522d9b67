#include "http/http_listener.hpp"

#include <QHostAddress>
#include <QTcpSocket>

#include "http/client_identity.hpp"
#include "http/limit_response.hpp"

namespace rl {
namespace {

// A client that does not read its answers is not read from past this much queued output.
constexpr qint64 kMaxPendingWrite = 1 << 20;

int toMillis(Micros d) { return static_cast<int>(std::max<std::int64_t>(1, ceilMillis(d))); }

}  // namespace

void appendAvailable(QTcpSocket& socket, std::string& buffer) {
  const qint64 n = socket.bytesAvailable();
  if (n <= 0) return;
  const std::size_t old = buffer.size();
  buffer.resize(old + static_cast<std::size_t>(n));
  const qint64 got = socket.read(buffer.data() + old, n);
  buffer.resize(old + static_cast<std::size_t>(std::max<qint64>(0, got)));
}

std::string refusedConnectionResponse() {
  auto r = errorResponse(503, "too many open connections: try again later");
  r.set("Retry-After", "1");
  r.keepAlive = false;
  return r.serialize();
}

HttpConnection::HttpConnection(QTcpSocket* socket, const HttpServerLimits& limits,
                               const HttpHandler& handler, ListenerStats& stats, QObject* parent)
    : QObject(parent), socket_(socket), limits_(limits), handler_(handler), stats_(stats),
      peer_(addressText(socket->peerAddress())) {
  socket_->setParent(this);
  socket_->setSocketOption(QAbstractSocket::LowDelayOption, 1);  // one write per answer: no Nagle wait
  socket_->setReadBufferSize(static_cast<qint64>(limits_.message.maxHeaderBytes + limits_.message.maxBodyBytes) + 4096);
  timer_.setSingleShot(true);
  stats_.open.fetch_add(1);
  stats_.accepted.fetch_add(1);
  connect(socket_, &QTcpSocket::readyRead, this, [this] { processBuffer(); });
  connect(socket_, &QTcpSocket::bytesWritten, this, [this] { processBuffer(); });
  connect(socket_, &QTcpSocket::disconnected, this, [this] { deleteLater(); });
  connect(&timer_, &QTimer::timeout, this, [this] { onTimeout(); });
  enter(Phase::Idle);
}

HttpConnection::~HttpConnection() { stats_.open.fetch_sub(1); }

void HttpConnection::enter(Phase phase) {
  phase_ = phase;
  switch (phase) {
    case Phase::Idle: timer_.start(toMillis(answered_ ? limits_.idleTimeout : limits_.headerTimeout)); break;
    case Phase::Partial: timer_.start(toMillis(limits_.headerTimeout)); break;
    case Phase::Busy: timer_.stop(); break;
    case Phase::Closing: timer_.start(toMillis(limits_.headerTimeout)); break;
  }
}

void HttpConnection::processBuffer() {
  if (inLoop_) return;
  inLoop_ = true;
  while (phase_ == Phase::Idle || phase_ == Phase::Partial) {
    if (socket_->bytesToWrite() > kMaxPendingWrite) break;  // resumes on bytesWritten
    appendAvailable(*socket_, buffer_);
    if (buffer_.empty()) break;
    HttpRequest request;
    const auto outcome = parseRequest(buffer_, limits_.message, request);
    if (outcome.state == ParseState::NeedMore) {
      if (phase_ == Phase::Idle) enter(Phase::Partial);
      if (outcome.expectContinue && !continued_) {
        continued_ = true;
        static constexpr char kContinue[] = "HTTP/1.1 100 Continue\r\n\r\n";
        socket_->write(kContinue, sizeof kContinue - 1);
      }
      break;
    }
    if (outcome.state == ParseState::Failed) {
      stats_.malformed.fetch_add(1);
      fail(outcome.status, outcome.error);
      break;
    }
    buffer_.erase(0, outcome.consumed);
    continued_ = false;
    requestKeepAlive_ = request.keepAlive();
    requestHead_ = request.method == "HEAD";
    enter(Phase::Busy);
    handler_(*this, std::move(request));  // may call respond() right away
  }
  inLoop_ = false;
}

void HttpConnection::respond(HttpResponse response) {
  if (phase_ != Phase::Busy) return;  // answered already, or closing
  response.keepAlive = response.keepAlive && requestKeepAlive_;
  respondRaw(response.serialize(requestHead_), response.keepAlive);
}

void HttpConnection::respondRaw(std::string_view bytes, bool keepAlive) {
  if (phase_ != Phase::Busy) return;
  socket_->write(bytes.data(), static_cast<qint64>(bytes.size()));
  answered_ = true;
  if (!keepAlive) {
    enter(Phase::Closing);
    socket_->disconnectFromHost();
    return;
  }
  enter(buffer_.empty() ? Phase::Idle : Phase::Partial);
  if (!inLoop_) processBuffer();
}

void HttpConnection::fail(int status, const std::string& message) {
  auto r = errorResponse(status, message);
  r.keepAlive = false;
  const auto bytes = r.serialize();
  socket_->write(bytes.data(), static_cast<qint64>(bytes.size()));
  enter(Phase::Closing);
  socket_->disconnectFromHost();
}

void HttpConnection::onTimeout() {
  switch (phase_) {
    case Phase::Idle: socket_->disconnectFromHost(); enter(Phase::Closing); break;
    case Phase::Partial:
      stats_.timedOut.fetch_add(1);
      fail(408, "request not completed within " + std::to_string(ceilMillis(limits_.headerTimeout)) + " ms");
      break;
    case Phase::Busy: break;
    case Phase::Closing: socket_->abort(); deleteLater(); break;
  }
}

HttpListener::HttpListener(HttpServerLimits limits, HttpHandler handler)
    : limits_(std::move(limits)), handler_(std::move(handler)) {
  server_.setMaxPendingConnections(std::max(30, limits_.maxConnections));
  connect(&server_, &QTcpServer::newConnection, this, [this] { onNewConnection(); });
}

HttpListener::~HttpListener() {
  server_.close();
  // Connections (children) decrement stats_ when they die: delete them while stats_ exists
  // (~QObject would delete them only after the members are gone).
  const auto children = this->children();
  for (QObject* child : children) delete child;
}

Result<int> HttpListener::listen(const std::string& address, int port) {
  QHostAddress host;
  if (!host.setAddress(QString::fromStdString(address)))
    return invalidArgument("bind address '" + address + "' is not an IP address (e.g. 127.0.0.1 or ::1)");
  if (port < 0 || port > 65535)
    return invalidArgument("port " + std::to_string(port) + " is out of range: allowed 0..65535");
  if (!server_.listen(host, static_cast<quint16>(port)))
    return unavailable("cannot listen on " + address + ":" + std::to_string(port) + ": " +
                       server_.errorString().toStdString());
  return static_cast<int>(server_.serverPort());
}

void HttpListener::onNewConnection() {
  while (QTcpSocket* socket = server_.nextPendingConnection()) {
    if (stats_.open.load() >= limits_.maxConnections) {
      stats_.refused.fetch_add(1);
      static const std::string refused = refusedConnectionResponse();
      socket->write(refused.data(), static_cast<qint64>(refused.size()));
      connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
      QTimer::singleShot(1000, socket, [socket] { socket->abort(); socket->deleteLater(); });
      socket->disconnectFromHost();
      continue;
    }
    new HttpConnection(socket, limits_, handler_, stats_, this);
  }
}

}  // namespace rl
