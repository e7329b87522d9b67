#include "http/front_proxy.hpp"

#include <QElapsedTimer>
#include <QTimer>

#include <algorithm>
#include <chrono>

#include "http/fd_stream.hpp"
#include "http/limit_response.hpp"
#include "http/replica_server.hpp"

namespace rl {

class Upstream;

/// The proxy's state on its thread: idle upstream connections per replica and the round-robin cursor.
class ProxyCore final : public QObject {
 public:
  ProxyCore(const FrontOptions& options, std::atomic<std::int64_t>& errors)
      : options_(options), errors_(errors), idle_(options.replicaPorts.size()) {
    connect(&trim_, &QTimer::timeout, this, [this] { trimIdle(); });
    trim_.start(static_cast<int>(kIdleUpstream.count() / 1000));
    clock_.start();
  }

  void handle(HttpConnection& connection, HttpRequest&& request);
  /// `upstream` answered and may carry the next request.
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
  struct Idle {
    Upstream* upstream;  ///< connected, no request in flight
    qint64 sinceMs;      ///< when it was released (steady ms)
  };

  const FrontOptions& options_;          ///< the front's options
  std::atomic<std::int64_t>& errors_;    ///< 502/504 counter
  std::vector<std::vector<Idle>> idle_;  ///< pooled keep-alive connections per replica, oldest first
  QTimer trim_;                          ///< closes connections idle longer than kIdleUpstream
  QElapsedTimer clock_;                  ///< steady time for `Idle::sinceMs`
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

/// One keep-alive connection to one replica, carrying one request at a time. It lives as
/// long as the connection: no object, timer or signal connection is made per request.
class Upstream final : public QObject {
 public:
  using Steady = std::chrono::steady_clock;

  Upstream(ProxyCore& core, std::size_t replica)
      : QObject(&core), core_(core), replica_(replica),
        stream_(FdStream::connectTo(core.options().upstreamAddress,
                                    core.options().replicaPorts[replica], this)) {
    timer_.setSingleShot(true);
    connect(&timer_, &QTimer::timeout, this, [this] { onTimer(); });
    if (stream_ == nullptr) return;
    stream_->onReadable([this] { onReadable(); });
    stream_->onClosed([this] { onClosed(); });
  }

  std::size_t replica() const { return replica_; }
  bool usable() const { return stream_ != nullptr && stream_->isOpen(); }

  /// Sends `bytes` for `downstream`; the answer (or a 502/504) goes back to it.
  void send(const std::string& bytes, HttpConnection& downstream, bool head, Micros timeout) {
    downstream_ = &downstream;
    head_ = head;
    downstream.onAbandoned([this] { abandon(); });
    armDeadline(timeout);
    if (!usable()) {  // could not even start connecting
      const auto why = stream_ ? stream_->closeError() : std::string("no socket");
      QTimer::singleShot(0, this, [this, why] { fail(502, "is unreachable: " + why); });
      return;
    }
    stream_->write(bytes);
  }

  /// Closes the connection and deletes this later.
  void close() {
    downstream_ = nullptr;
    hasDeadline_ = false;
    if (stream_ != nullptr && stream_->isOpen()) stream_->abort();  // onClosed() tells the core
    else core_.discard(this);
  }

 private:
  void onReadable() {
    if (!stream_->readInto(buffer_, core_.options().limits.message.maxHeaderBytes +
                                        core_.options().limits.message.maxBodyBytes + 4096))
      return;
    if (downstream_ == nullptr) return close();  // an idle upstream must not talk
    HttpResponse response;
    const auto outcome = parseResponse(buffer_, core_.options().limits.message, head_, response);
    if (outcome.state == ParseState::NeedMore) return;
    if (outcome.state == ParseState::Failed) return fail(502, outcome.error);
    const bool reuse = response.keepAlive && outcome.consumed == buffer_.size();
    HttpConnection* client = std::exchange(downstream_, nullptr);
    hasDeadline_ = false;
    if (reuse && client->relayable()) {  // relay the replica's bytes as they are
      client->respondRaw(std::string_view(buffer_).substr(0, outcome.consumed), true);
    } else {
      client->respond(std::move(response));
    }
    buffer_.clear();
    if (reuse) core_.release(this);
    else close();
  }

  void onClosed() {
    if (stream_->connectFailed()) fail(502, "is unreachable: " + stream_->closeError());
    else if (downstream_ != nullptr) fail(502, "closed the connection");
    core_.discard(this);
  }

  void abandon() {  // the client left: free the connection now (a shaped answer may be far off)
    downstream_ = nullptr;
    close();
  }

  void fail(int status, const std::string& what) {
    HttpConnection* client = std::exchange(downstream_, nullptr);
    if (client == nullptr) return;
    core_.errors().fetch_add(1);
    client->respond(errorResponse(status, "replica " + std::to_string(replica_) + " " + what));
    close();
  }

  void armDeadline(Micros after) {
    const auto now = Steady::now();
    deadline_ = now + std::chrono::microseconds(after.count());
    hasDeadline_ = true;
    if (timer_.isActive() && timerDue_ <= deadline_) return;
    startTimer(after, now);
  }

  void startTimer(Micros after, Steady::time_point now) {
    const auto ms = std::max<std::int64_t>(1, ceilMillis(after));
    timer_.start(static_cast<int>(std::min<std::int64_t>(ms, 1 << 30)));
    timerDue_ = now + std::chrono::milliseconds(ms);
  }

  void onTimer() {
    if (!hasDeadline_ || downstream_ == nullptr) return;
    const auto now = Steady::now();
    if (now < deadline_)
      return startTimer(Micros{std::chrono::duration_cast<std::chrono::microseconds>(deadline_ - now).count()}, now);
    fail(504, "did not answer in time");
  }

  ProxyCore& core_;                   ///< the pool
  std::size_t replica_;               ///< target replica
  FdStream* stream_;                  ///< the connection (child); nullptr if it could not be made
  std::string buffer_;                ///< received bytes of the answer in progress
  HttpConnection* downstream_ = nullptr;  ///< the waiting client (cleared if it goes: onAbandoned)
  bool head_ = false;                 ///< HEAD request: no body in the answer
  QTimer timer_;                      ///< fires at or before deadline_
  Steady::time_point deadline_{};     ///< the replica must answer by then
  Steady::time_point timerDue_{};     ///< when timer_ fires
  bool hasDeadline_ = false;          ///< a request is in flight
};

std::string forwardedBytes(const HttpRequest& request, const std::string& peer, const std::string& secret) {
  std::string out;
  out.reserve(128 + request.target.size() + request.body.size() + request.headers.size() * 48);
  out.append(request.method).append(" ").append(request.target).append(" HTTP/1.1\r\n");
  for (const auto& h : request.headers)
    if (!isHopByHop(h.name)) out.append(h.name).append(": ").append(h.value).append("\r\n");
  if (findHeader(request.headers, "host") == nullptr) out.append("Host: ratelab-front\r\n");  // HTTP/1.0 client
  out.append("X-Forwarded-For: ").append(peer).append("\r\n");
  if (!secret.empty()) out.append("X-RateLab-Front: ").append(secret).append("\r\n");
  if (!request.body.empty() && findHeader(request.headers, "content-length") == nullptr)
    out.append("Content-Length: ").append(std::to_string(request.body.size())).append("\r\n");
  out.append("\r\n").append(request.body);
  return out;
}

Upstream* ProxyCore::take(std::size_t replica) {
  auto& pool = idle_[replica];
  while (!pool.empty()) {
    Upstream* u = pool.back().upstream;  // the most recently used: warm, and lets the oldest expire
    pool.pop_back();
    if (u->usable()) return u;
    u->deleteLater();
  }
  return new Upstream(*this, replica);
}

void ProxyCore::release(Upstream* upstream) {
  auto& pool = idle_[upstream->replica()];
  if (static_cast<int>(pool.size()) >= options_.maxIdlePerReplica) return upstream->close();
  pool.push_back({upstream, clock_.elapsed()});
}

void ProxyCore::discard(Upstream* upstream) {
  std::erase_if(idle_[upstream->replica()], [upstream](const Idle& i) { return i.upstream == upstream; });
  upstream->deleteLater();
}

void ProxyCore::trimIdle() {
  const qint64 cutoff = clock_.elapsed() - kIdleUpstream.count() / 1000;
  for (auto& pool : idle_) {
    const auto fresh = std::find_if(pool.begin(), pool.end(), [cutoff](const Idle& i) { return i.sinceMs > cutoff; });
    std::vector<Upstream*> old;
    for (auto it = pool.begin(); it != fresh; ++it) old.push_back(it->upstream);
    pool.erase(pool.begin(), fresh);
    for (auto* u : old) u->close();
  }
}

void ProxyCore::handle(HttpConnection& connection, HttpRequest&& request) {
  const std::size_t replica = next_++ % idle_.size();
  const auto bytes = forwardedBytes(request, connection.peerAddress(), options_.secret);
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
