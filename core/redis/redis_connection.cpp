#include "redis/redis_connection.hpp"

#include "redis/redis_connection_detail.hpp"
#include "redis/sentinel/sentinel_discovery.hpp"
#include "redis/sentinel/sentinel_switches.hpp"

#include <hiredis/hiredis.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <signal.h>
#include <sys/socket.h>
#include <sys/time.h>

namespace rl {

namespace detail {
timeval toTimeval(Micros d) {
  const auto us = std::max<std::int64_t>(d.count(), 1);
  return timeval{static_cast<time_t>(us / 1'000'000), static_cast<suseconds_t>(us % 1'000'000)};
}

bool isTimeout(const redisContext* c) {
  return c && c->err == REDIS_ERR_IO &&
         (std::strcmp(c->errstr, "Resource temporarily unavailable") == 0 || errno == EAGAIN);
}

std::string contextError(const redisContext* c) {
  if (!c) return "cannot allocate a redis context";
  if (c->errstr[0] != '\0') {
    std::string s = c->errstr;
    if (isTimeout(c)) return "timed out (" + s + ")";
    return s;
  }
  return "unknown I/O error";
}

std::vector<std::vector<std::string>> handshakeCommands(const RedisEndpoint& ep) {
  std::vector<std::vector<std::string>> out;
  if (!ep.password.empty())
    out.push_back(ep.user.empty() ? std::vector<std::string>{"AUTH", ep.password}
                                  : std::vector<std::string>{"AUTH", ep.user, ep.password});
  if (ep.db != 0) out.push_back({"SELECT", std::to_string(ep.db)});
  out.push_back({"PING"});
  if (ep.viaSentinel()) out.push_back({"ROLE"});  // the address a Sentinel named must be a master now
  return out;
}

Result<void> checkHandshakeReply(const RedisEndpoint& ep, const std::vector<std::string>& command, ReplyView reply) {
  // A server that wants AUTH we were not given answers PING with NOAUTH: it is
  // alive, and the commands that follow say NOAUTH themselves.
  if (reply.isError() && command[0] == "PING" && reply.str().starts_with("NOAUTH")) return {};
  if (reply.isError())
    return redisReplyError(reply.str(), command[0] + " on " + ep.address() + " refused");
  if (command[0] == "PING" && reply.str() != "PONG")
    return protocolError("PING on " + ep.address() + " answered " + reply.describe() + ", expected PONG");
  if (command[0] == "ROLE" && reply[0].str() != "master")
    return unavailable("ROLE on " + ep.address() + " (named by the Sentinels for '" + ep.sentinelService +
                       "') answered " + std::string(reply[0].str().substr(0, 16)) + ", not master (a failover under way)");
  return {};
}
}  // namespace detail

using detail::contextError;
using detail::toTimeval;

Error redisReplyError(std::string_view text, std::string_view context) {
  const std::string_view word = text.substr(0, text.find(' '));
  ErrorCode code = ErrorCode::Protocol;
  if (word == "OOM")
    code = ErrorCode::OutOfMemory;
  else if (word == "READONLY")
    code = ErrorCode::ReadOnly;
  else if (word == "LOADING" || word == "BUSY" || word == "MASTERDOWN" || word == "TRYAGAIN" ||
           word == "CLUSTERDOWN")
    code = ErrorCode::Unavailable;
  std::string msg = context.empty() ? std::string(text) : std::string(context) + ": " + std::string(text);
  return Error{code, std::move(msg)};
}

namespace {
// Argument arrays for hiredis from string views (no copies of the bytes).
struct ArgvBuf {
  std::vector<const char*> ptrs;
  std::vector<size_t> lens;
  explicit ArgvBuf(std::span<const std::string_view> argv) {
    ptrs.reserve(argv.size());
    lens.reserve(argv.size());
    for (auto a : argv) {
      ptrs.push_back(a.data());
      lens.push_back(a.size());
    }
  }
};

// hiredis writes with write(2): a write to a socket the server reset would
// raise SIGPIPE and kill the process. Ignore it (only if nobody set a handler)
// so that the write fails with EPIPE and becomes an Unavailable error.
void ignoreSigpipeOnce() {
  static const bool done = [] {
    struct sigaction old {};
    if (::sigaction(SIGPIPE, nullptr, &old) == 0 && old.sa_handler == SIG_DFL) ::signal(SIGPIPE, SIG_IGN);
    return true;
  }();
  (void)done;
}

}  // namespace

// ---- ReplyView --------------------------------------------------------------

bool ReplyView::isNil() const { return !r_ || r_->type == REDIS_REPLY_NIL; }
bool ReplyView::isString() const {
  return r_ && (r_->type == REDIS_REPLY_STRING || r_->type == REDIS_REPLY_STATUS);
}
bool ReplyView::isInteger() const { return r_ && r_->type == REDIS_REPLY_INTEGER; }
bool ReplyView::isArray() const { return r_ && r_->type == REDIS_REPLY_ARRAY; }
bool ReplyView::isError() const { return r_ && r_->type == REDIS_REPLY_ERROR; }

std::string_view ReplyView::str() const {
  if (!r_ || !(isString() || isError()) || !r_->str) return {};
  return {r_->str, static_cast<std::size_t>(r_->len)};
}

std::int64_t ReplyView::integer() const { return isInteger() ? r_->integer : 0; }
std::size_t ReplyView::size() const { return isArray() ? r_->elements : 0; }

ReplyView ReplyView::operator[](std::size_t i) const {
  return ReplyView(i < size() ? r_->element[i] : nullptr);
}

std::optional<std::int64_t> ReplyView::toInt() const {
  if (isInteger()) return r_->integer;
  if (!isString()) return std::nullopt;
  const auto s = str();
  std::int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc{} || p != s.data() + s.size()) return std::nullopt;
  return v;
}

std::string ReplyView::describe() const {
  if (!r_) return "(no reply)";
  switch (r_->type) {
    case REDIS_REPLY_NIL: return "(nil)";
    case REDIS_REPLY_INTEGER: return "(integer) " + std::to_string(r_->integer);
    case REDIS_REPLY_ARRAY: return "(array of " + std::to_string(r_->elements) + ")";
    case REDIS_REPLY_ERROR: return "(error) " + std::string(str());
    default: return "\"" + std::string(str().substr(0, 80)) + "\"";
  }
}

// ---- RedisReply ---------------------------------------------------------------

RedisReply::RedisReply(redisReply* r) : ReplyView(r) {}
RedisReply::RedisReply(RedisReply&& o) noexcept : ReplyView(o.r_) { o.r_ = nullptr; }
RedisReply& RedisReply::operator=(RedisReply&& o) noexcept {
  if (this != &o) {
    if (r_) freeReplyObject(const_cast<redisReply*>(r_));
    r_ = o.r_;
    o.r_ = nullptr;
  }
  return *this;
}
RedisReply::~RedisReply() {
  if (r_) freeReplyObject(const_cast<redisReply*>(r_));
}

// ---- RedisConnection ------------------------------------------------------------

RedisConnection::RedisConnection(redisContext* ctx, RedisEndpoint endpoint)
    : ctx_(ctx), endpoint_(std::move(endpoint)), nextSentinelCheck_(std::chrono::steady_clock::now() + kSentinelRecheck) {
  if (endpoint_.viaSentinel()) {
    switches_ = SentinelSwitches::of(endpoint_);
    switchesSeen_ = switches_->switches();
  }
}

RedisConnection::RedisConnection(RedisConnection&& o) noexcept
    : ctx_(std::exchange(o.ctx_, nullptr)),
      endpoint_(std::move(o.endpoint_)),
      reconnects_(o.reconnects_),
      pending_(o.pending_),
      circuit_(std::move(o.circuit_)),
      probe_(std::move(o.probe_)),
      nextSentinelCheck_(o.nextSentinelCheck_),
      switches_(std::move(o.switches_)),
      switchesSeen_(o.switchesSeen_),
      announced_(std::move(o.announced_)) {}

RedisConnection& RedisConnection::operator=(RedisConnection&& o) noexcept {
  if (this != &o) {
    free();
    ctx_ = std::exchange(o.ctx_, nullptr);
    endpoint_ = std::move(o.endpoint_);
    reconnects_ = o.reconnects_;
    pending_ = o.pending_;
    circuit_ = std::move(o.circuit_);
    probe_ = std::move(o.probe_);
    nextSentinelCheck_ = o.nextSentinelCheck_;
    switches_ = std::move(o.switches_);
    switchesSeen_ = o.switchesSeen_;
    announced_ = std::move(o.announced_);
  }
  return *this;
}

RedisConnection::~RedisConnection() { free(); }

void RedisConnection::free() {
  if (ctx_) redisFree(ctx_);
  ctx_ = nullptr;
  pending_ = 0;
}

namespace detail {
Result<void> resolveMasterOf(RedisEndpoint& ep) {
  if (!ep.viaSentinel()) return {};
  auto master = resolveSentinelMaster(ep);
  if (!master) return master.error();
  ep.host = master->first;
  ep.port = master->second;
  return {};
}

// Opens a blocking socket, sets the command timeout, runs the handshake. Owns the context on success.
Result<redisContext*> openContext(const RedisEndpoint& ep) {
  redisContext* c = redisConnectWithTimeout(ep.host.c_str(), ep.port, toTimeval(ep.connectTimeout));
  if (!c || c->err) {
    std::string why = contextError(c);
    if (c) redisFree(c);
    return unavailable("cannot connect to " + ep.address() + ": " + why);
  }
  if (redisSetTimeout(c, toTimeval(ep.commandTimeout)) != REDIS_OK) {
    std::string why = contextError(c);
    redisFree(c);
    return unavailable("cannot set the command timeout on " + ep.address() + ": " + why);
  }
  for (const auto& argv : handshakeCommands(ep)) {
    std::vector<std::string_view> views(argv.begin(), argv.end());
    ArgvBuf buf(views);
    auto* r = static_cast<redisReply*>(
        redisCommandArgv(c, static_cast<int>(argv.size()), buf.ptrs.data(), buf.lens.data()));
    Result<void> ok;
    if (!r)
      ok = Error{isTimeout(c) ? ErrorCode::Timeout : ErrorCode::Unavailable,
                 argv[0] + " on " + ep.address() + " failed: " + contextError(c)};
    else
      ok = checkHandshakeReply(ep, argv, ReplyView(r));
    if (r) freeReplyObject(r);
    if (!ok) {
      redisFree(c);
      return ok.error();
    }
  }
  return c;
}
}  // namespace detail

Result<RedisConnection> RedisConnection::connect(const RedisEndpoint& endpoint) {
  ignoreSigpipeOnce();
  RedisEndpoint ep = endpoint;
  if (auto ok = detail::resolveMasterOf(ep); !ok) return ok.error();
  auto c = detail::openContext(ep);
  if (!c) return c.error();
  return RedisConnection(*c, std::move(ep));
}

bool RedisConnection::connected() const { return ctx_ && ctx_->err == 0; }

std::size_t RedisConnection::bufferedBytes() const {
  return ctx_ && ctx_->reader ? ctx_->reader->len - ctx_->reader->pos : 0;
}

Result<RedisReply> RedisConnection::command(std::span<const std::string_view> argv) {
  if (argv.empty()) return invalidArgument("empty Redis command");
  if (pending_ != 0) return Error{ErrorCode::Internal, "command() while pipelined replies are pending"};
  if (auto ok = ensureConnected(); !ok) return ok.error();
  ArgvBuf buf(argv);
  auto* r = static_cast<redisReply*>(
      redisCommandArgv(ctx_, static_cast<int>(argv.size()), buf.ptrs.data(), buf.lens.data()));
  if (!r) return ioError(argv.front());
  RedisReply reply(r);
  if (reply.isError()) {
    Error e = redisReplyError(reply.str());
    if (e.code == ErrorCode::ReadOnly && endpoint_.viaSentinel()) dropForSentinel(e.message);
    return e;
  }
  return reply;
}

Result<RedisReply> RedisConnection::command(std::initializer_list<std::string_view> argv) {
  return command(std::span<const std::string_view>(argv.begin(), argv.size()));
}

Result<RedisReply> RedisConnection::command(const std::vector<std::string>& argv) {
  std::vector<std::string_view> views(argv.begin(), argv.end());
  return command(std::span<const std::string_view>(views));
}

Result<void> RedisConnection::append(std::span<const std::string_view> argv) {
  if (argv.empty()) return invalidArgument("empty Redis command");
  if (pending_ == 0)
    if (auto ok = ensureConnected(); !ok) return ok.error();
  if (!ctx_) return unavailable("not connected to " + endpoint_.address() + " (" + circuit_.lastError() + ")");
  ArgvBuf buf(argv);
  if (redisAppendCommandArgv(ctx_, static_cast<int>(argv.size()), buf.ptrs.data(), buf.lens.data()) !=
      REDIS_OK)
    return ioError(argv.front());
  ++pending_;
  return {};
}

Result<void> RedisConnection::append(std::initializer_list<std::string_view> argv) {
  return append(std::span<const std::string_view>(argv.begin(), argv.size()));
}

Result<RedisReply> RedisConnection::getReply() {
  if (!ctx_) return unavailable("not connected to " + endpoint_.address() + " (" + circuit_.lastError() + ")");
  if (pending_ == 0) return Error{ErrorCode::Internal, "getReply() with no queued command"};
  void* r = nullptr;
  if (redisGetReply(ctx_, &r) != REDIS_OK || !r) return ioError("pipelined command");
  --pending_;
  return RedisReply(static_cast<redisReply*>(r));
}

// ---- non-blocking use ------------------------------------------------------------

int RedisConnection::fd() const { return ctx_ && ctx_->err == 0 ? ctx_->fd : -1; }

Result<void> RedisConnection::flush() {
  if (!ctx_) return unavailable("not connected to " + endpoint_.address() + " (" + circuit_.lastError() + ")");
  int done = 0;
  while (!done)
    if (redisBufferWrite(ctx_, &done) != REDIS_OK) return ioError("flush");
  return {};
}

Result<std::optional<RedisReply>> RedisConnection::replyFromReader() {
  void* r = nullptr;
  if (redisGetReplyFromReader(ctx_, &r) != REDIS_OK) return ioError("reading a reply");
  if (!r) return std::optional<RedisReply>{};
  --pending_;
  return std::optional<RedisReply>{RedisReply(static_cast<redisReply*>(r))};
}

Result<std::optional<RedisReply>> RedisConnection::tryGetReply() {
  if (!ctx_) return unavailable("not connected to " + endpoint_.address() + " (" + circuit_.lastError() + ")");
  if (pending_ == 0) return Error{ErrorCode::Internal, "tryGetReply() with no queued command"};
  auto buffered = replyFromReader();
  if (!buffered || buffered->has_value()) return buffered;
  // redisBufferRead would block on this (blocking) socket: the same read, with MSG_DONTWAIT.
  char buf[16 * 1024];
  const ssize_t n = ::recv(ctx_->fd, buf, sizeof buf, MSG_DONTWAIT);
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return std::optional<RedisReply>{};
  if (n <= 0) {
    const std::string why = n == 0 ? "Server closed the connection" : std::strerror(errno);
    std::snprintf(ctx_->errstr, sizeof ctx_->errstr, "%s", why.c_str());
    ctx_->err = REDIS_ERR_IO;
    return ioError("reading a reply");
  }
  if (redisReaderFeed(ctx_->reader, buf, static_cast<size_t>(n)) != REDIS_OK) return ioError("reading a reply");
  return replyFromReader();
}

Result<std::optional<RedisReply>> RedisConnection::tryGetMessage() {
  ++pending_;  // a pushed message is a reply nobody queued a command for
  auto r = tryGetReply();
  if (!r || !r->has_value()) pending_ = std::max(0, pending_ - 1);
  return r;
}

}  // namespace rl
