#include "http/front_proxy.hpp"

#include <QElapsedTimer>
#include <QTimer>

#include <algorithm>
#include <chrono>
#include <deque>

#include "http/fd_stream.hpp"
#include "http/lazy_deadline.hpp"
#include "http/limit_response.hpp"
#include "http/replica_server.hpp"

namespace rl {

class Upstream;

/// The proxy's state on its thread: idle upstream connections per replica and the round-robin cursor.
class ProxyCore final : public QObject {
 public:
  ProxyCore(const FrontOptions& options, std::atomic<std::int64_t>& errors)
      : options_(options), errors_(errors), conns_(options.replicaPorts.size()) {
    connect(&trim_, &QTimer::timeout, this, [this] { trimIdle(); });
    trim_.start(static_cast<int>(kIdleUpstream.count() / 1000));
    clock_.start();
  }

  void handle(HttpConnection& connection, HttpRequest&& request);
  /// `upstream` answered everything it carried.
  void release(Upstream* upstream);
  /// `upstream` closed: forget it if pooled, and delete it later.
  void discard(Upstream* upstream);
  std::atomic<std::int64_t>& errors() { return errors_; }
  const FrontOptions& options() const { return options_; }

 private:
  Upstream* take(std::size_t replica);
  void trimIdle();

  /// Pooled upstream connections unused this long are closed (the pool shrinks after a peak).
  static constexpr Micros kIdleUpstream{2'000'000};

  const FrontOptions& options_;                ///< the front's options
  std::atomic<std::int64_t>& errors_;          ///< 502/504 counter
  std::vector<std::vector<Upstream*>> conns_;  ///< keep-alive connections per replica (children)
  QTimer trim_;                                ///< closes connections idle longer than kIdleUpstream
  QElapsedTimer clock_;                        ///< steady time for `Upstream::idleSinceMs`
  std::size_t next_ = 0;                 ///< round-robin cursor
};

namespace {

bool isHopByHop(std::string_view name) {
  for (const auto* h : {"connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding",
                        "upgrade", "x-forwarded-for", "expect", "x-ratelab-front"})
    if (equalsIgnoreCase(name, h)) return true;
  return false;
}

}  // namespace

/// One keep-alive connection to one replica. It carries one request at a time, or up to
/// the front's pipeline depth when the replicas answer at once (answers come back in
/// order). It lives as long as the connection: nothing is allocated, armed or connected
/// per request beyond the queue entry.
class Upstream final : public QObject {
 public:
  using Steady = std::chrono::steady_clock;

  Upstream(ProxyCore& core, std::size_t replica)
      : QObject(&core), core_(core), replica_(replica),
        stream_(FdStream::connectTo(core.options().upstreamAddress,
                                    core.options().replicaPorts[replica], this)) {
    if (stream_ == nullptr) return;
    stream_->onReadable([this] { onReadable(); });
    stream_->onClosed([this] { onClosed(); });
  }

  std::size_t replica() const { return replica_; }
  bool usable() const { return !closing_ && stream_ != nullptr && stream_->isOpen(); }
  /// Requests sent and not answered yet.
  std::size_t inFlight() const { return waiting_.size(); }
  /// When the last answer came back (steady ms of the core's clock).
  qint64 idleSinceMs = 0;

  /// Sends `bytes` for `client`; the answer (or a 502/504) goes back to it.
  void send(std::string_view bytes, HttpConnection& client, bool head, Micros timeout) {
    const auto now = Steady::now();
    waiting_.push_back({&client, head, now + std::chrono::microseconds(timeout.count())});
    client.onAbandoned([this, c = &client] { abandon(c); });
    if (waiting_.size() == 1) deadline_.setAt(waiting_.front().deadline);
    if (!usable()) {  // could not even start connecting
      const auto why = stream_ ? stream_->closeError() : std::string("no socket");
      QTimer::singleShot(0, this, [this, why] { failAll(502, "is unreachable: " + why); });
      return;
    }
    stream_->write(bytes);
  }

  /// Closes the connection and deletes this later (requests in flight are not answered).
  void close() {
    closing_ = true;
    waiting_.clear();
    deadline_.clear();
    if (stream_ != nullptr && stream_->isOpen()) stream_->abort();  // onClosed() tells the core
    else core_.discard(this);
  }

 private:
  struct Waiting {
    HttpConnection* client;          ///< null once the client left
    bool head;                       ///< HEAD request: no body in the answer
    Steady::time_point deadline;     ///< the replica must answer by then
  };

  void onReadable() {
    const auto& limits = core_.options().limits.message;
    if (!stream_->readInto(buffer_, limits.maxHeaderBytes + limits.maxBodyBytes + 4096)) return;
    if (waiting_.empty()) return close();  // an idle upstream must not talk
    std::size_t used = 0;
    while (!waiting_.empty() && used < buffer_.size()) {
      ResponseFrame frame;  // framing only: the usual answer is relayed byte for byte
      const bool head = waiting_.front().head;
      const auto outcome = scanResponse(std::string_view(buffer_).substr(used), limits, head, frame);
      if (outcome.state == ParseState::NeedMore) break;
      if (outcome.state == ParseState::Failed) return failAll(502, outcome.error);
      const auto bytes = std::string_view(buffer_).substr(used, outcome.consumed);
      used += outcome.consumed;
      HttpConnection* client = waiting_.front().client;
      waiting_.pop_front();
      if (client != nullptr && frame.keepAlive && client->relayable()) {
        client->respondRaw(bytes, true);  // the replica's bytes as they are
      } else if (client != nullptr) {  // rewritten for the client (closing, or HEAD)
        HttpResponse response;
        parseResponse(bytes, limits, head, response);
        client->respond(std::move(response));
      }
      if (!frame.keepAlive) return failAll(502, "closed the connection");
    }
    buffer_.erase(0, used);
    if (!waiting_.empty()) return deadline_.setAt(waiting_.front().deadline);
    deadline_.clear();
    if (!buffer_.empty()) return close();  // bytes nobody asked for
    core_.release(this);
  }

  void onClosed() {
    if (stream_->connectFailed()) failAll(502, "is unreachable: " + stream_->closeError());
    else failAll(502, "closed the connection");
    core_.discard(this);
  }

  // The client left: free the connection now if it carries only this request (a shaped
  // answer may be far off); otherwise its answer is dropped when it comes.
  void abandon(HttpConnection* client) {
    if (waiting_.size() == 1 && waiting_.front().client == client) return close();
    for (auto& w : waiting_)
      if (w.client == client) w.client = nullptr;
  }

  void failAll(int status, const std::string& what) {
    closing_ = true;  // an answer below may start the client's next request: not on this connection
    auto waiting = std::move(waiting_);
    waiting_.clear();
    for (const auto& w : waiting) {
      if (w.client == nullptr) continue;
      core_.errors().fetch_add(1);
      w.client->respond(errorResponse(status, "replica " + std::to_string(replica_) + " " + what));
    }
    close();
  }

  ProxyCore& core_;                ///< the pool
  std::size_t replica_;            ///< target replica
  FdStream* stream_;               ///< the connection (child); nullptr if it could not be made
  std::string buffer_;             ///< received bytes not yet relayed
  std::deque<Waiting> waiting_;    ///< requests in flight, oldest first (answers come in this order)
  LazyDeadline deadline_{[this] { failAll(504, "did not answer in time"); }};  ///< the oldest request's
  bool closing_ = false;           ///< being closed: takes no more requests
};

std::string forwardedBytes(const HttpRequest& request, const std::string& peer, const std::string& secret) {
  std::string out;
  appendForwarded(out, request, peer, secret);
  return out;
}

void appendForwarded(std::string& out, const HttpRequest& request, const std::string& peer, const std::string& secret) {
  out.reserve(out.size() + 128 + request.target.size() + request.body.size() + request.headers.size() * 48);
  out.append(request.method).append(" ").append(request.target).append(" HTTP/1.1\r\n");
  for (const auto& h : request.headers)
    if (!isHopByHop(h.name)) out.append(h.name).append(": ").append(h.value).append("\r\n");
  if (findHeader(request.headers, "host") == nullptr) out.append("Host: ratelab-front\r\n");  // HTTP/1.0 client
  out.append("X-Forwarded-For: ").append(peer).append("\r\n");
  if (!secret.empty()) out.append("X-RateLab-Front: ").append(secret).append("\r\n");
  if (!request.body.empty() && findHeader(request.headers, "content-length") == nullptr)
    out.append("Content-Length: ").append(std::to_string(request.body.size())).append("\r\n");
  out.append("\r\n").append(request.body);
}

// The fullest usable connection with room: requests to one replica pack onto as few
// connections as they fit on, so those read in one pass leave in one send (and wake the
// replica once); connections left over after a peak go idle and are trimmed.
Upstream* ProxyCore::take(std::size_t replica) {
  auto& conns = conns_[replica];
  const auto depth = static_cast<std::size_t>(std::max(1, options_.pipelineDepth));
  Upstream* best = nullptr;
  for (Upstream* u : conns)
    if (u->usable() && u->inFlight() < depth && (best == nullptr || u->inFlight() > best->inFlight())) best = u;
  if (best != nullptr) return best;
  // At most as many upstream connections as downstream ones (each downstream connection has
  // one request in flight): over that, the connection idle longest goes first. This bounds
  // the front's descriptors (ServeCluster's budget counts on it).
  std::size_t total = 0;
  for (const auto& c : conns_) total += c.size();
  if (total >= static_cast<std::size_t>(std::max(1, options_.limits.maxConnections))) {
    Upstream* oldest = nullptr;
    for (const auto& c : conns_)
      for (Upstream* u : c)
        if (u->inFlight() == 0 && (oldest == nullptr || u->idleSinceMs < oldest->idleSinceMs)) oldest = u;
    if (oldest != nullptr) oldest->close();  // discard() removes it from conns_
  }
  conns.push_back(new Upstream(*this, replica));
  return conns.back();
}

void ProxyCore::release(Upstream* upstream) {
  upstream->idleSinceMs = clock_.elapsed();
  const auto& conns = conns_[upstream->replica()];
  const auto idle = std::count_if(conns.begin(), conns.end(), [](const Upstream* u) { return u->inFlight() == 0; });
  if (idle > options_.maxIdlePerReplica) upstream->close();
}

void ProxyCore::discard(Upstream* upstream) {
  std::erase(conns_[upstream->replica()], upstream);
  upstream->deleteLater();
}

void ProxyCore::trimIdle() {
  const qint64 cutoff = clock_.elapsed() - kIdleUpstream.count() / 1000;
  for (auto& conns : conns_) {
    std::vector<Upstream*> old;
    for (Upstream* u : conns)
      if (u->inFlight() == 0 && u->idleSinceMs <= cutoff) old.push_back(u);
    for (Upstream* u : old) u->close();  // discard() removes it from conns
  }
}

void ProxyCore::handle(HttpConnection& connection, HttpRequest&& request) {
  const std::size_t replica = next_++ % conns_.size();
  thread_local std::string bytes;  // reused: no allocation per request
  bytes.clear();
  appendForwarded(bytes, request, connection.peerAddress(), options_.secret);
  take(replica)->send(bytes, connection, request.method == "HEAD", options_.upstreamTimeout);
}

FrontProxy::FrontProxy(FrontOptions options) : options_(std::move(options)), thread_("rl-front") {}

FrontProxy::~FrontProxy() {
  thread_.runBlocking([this] {
    listener_.reset();
    core_.reset();
  });
}

Result<std::unique_ptr<FrontProxy>> FrontProxy::start(FrontOptions options) {
  if (options.replicaPorts.empty()) return invalidArgument("the front needs at least one replica");
  if (auto app = requireEventLoops(); !app) return app.error();
  std::unique_ptr<FrontProxy> front(new FrontProxy(std::move(options)));
  FrontProxy* f = front.get();
  Result<int> bound = Error{ErrorCode::Internal, "front did not start"};
  f->thread_.runBlocking([f, &bound] {
    f->core_ = std::make_unique<ProxyCore>(f->options_, f->upstreamErrors_);
    ProxyCore* core = f->core_.get();
    f->listener_ = std::make_unique<HttpListener>(
        f->options_.limits, [core](HttpConnection& c, HttpRequest&& r) { core->handle(c, std::move(r)); });
    bound = f->listener_->listen(f->options_.bindAddress, f->options_.port);
  });
  if (!bound) return bound.error();
  f->port_ = *bound;
  return front;
}

std::string FrontProxy::url() const { return httpUrl(options_.bindAddress, port_); }

const ListenerStats& FrontProxy::listenerStats() const { return listener_->stats(); }

}  // namespace rl
