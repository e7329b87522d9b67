#include "http/http_listener.hpp"

#include <QHostAddress>

#include <unistd.h>

#include "http/client_identity.hpp"
#include "http/fd_stream.hpp"
#include "http/limit_response.hpp"

namespace rl {
namespace {

// A client that does not read its answers is not read from past this much queued output.
constexpr std::size_t kMaxPendingWrite = 1 << 20;

/// A QTcpServer that hands accepted descriptors to a function instead of making QTcpSockets.
class FdServer final : public QTcpServer {
 public:
  explicit FdServer(std::function<void(int)> accept) : accept_(std::move(accept)) {}

 protected:
  void incomingConnection(qintptr fd) override { accept_(static_cast<int>(fd)); }

 private:
  std::function<void(int)> accept_;  ///< takes ownership of each accepted descriptor
};

}  // namespace

std::string refusedConnectionResponse() {
  auto r = errorResponse(503, "too many open connections: try again later");
  r.set("Retry-After", "1");
  r.keepAlive = false;
  return r.serialize();
}

HttpConnection::HttpConnection(int fd, const HttpServerLimits& limits, const HttpHandler& handler,
                               ListenerStats& stats, QObject* parent)
    : QObject(parent), stream_(new FdStream(fd, this)), limits_(limits), handler_(handler), stats_(stats),
      peer_(stream_->peerAddress()),
      maxBuffer_(limits_.message.maxHeaderBytes + limits_.message.maxBodyBytes + 4096) {
  stats_.open.fetch_add(1);
  stats_.accepted.fetch_add(1);
  stream_->onReadable([this] { onReadable(); });
  stream_->onDrained([this] { processBuffer(); });
  stream_->onClosed([this] { deleteLater(); });
  enter(Phase::Idle);
}

HttpConnection::~HttpConnection() {
  stats_.open.fetch_sub(1);
  if (auto f = std::move(abandoned_)) f();
}

void HttpConnection::enter(Phase phase) {
  phase_ = phase;
  switch (phase) {
    case Phase::Idle: deadline_.setIn(answered_ ? limits_.idleTimeout : limits_.headerTimeout); break;
    case Phase::Partial: deadline_.setIn(limits_.headerTimeout); break;
    case Phase::Busy: deadline_.clear(); break;
    case Phase::Closing: deadline_.setIn(limits_.headerTimeout); break;
  }
}

void HttpConnection::onReadable() {
  if (!stream_->readInto(buffer_, maxBuffer_ > buffer_.size() ? maxBuffer_ - buffer_.size() : 0)) return;
  if (phase_ == Phase::Closing) buffer_.clear();  // nothing more is answered
  stream_->setReading(buffer_.size() < maxBuffer_);
  processBuffer();
}

void HttpConnection::processBuffer() {
  if (inLoop_ || !stream_->isOpen()) return;
  inLoop_ = true;
  stream_->cork();  // answers decided now go out in one send
  const std::size_t most = static_cast<std::size_t>(std::max(1, limits_.maxPipelined));
  while (phase_ != Phase::Closing && slots_.size() < most) {
    if (stream_->pendingOutput() > kMaxPendingWrite) break;  // resumes when drained
    if (buffer_.empty()) break;
    HttpRequest request;
    const auto outcome = parseRequest(buffer_, limits_.message, request);
    if (outcome.state == ParseState::NeedMore) {
      if (phase_ == Phase::Idle) enter(Phase::Partial);
      if (outcome.expectContinue && !continued_ && slots_.empty()) {
        continued_ = true;
        stream_->write("HTTP/1.1 100 Continue\r\n\r\n");
      }
      break;
    }
    if (outcome.state == ParseState::Failed) {
      if (!slots_.empty()) break;  // answered in order: after the requests before it
      stats_.malformed.fetch_add(1);
      fail(outcome.status, outcome.error);
      break;
    }
    buffer_.erase(0, outcome.consumed);
    continued_ = false;
    slots_.push_back({nextRequest_++, request.keepAlive(), request.method == "HEAD", false, false, {}});
    enter(Phase::Busy);
    handler_(*this, std::move(request));  // may call respond() right away
  }
  if (phase_ != Phase::Closing) stream_->setReading(buffer_.size() < maxBuffer_);
  inLoop_ = false;
  stream_->uncork();  // may close the stream (and schedule this connection's deletion)
}

HttpConnection::Slot* HttpConnection::slot(std::uint64_t id) {
  for (auto& s : slots_)
    if (s.id == id) return &s;
  return nullptr;
}

bool HttpConnection::relayable() const {
  return !slots_.empty() && slots_.back().keepAlive && !slots_.back().head;
}
bool HttpConnection::keepAliveRequested() const { return !slots_.empty() && slots_.back().keepAlive; }
bool HttpConnection::headRequest() const { return !slots_.empty() && slots_.back().head; }
std::uint64_t HttpConnection::currentRequest() const { return slots_.empty() ? nextRequest_ : slots_.back().id; }

bool HttpConnection::keepAliveRequested(std::uint64_t id) const {
  for (const auto& s : slots_)
    if (s.id == id) return s.keepAlive;
  return false;
}

bool HttpConnection::headRequest(std::uint64_t id) const {
  for (const auto& s : slots_)
    if (s.id == id) return s.head;
  return false;
}

void HttpConnection::respond(HttpResponse response) { respondTo(currentRequest(), std::move(response)); }

void HttpConnection::respondRaw(std::string_view bytes, bool keepAlive) {
  respondRawTo(currentRequest(), bytes, keepAlive);
}

void HttpConnection::respondTo(std::uint64_t id, HttpResponse response) {
  const Slot* s = slot(id);
  if (s == nullptr || s->done) return;  // answered already, or closing
  response.keepAlive = response.keepAlive && s->keepAlive;
  respondRawTo(id, response.serialize(s->head), response.keepAlive);
}

void HttpConnection::respondRawTo(std::uint64_t id, std::string_view bytes, bool keepAlive) {
  Slot* s = slot(id);
  if (s == nullptr || s->done || phase_ == Phase::Closing) return;
  abandoned_ = nullptr;
  answered_ = true;
  s->done = true;
  s->answerKeepAlive = keepAlive;
  if (s != &slots_.front()) return void(s->bytes.assign(bytes));  // goes out after the ones before it
  stream_->write(bytes);
  slots_.pop_front();
  if (!keepAlive) return close();
  while (!slots_.empty() && slots_.front().done) {  // answers that were waiting for this one
    const Slot next = std::move(slots_.front());
    slots_.pop_front();
    stream_->write(next.bytes);
    if (!next.answerKeepAlive) return close();
  }
  if (slots_.empty()) enter(buffer_.empty() ? Phase::Idle : Phase::Partial);
  if (!inLoop_) processBuffer();
}

void HttpConnection::close() {
  enter(Phase::Closing);
  buffer_.clear();
  slots_.clear();
  stream_->closeAfterFlush();
}

void HttpConnection::fail(int status, const std::string& message) {
  auto r = errorResponse(status, message);
  r.keepAlive = false;
  stream_->write(r.serialize());
  close();
}

void HttpConnection::onTimeout() {
  switch (phase_) {
    case Phase::Idle: close(); break;
    case Phase::Partial:
      stats_.timedOut.fetch_add(1);
      fail(408, "request not completed within " + std::to_string(ceilMillis(limits_.headerTimeout)) + " ms");
      break;
    case Phase::Busy: break;
    case Phase::Closing: stream_->abort(); deleteLater(); break;
  }
}

HttpListener::HttpListener(HttpServerLimits limits, HttpHandler handler)
    : limits_(std::move(limits)), handler_(std::move(handler)),
      server_(std::make_unique<FdServer>([this](int fd) { accept(fd); })) {
  server_->setMaxPendingConnections(std::max(30, limits_.maxConnections));
}

HttpListener::~HttpListener() {
  server_->close();
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
  if (!server_->listen(host, static_cast<quint16>(port)))
    return unavailable("cannot listen on " + address + ":" + std::to_string(port) + ": " +
                       server_->errorString().toStdString());
  return static_cast<int>(server_->serverPort());
}

void HttpListener::accept(int fd) {
  if (stats_.open.load() < limits_.maxConnections) {
    new HttpConnection(fd, limits_, handler_, stats_, this);
    return;
  }
  stats_.refused.fetch_add(1);
  static const std::string refused = refusedConnectionResponse();
  auto* stream = new FdStream(fd, this);
  stream->onClosed([stream] { stream->deleteLater(); });
  stream->onReadable([stream] {  // the request is not read: drop it until the answer is out
    std::string ignored;
    stream->readInto(ignored, 64 * 1024);
  });
  QTimer::singleShot(1000, stream, [stream] { stream->abort(); });
  stream->write(refused);
  stream->closeAfterFlush();
}

}  // namespace rl
