#include "http/http_listener.hpp"

#include <QHostAddress>

#include <sys/socket.h>
#include <unistd.h>

#include <chrono>

#include "http/acceptor.hpp"
#include "http/client_identity.hpp"
#include "http/fd_stream.hpp"
#include "http/limit_response.hpp"

namespace rl {
namespace {

// A client that does not read its answers is not read from past this much queued output.
constexpr std::size_t kMaxPendingWrite = 1 << 20;

std::int64_t steadyMicros() {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

/// The peer address of an accepted socket ("127.0.0.1"), as FdStream::peerAddress() gives it.
std::string peerOf(int fd) {
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  if (::getpeername(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) return {};
  return addressText(QHostAddress(reinterpret_cast<const sockaddr*>(&addr)));
}

}  // namespace

std::string refusedConnectionResponse(int perAddressCap) {
  auto r = errorResponse(503, perAddressCap > 0 ? "too many open connections from your address (most " +
                                                      std::to_string(perAddressCap) + "): try again later"
                                                : std::string("too many open connections: try again later"));
  r.set("Retry-After", "1");
  r.keepAlive = false;
  return r.serialize();
}

HttpConnection::HttpConnection(int fd, std::string peer, bool counted, HttpListener& listener)
    : QObject(&listener), listener_(listener), stream_(new FdStream(fd, this)), limits_(listener.limits_),
      handler_(listener.handler_), stats_(listener.stats_), peer_(std::move(peer)), counted_(counted),
      maxBuffer_(limits_.message.maxHeaderBytes + limits_.message.maxBodyBytes + 4096) {
  stats_.open.fetch_add(1);
  stats_.accepted.fetch_add(1);
  listener_.opened(*this);
  stream_->onReadable([this] { onReadable(); });
  stream_->onDrained([this] { processBuffer(); });
  stream_->onClosed([this] { deleteLater(); });
  enter(Phase::Idle);
}

HttpConnection::~HttpConnection() {
  stats_.open.fetch_sub(1);
  listener_.closed(*this);
  if (auto f = std::move(abandoned_)) f();
}

bool HttpConnection::reclaimable(bool reserved) const {
  if (front_ || !slots_.empty() || !stream_->isOpen()) return false;
  if (phase_ == Phase::Idle) return true;
  return reserved && phase_ == Phase::Partial && !answered_;  // a direct client's first request
}

void HttpConnection::enter(Phase phase) {
  phase_ = phase;
  if (phase == Phase::Idle) idleSince_ = steadyMicros();
  switch (phase) {
    case Phase::Idle: deadline_.setIn(answered_ ? limits_.idleTimeout : limits_.requestLineTimeout); break;
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
      const bool line = buffer_.find('\n') != std::string::npos;
      if (phase_ == Phase::Idle && !answered_ && !line) {
        phase_ = Phase::Partial;  // the request line's deadline (set at accept) still runs
        awaitingLine_ = true;
      } else if (phase_ == Phase::Idle || (awaitingLine_ && line)) {
        awaitingLine_ = false;
        enter(Phase::Partial);
      }
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
    awaitingLine_ = false;
    if (!front_ && !listener_.frontSecret_.empty()) {  // a reserved listener: is it the front?
      const auto* sent = findHeader(request.headers, kFrontSecretHeader);
      if (sent != nullptr && sameSecret(*sent, listener_.frontSecret_)) {
        front_ = true;
        if (counted_) listener_.uncount(peer_);
        counted_ = false;
      } else if (!counted_ && !listener_.countLate(*this)) {
        stats_.refused.fetch_add(1);
        stats_.refusedPerAddress.fetch_add(1);
        stream_->write(refusedConnectionResponse(limits_.maxPerAddress));
        close();
        break;
      }
    }
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
      if (awaitingLine_)
        fail(408, "request line not received within " + std::to_string(ceilMillis(limits_.requestLineTimeout)) +
                      " ms");
      else
        fail(408, "request not completed within " + std::to_string(ceilMillis(limits_.headerTimeout)) + " ms");
      break;
    case Phase::Busy: break;
    case Phase::Closing: stream_->abort(); deleteLater(); break;
  }
}

HttpListener::HttpListener(HttpServerLimits limits, HttpHandler handler)
    : limits_(std::move(limits)), handler_(std::move(handler)),
      acceptor_(std::make_unique<Acceptor>([this](int fd) { accept(fd); },
                                           [this] {
                                             stats_.outOfDescriptors.fetch_add(1);
                                             reclaimOne();  // frees a descriptor if one is idle
                                           })) {}

HttpListener::~HttpListener() {
  acceptor_->close();
  // Connections (children) decrement stats_ when they die: delete them while stats_ exists
  // (~QObject would delete them only after the members are gone).
  const auto children = this->children();
  for (QObject* child : children)
    if (child != acceptor_.get()) delete child;
}

Result<int> HttpListener::listen(const std::string& address, int port) { return acceptor_->listen(address, port); }

void HttpListener::opened(HttpConnection& c) {
  c.entry_ = live_.insert(live_.end(), &c);
}

void HttpListener::closed(HttpConnection& c) {
  if (c.entry_ != live_.end()) live_.erase(c.entry_);
  c.entry_ = live_.end();
  if (c.counted_) uncount(c.peer_);
}

void HttpListener::uncount(const std::string& peer) {
  const auto it = perAddress_.find(peer);
  if (it != perAddress_.end() && --it->second <= 0) perAddress_.erase(it);
}

bool HttpListener::countLate(HttpConnection& c) {
  if (exempt_ && exempt_(c.peer_)) return true;
  int& n = perAddress_[c.peer_];
  if (limits_.maxPerAddress > 0 && n >= limits_.maxPerAddress) {
    if (n == 0) perAddress_.erase(c.peer_);
    return false;
  }
  ++n;
  c.counted_ = true;
  return true;
}

bool HttpListener::reclaimOne() {
  const bool reserved = !frontSecret_.empty();
  // A connection accepted in this pass may look idle with its request still in the kernel:
  // read it first (it is then no longer idle) and look again, a bounded number of times.
  for (int look = 0; look < 64; ++look) {
    HttpConnection* oldest = nullptr;
    for (HttpConnection* c : live_)
      if (c->reclaimable(reserved) && (oldest == nullptr || c->idleSince_ < oldest->idleSince_)) oldest = c;
    if (oldest == nullptr) return false;
    if (oldest->stream_->pendingInput() > 0) {
      oldest->onReadable();
      continue;
    }
    live_.erase(oldest->entry_);
    oldest->entry_ = live_.end();
    stats_.reclaimed.fetch_add(1);
    oldest->stream_->abort();  // the descriptor is free now; the object goes with the event loop
    return true;
  }
  return false;
}

void HttpListener::accept(int fd) {
  const std::string peer = peerOf(fd);
  // A public listener counts each address at accept; a reserved one at the first request.
  const bool countNow = frontSecret_.empty() && limits_.maxPerAddress > 0 && !(exempt_ && exempt_(peer));
  if (countNow) {
    const auto it = perAddress_.find(peer);
    if (it != perAddress_.end() && it->second >= limits_.maxPerAddress) return refuse(fd, true);
  }
  if (stats_.open.load() >= limits_.maxConnections && !reclaimOne()) return refuse(fd, false);
  if (countNow) ++perAddress_[peer];
  new HttpConnection(fd, peer, countNow, *this);
}

void HttpListener::refuse(int fd, bool perAddress) {
  stats_.refused.fetch_add(1);
  if (perAddress) stats_.refusedPerAddress.fetch_add(1);
  const std::string refused = refusedConnectionResponse(perAddress ? limits_.maxPerAddress : 0);
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
