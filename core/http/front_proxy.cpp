#include "http/front_proxy.hpp"

#include <QElapsedTimer>
#include <QHostAddress>
#include <QPointer>
#include <QTcpSocket>
#include <QTimer>

#include <algorithm>

#include "http/limit_response.hpp"
#include "http/replica_server.hpp"

namespace rl {

/// The proxy's state on its thread: idle upstream connections per replica and the round-robin cursor.
class ProxyCore final : public QObject {
 public:
  ProxyCore(const FrontOptions& options, std::atomic<std::int64_t>& errors)
      : options_(options), errors_(errors), idle_(options.replicaPorts.size()),
        upstream_(QString::fromStdString(options.upstreamAddress)) {
    connect(&trim_, &QTimer::timeout, this, [this] { trimIdle(); });
    trim_.start(static_cast<int>(kIdleUpstream.count() / 1000));
  }

  void handle(HttpConnection& connection, HttpRequest&& request);
  void release(std::size_t replica, QTcpSocket* socket);
  std::atomic<std::int64_t>& errors() { return errors_; }

 private:
  QTcpSocket* take(std::size_t replica);
  void trimIdle();
  static void drop(QTcpSocket* socket);

  /// Pooled upstream connections unused this long are closed (the pool shrinks after a peak).
  static constexpr Micros kIdleUpstream{2'000'000};
  struct Idle {
    QTcpSocket* socket;  ///< connected, no request in flight
    qint64 sinceMs;      ///< when it was released (steady ms)
  };

  const FrontOptions& options_;                    ///< the front's options
  std::atomic<std::int64_t>& errors_;              ///< 502/504 counter
  std::vector<std::vector<Idle>> idle_;            ///< pooled keep-alive sockets per replica, oldest first
  QTimer trim_;                                    ///< closes sockets idle longer than kIdleUpstream
  QElapsedTimer clock_;                            ///< steady time for `Idle::sinceMs`
  std::size_t next_ = 0;                           ///< round-robin cursor
  QHostAddress upstream_;                          ///< replicas' address
};

namespace {

bool isHopByHop(std::string_view name) {
  for (const auto* h : {"connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding",
                        "upgrade", "x-forwarded-for", "expect", "x-ratelab-front"})
    if (equalsIgnoreCase(name, h)) return true;
  return false;
}

/// One request in flight to one replica; deletes itself when answered.
class UpstreamCall final : public QObject {
 public:
  UpstreamCall(ProxyCore& core, std::size_t replica, QTcpSocket* socket, HttpConnection& downstream,
               bool head, const HttpLimits& limits)
      : QObject(&core), core_(core), replica_(replica), socket_(socket), downstream_(&downstream),
        head_(head), limits_(limits) {}

  void send(const std::string& bytes, Micros timeout) {
    // The client left: free the upstream connection now (a shaped answer may be far off).
    connect(downstream_.data(), &QObject::destroyed, this, [this] { abandon(); });
    connect(socket_, &QTcpSocket::readyRead, this, [this] { onReadable(); });
    connect(socket_, &QTcpSocket::disconnected, this, [this] { fail(502, "closed the connection"); });
    connect(socket_, &QTcpSocket::errorOccurred, this,
            [this] { fail(502, "is unreachable: " + socket_->errorString().toStdString()); });
    timer_.setSingleShot(true);
    connect(&timer_, &QTimer::timeout, this, [this] { fail(504, "did not answer in time"); });
    timer_.start(static_cast<int>(std::max<std::int64_t>(1, ceilMillis(timeout))));
    socket_->write(bytes.data(), static_cast<qint64>(bytes.size()));
  }

 private:
  void onReadable() {
    appendAvailable(*socket_, buffer_);
    HttpResponse response;
    const auto outcome = parseResponse(buffer_, limits_, head_, response);
    if (outcome.state == ParseState::NeedMore) return;
    if (outcome.state == ParseState::Failed) return fail(502, outcome.error);
    const bool reuse = response.keepAlive && outcome.consumed == buffer_.size();
    if (reuse && downstream_ && downstream_->relayable()) {  // relay the replica's bytes as they are
      done_ = true;
      timer_.stop();
      QObject::disconnect(socket_, nullptr, this, nullptr);
      core_.release(replica_, socket_);
      downstream_->respondRaw(std::string_view(buffer_).substr(0, outcome.consumed), true);
      deleteLater();
      return;
    }
    finish(std::move(response), reuse);
  }

  void abandon() {
    if (done_) return;
    done_ = true;
    timer_.stop();
    QObject::disconnect(socket_, nullptr, this, nullptr);
    socket_->abort();
    socket_->deleteLater();
    deleteLater();
  }

  void fail(int status, const std::string& what) {
    if (done_) return;
    core_.errors().fetch_add(1);
    finish(errorResponse(status, "replica " + std::to_string(replica_) + " " + what), false);
  }

  void finish(HttpResponse response, bool reuse) {
    done_ = true;
    timer_.stop();
    QObject::disconnect(socket_, nullptr, this, nullptr);
    if (reuse) {
      core_.release(replica_, socket_);
    } else {
      socket_->abort();
      socket_->deleteLater();
    }
    if (downstream_) downstream_->respond(std::move(response));
    deleteLater();
  }

  ProxyCore& core_;                      ///< the pool
  std::size_t replica_;                  ///< target replica
  QTcpSocket* socket_;                   ///< upstream connection (owned by core_)
  QPointer<HttpConnection> downstream_;  ///< the waiting client, if still connected
  bool head_;                            ///< HEAD request: no body in the answer
  const HttpLimits& limits_;             ///< response size limits
  std::string buffer_;                   ///< received bytes
  QTimer timer_;                         ///< upstream deadline
  bool done_ = false;                    ///< answered
};

}  // namespace

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

QTcpSocket* ProxyCore::take(std::size_t replica) {
  auto& pool = idle_[replica];
  while (!pool.empty()) {
    QTcpSocket* s = pool.back().socket;  // the most recently used: warm, and lets the oldest expire
    pool.pop_back();
    QObject::disconnect(s, nullptr, this, nullptr);
    if (s->state() == QAbstractSocket::ConnectedState) return s;
    drop(s);
  }
  auto* s = new QTcpSocket(this);
  s->connectToHost(upstream_, static_cast<quint16>(options_.replicaPorts[replica]));
  s->setSocketOption(QAbstractSocket::LowDelayOption, 1);
  return s;
}

void ProxyCore::drop(QTcpSocket* socket) {
  socket->abort();
  socket->deleteLater();
}

void ProxyCore::release(std::size_t replica, QTcpSocket* socket) {
  auto& pool = idle_[replica];
  if (static_cast<int>(pool.size()) >= options_.maxIdlePerReplica) return drop(socket);
  if (!clock_.isValid()) clock_.start();
  pool.push_back({socket, clock_.elapsed()});
  const auto remove = [this, replica, socket] {
    auto& p = idle_[replica];
    std::erase_if(p, [socket](const Idle& i) { return i.socket == socket; });
    QObject::disconnect(socket, nullptr, this, nullptr);
    drop(socket);
  };
  connect(socket, &QTcpSocket::disconnected, this, remove);
  connect(socket, &QTcpSocket::readyRead, this, remove);  // an idle upstream must not talk
}

void ProxyCore::trimIdle() {
  if (!clock_.isValid()) return;
  const qint64 cutoff = clock_.elapsed() - kIdleUpstream.count() / 1000;
  for (auto& pool : idle_) {
    const auto fresh = std::find_if(pool.begin(), pool.end(), [cutoff](const Idle& i) { return i.sinceMs > cutoff; });
    for (auto it = pool.begin(); it != fresh; ++it) {
      QObject::disconnect(it->socket, nullptr, this, nullptr);
      drop(it->socket);
    }
    pool.erase(pool.begin(), fresh);
  }
}

void ProxyCore::handle(HttpConnection& connection, HttpRequest&& request) {
  const std::size_t replica = next_++ % idle_.size();
  const auto bytes = forwardedBytes(request, connection.peerAddress(), options_.secret);
  auto* call = new UpstreamCall(*this, replica, take(replica), connection, request.method == "HEAD",
                                options_.limits.message);
  call->send(bytes, options_.upstreamTimeout);
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
