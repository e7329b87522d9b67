#include "http/async_lua_decider.hpp"

#include <QSocketNotifier>

#include <hiredis/async.h>
#include <hiredis/hiredis.h>

#include <algorithm>
#include <array>

#include "redis/lua_reply.hpp"
#include "redis/lua_scripts.hpp"

namespace rl {

using SteadyClock = std::chrono::steady_clock;

/// hiredis' event hooks on Qt socket notifiers (our own glue: no moc, no string connects).
class AsyncRedisLink final : public QObject {
 public:
  explicit AsyncRedisLink(redisAsyncContext* c) : c_(c) {
    c->ev.data = this;
    c->ev.addRead = [](void* p) { static_cast<AsyncRedisLink*>(p)->watch(read_of(p), QSocketNotifier::Read, true); };
    c->ev.delRead = [](void* p) { static_cast<AsyncRedisLink*>(p)->watch(read_of(p), QSocketNotifier::Read, false); };
    c->ev.addWrite = [](void* p) { static_cast<AsyncRedisLink*>(p)->watch(write_of(p), QSocketNotifier::Write, true); };
    c->ev.delWrite = [](void* p) { static_cast<AsyncRedisLink*>(p)->watch(write_of(p), QSocketNotifier::Write, false); };
    c->ev.cleanup = [](void* p) { static_cast<AsyncRedisLink*>(p)->cleanup(); };
  }

 private:
  static QSocketNotifier*& read_of(void* p) { return static_cast<AsyncRedisLink*>(p)->read_; }
  static QSocketNotifier*& write_of(void* p) { return static_cast<AsyncRedisLink*>(p)->write_; }

  void watch(QSocketNotifier*& n, QSocketNotifier::Type type, bool on) {
    if (c_ == nullptr) return;
    if (n == nullptr) {
      if (!on) return;
      n = new QSocketNotifier(c_->c.fd, type, this);
      const bool reading = type == QSocketNotifier::Read;
      connect(n, &QSocketNotifier::activated, this, [this, reading] {
        if (c_ == nullptr) return;
        if (reading) redisAsyncHandleRead(c_);
        else redisAsyncHandleWrite(c_);
      });
    }
    n->setEnabled(on);
  }

  // The context is being freed: stop watching (the notifier may be emitting right now).
  void cleanup() {
    c_ = nullptr;
    for (QSocketNotifier** n : {&read_, &write_}) {
      if (*n == nullptr) continue;
      (*n)->setEnabled(false);
      (*n)->deleteLater();
      *n = nullptr;
    }
  }

  redisAsyncContext* c_;             ///< null once hiredis cleaned up
  QSocketNotifier* read_ = nullptr;  ///< child
  QSocketNotifier* write_ = nullptr; ///< child
};

struct AsyncLuaDecider::Call {
  enum class Kind { Decide, Probe, Setup, Load };
  Kind kind = Kind::Decide;           ///< what the reply is for
  AsyncLuaDecider* owner = nullptr;   ///< the decider
  Done done;                          ///< Decide: the answer's receiver
  Algorithm algorithm = Algorithm::TokenBucket;  ///< Decide: which script
  Quota quota;                        ///< Decide: for parsing the reply
  std::vector<std::string> args;      ///< Decide: KEYS then ARGV; else the command
  std::size_t numKeys = 0;            ///< Decide: how many of `args` are KEYS
  std::string base;                   ///< Decide: the client's base key (window keys are named from it)
  int attempts = 1;                   ///< Decide: sends so far (RL_WINDOW asks again)
  SteadyClock::time_point sent;       ///< first sent (the deadline counts from here)
  bool viaEval = false;               ///< re-sent as EVAL after NOSCRIPT
};

namespace {

void onReplyHook(redisAsyncContext* ac, void* reply, void* data) {
  auto* call = static_cast<AsyncLuaDecider::Call*>(data);
  call->owner->onReplyFrom(ac, call, reply);
}

int toMillis(std::chrono::microseconds d) {
  return static_cast<int>(std::max<std::int64_t>(1, (d.count() + 999) / 1000));
}

}  // namespace

Result<std::unique_ptr<AsyncLuaDecider>> AsyncLuaDecider::make(const RedisLuaStore& store) {
  std::unique_ptr<AsyncLuaDecider> d(new AsyncLuaDecider(store));
  d->connectNow();
  if (d->ctx_ == nullptr) return unavailable("cannot connect to " + store.options().endpoint.address() + ": " + d->lastError_);
  d->state_ = State::Up;  // just reached synchronously: requests may queue behind the probe
  return d;
}

AsyncLuaDecider::AsyncLuaDecider(const RedisLuaStore& store) : options_(store.options()) {
  for (Algorithm a : kAllAlgorithms) sha_[static_cast<int>(a)] = store.scriptSha(a);
  deadline_.setSingleShot(true);
  deadline_.setTimerType(Qt::PreciseTimer);
  reconnect_.setSingleShot(true);
  connect(&deadline_, &QTimer::timeout, this, [this] { checkDeadline(); });
  connect(&reconnect_, &QTimer::timeout, this, [this] { connectNow(); });
}

AsyncLuaDecider::~AsyncLuaDecider() {
  reconnect_.stop();
  if (ctx_ != nullptr) {
    auto* c = std::exchange(ctx_, nullptr);
    lastError_ = "the replica is stopping";
    redisAsyncFree(c);  // answers every call in flight (Unavailable)
  }
}

void AsyncLuaDecider::connectNow() {
  const auto& e = options_.endpoint;
  redisAsyncContext* c = redisAsyncConnect(e.host.c_str(), e.port);
  if (c == nullptr || c->err) {
    lastError_ = c ? c->errstr : "out of memory";
    if (c) redisAsyncFree(c);
    return scheduleReconnect();
  }
  c->data = this;
  link_ = std::make_unique<AsyncRedisLink>(c);
  redisAsyncSetConnectCallback(c, [](const redisAsyncContext* ac, int status) {
    static_cast<AsyncLuaDecider*>(ac->data)->onConnected(ac, status);
  });
  redisAsyncSetDisconnectCallback(c, [](const redisAsyncContext* ac, int) {
    static_cast<AsyncLuaDecider*>(ac->data)->onGone(ac, ac->errstr[0] ? ac->errstr : "connection closed");
  });
  ctx_ = c;
  state_ = State::Probing;
  auto command = [this](Call::Kind kind, std::initializer_list<std::string> words) {
    auto* call = new Call;
    call->kind = kind;
    call->owner = this;
    call->args.assign(words.begin(), words.end());
    send(call);
  };
  if (!e.password.empty()) {
    if (e.user.empty()) command(Call::Kind::Setup, {"AUTH", e.password});
    else command(Call::Kind::Setup, {"AUTH", e.user, e.password});
  }
  if (e.db != 0) command(Call::Kind::Setup, {"SELECT", std::to_string(e.db)});
  command(Call::Kind::Probe, {"PING"});
}

void AsyncLuaDecider::send(Call* call) {
  if (call->sent == SteadyClock::time_point{}) call->sent = SteadyClock::now();
  std::vector<const char*> argv;
  std::vector<std::size_t> lens;
  auto word = [&](std::string_view w) {
    argv.push_back(w.data());
    lens.push_back(w.size());
  };
  const std::string numKeys = std::to_string(call->numKeys);
  if (call->kind == Call::Kind::Decide) {
    word(call->viaEval ? "EVAL" : "EVALSHA");
    word(call->viaEval ? luaScript(call->algorithm) : std::string_view(sha_[static_cast<int>(call->algorithm)]));
    word(numKeys);
  }
  for (const auto& a : call->args) word(a);
  const int argc = static_cast<int>(argv.size());
  if (ctx_ == nullptr ||
      redisAsyncCommandArgv(ctx_, onReplyHook, call, argc, argv.data(), lens.data()) != REDIS_OK) {
    return finish(call, unavailable("Redis connection is down: " + lastError_));
  }
  inflight_.push_back(call);
  if (!deadline_.isActive()) deadline_.start(toMillis(options_.endpoint.commandTimeout));
}

void AsyncLuaDecider::decide(const DecisionRequest& request, Done done) {
  if (auto ok = validateScriptRequest(request, options_.serverClock); !ok) return done(ok.error());
  if (ctx_ == nullptr || state_ != State::Up)
    return done(unavailable("Redis at " + options_.endpoint.address() + " is unreachable (" + lastError_ +
                            "): retrying in the background"));
  auto* call = new Call;
  call->owner = this;
  call->done = std::move(done);
  call->algorithm = request.algorithm;
  call->quota = request.quota;
  call->base = limiterKey(options_.prefix, request.algorithm, request.client);
  ScriptCall sc = scriptCall(request, call->base, options_.serverClock);
  call->numKeys = sc.keys.size();
  call->args = std::move(sc.keys);
  call->args.insert(call->args.end(), sc.argv.begin(), sc.argv.end());
  send(call);
}

void AsyncLuaDecider::onReplyFrom(redisAsyncContext* ac, Call* call, void* raw) {
  if (auto it = std::find(inflight_.begin(), inflight_.end(), call); it != inflight_.end()) inflight_.erase(it);
  const auto* reply = static_cast<const redisReply*>(raw);
  if (reply == nullptr) {  // the context is going away (freed by us or by hiredis)
    onGone(ac, lastError_.empty() ? "connection lost" : lastError_);
    return finish(call, unavailable("Redis at " + options_.endpoint.address() + ": " + lastError_));
  }
  const ReplyView view(reply);
  if (call->kind == Call::Kind::Decide) {
    if (view.isError() && view.str().starts_with("NOSCRIPT") && !call->viaEval) {
      call->viaEval = true;  // the server lost its scripts: run the source, load them again
      loadScripts();
      return send(call);
    }
    if (view.isError()) {
      if (auto start = scriptWindowOf(view.str()); start && call->attempts < kWindowAttempts) {
        ++call->attempts;  // the server's clock is in another window: name that one's keys
        const ScriptCall again =
            scriptCall(DecisionRequest{call->algorithm, {}, call->quota, 1, Micros{0}}, call->base, true, *start);
        std::copy(again.keys.begin(), again.keys.end(), call->args.begin());
        return send(call);
      }
      return finish(call, redisReplyError(view.str()));
    }
    return finish(call, parseLuaDecision(view, call->algorithm, call->quota));
  }
  if (call->kind == Call::Kind::Probe && !view.isError()) {
    state_ = State::Up;
    circuit_.succeeded();
  } else if (view.isError() && call->kind != Call::Kind::Load) {
    breakConnection(std::string(view.str()));
  }
  finish(call, Result<Decision>(Decision{}));
}

void AsyncLuaDecider::finish(Call* call, Result<Decision> result) {
  if (call->kind == Call::Kind::Load) loadsPending_ = std::max(0, loadsPending_ - 1);
  auto done = std::move(call->done);
  delete call;
  if (done) done(std::move(result));  // last: it may re-enter decide()
}

void AsyncLuaDecider::onGone(const redisAsyncContext* ac, const std::string& why) {
  if (ac != ctx_ || ctx_ == nullptr) return;  // an older context, or already handled
  ctx_ = nullptr;
  lastError_ = why;
  state_ = State::Down;
  if (link_) link_.release()->deleteLater();  // hiredis still calls its cleanup hook
  scheduleReconnect();
}

void AsyncLuaDecider::onConnected(const redisAsyncContext* ac, int status) {
  if (status != REDIS_OK) onGone(ac, ac->errstr[0] ? ac->errstr : "connect failed");
}

void AsyncLuaDecider::breakConnection(const std::string& why) {
  if (ctx_ == nullptr) return;
  auto* c = ctx_;
  onGone(c, why);
  redisAsyncFree(c);  // every call in flight is answered Unavailable (deferred when inside a callback)
}

void AsyncLuaDecider::checkDeadline() {
  if (inflight_.empty()) return;
  const auto timeout = std::chrono::duration_cast<std::chrono::microseconds>(options_.endpoint.commandTimeout);
  const auto age = std::chrono::duration_cast<std::chrono::microseconds>(SteadyClock::now() - inflight_.front()->sent);
  if (age >= timeout) {
    breakConnection("no answer within " + std::to_string(toMillis(timeout)) + " ms");
    if (!inflight_.empty() && !deadline_.isActive()) deadline_.start(toMillis(timeout));
    return;
  }
  deadline_.start(toMillis(timeout - age));
}

void AsyncLuaDecider::scheduleReconnect() {
  if (reconnect_.isActive()) return;
  circuit_.failed(lastError_);
  reconnect_.start(std::chrono::milliseconds{circuit_.msUntilNextAttempt()});
}

void AsyncLuaDecider::loadScripts() {
  if (loadsPending_ > 0 || ctx_ == nullptr) return;
  for (Algorithm a : kAllAlgorithms) {
    auto* call = new Call;
    call->kind = Call::Kind::Load;
    call->owner = this;
    call->args = {"SCRIPT", "LOAD", std::string(luaScript(a))};
    ++loadsPending_;
    send(call);
  }
}

}  // namespace rl
