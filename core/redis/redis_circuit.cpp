// RedisConnection's circuit breaker: fail fast while open, one non-blocking
// half-open probe (connect + handshake + PING) after each backoff, closed
// again only by a PONG. See the file comment of redis_connection.hpp.
#include <fcntl.h>
#include <poll.h>

#include <algorithm>

#include "redis/redis_connection.hpp"
#include "redis/redis_connection_detail.hpp"
#include "redis/sentinel/sentinel_discovery.hpp"
#include "redis/sentinel/sentinel_switches.hpp"

namespace rl {

namespace {
using SteadyClock = std::chrono::steady_clock;
// The longest a call waits for a probe's PONG (capped by the command timeout): a
// live server on a busy machine answers within it, a stopped one costs this per probe.
constexpr Micros kProbeWait{20'000};

// Makes a probe's non-blocking context a blocking one with the command timeout.
Result<void> makeBlocking(redisContext* c, const RedisEndpoint& ep) {
  const int flags = ::fcntl(c->fd, F_GETFL);
  if (flags < 0 || ::fcntl(c->fd, F_SETFL, flags & ~O_NONBLOCK) < 0)
    return unavailable("cannot make the socket to " + ep.address() + " blocking");
  c->flags |= REDIS_BLOCK;
  if (redisSetTimeout(c, detail::toTimeval(ep.commandTimeout)) != REDIS_OK)
    return unavailable("cannot set the command timeout on " + ep.address() + ": " + detail::contextError(c));
  return {};
}

enum class ProbeState { Pending, Done };

// Writes what is queued and reads what arrived, waiting at most `wait`.
Result<ProbeState> pumpProbe(RedisConnection::Probe& p, const RedisEndpoint& ep, Micros wait) {
  const auto until = SteadyClock::now() + wait;
  while (true) {
    pollfd pfd{p.ctx->fd, static_cast<short>(POLLIN | (p.written ? 0 : POLLOUT)), 0};
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - SteadyClock::now()).count();
    const int n = ::poll(&pfd, 1, static_cast<int>(std::max<std::int64_t>(left, 0)));
    if (n <= 0) return ProbeState::Pending;
    if (!p.written) {
      int done = 0;
      if (redisBufferWrite(p.ctx, &done) != REDIS_OK)
        return unavailable("cannot connect to " + ep.address() + ": " + detail::contextError(p.ctx));
      p.written = done != 0;
    }
    if (pfd.revents & (POLLIN | POLLHUP | POLLERR)) {
      if (redisBufferRead(p.ctx) != REDIS_OK)
        return unavailable("cannot connect to " + ep.address() + ": " + detail::contextError(p.ctx));
      while (p.replies < p.commands.size()) {
        void* r = nullptr;
        if (redisGetReply(p.ctx, &r) != REDIS_OK)
          return unavailable("reading from " + ep.address() + ": " + detail::contextError(p.ctx));
        if (!r) break;
        RedisReply reply(static_cast<redisReply*>(r));
        if (auto ok = detail::checkHandshakeReply(ep, p.commands[p.replies], reply); !ok) return ok.error();
        ++p.replies;
      }
      if (p.replies == p.commands.size()) return ProbeState::Done;
    }
    if (SteadyClock::now() >= until) return ProbeState::Pending;
  }
}
}  // namespace

void RedisConnection::openCircuit(std::string why) {
  probe_.reset();
  circuit_.failed(std::move(why));
}

Error RedisConnection::ioError(std::string_view what) {
  if (ctx_ && ctx_->err == REDIS_ERR_PROTOCOL) {
    // The server answered, but with a reply hiredis cannot read (e.g. nested deeper than 7 levels):
    // not an outage. The connection is out of step and is dropped; the next command reconnects.
    Error e{ErrorCode::Protocol, std::string(what) + " on " + endpoint_.address() +
                                     ": the reply could not be read (" + detail::contextError(ctx_) + ")"};
    free();
    return e;
  }
  const bool timedOut = detail::isTimeout(ctx_);
  const std::string why = detail::contextError(ctx_);
  Error e{timedOut ? ErrorCode::Timeout : ErrorCode::Unavailable,
          std::string(what) + " on " + endpoint_.address() + " failed: " + why};
  free();  // a broken or timed-out socket cannot be reused: replies would desynchronise
  if (timedOut || circuit_.open()) {
    openCircuit(why);
  } else {  // a plain I/O error on a working connection (a restarted server): probe at once
    circuit_.failedRetryNow(why);
  }
  return e;
}

void RedisConnection::dropForSentinel(const std::string& why) {
  free();
  probe_.reset();
  circuit_.failedRetryNow(why);  // ask the Sentinels again at the next call
}

Result<void> RedisConnection::reconnect() {
  free();
  probe_.reset();
  if (auto ok = detail::resolveMasterOf(endpoint_); !ok) {
    openCircuit(ok.error().message);
    return ok.error();
  }
  auto c = detail::openContext(endpoint_);
  if (!c) {
    openCircuit(c.error().message);
    return c.error();
  }
  ctx_ = *c;
  ++reconnects_;
  circuit_.succeeded();
  return {};
}

Result<void> RedisConnection::runProbe(Micros wait) {
  auto state = pumpProbe(*probe_, endpoint_, wait);
  if (!state) {
    openCircuit(state.error().message);
    return unavailable("circuit open to " + endpoint_.address() + " (" + circuit_.lastError() + "); next probe in " +
                       std::to_string(circuit_.msUntilNextAttempt()) + " ms");
  }
  if (*state == ProbeState::Pending) {
    if (SteadyClock::now() < probe_->deadline)
      return unavailable("circuit half-open to " + endpoint_.address() + ": waiting for PONG (" + circuit_.lastError() + ")");
    openCircuit("no PONG within the command timeout (" + std::to_string(endpoint_.commandTimeout.count() / 1000) +
                " ms): is the server stopped?");
    return unavailable("circuit open to " + endpoint_.address() + " (" + circuit_.lastError() + ")");
  }
  if (auto ok = makeBlocking(probe_->ctx, endpoint_); !ok) {
    openCircuit(ok.error().message);
    return ok.error();
  }
  ctx_ = std::exchange(probe_->ctx, nullptr);
  probe_.reset();
  ++reconnects_;
  circuit_.succeeded();
  return {};
}

Result<void> RedisConnection::ensureConnected() {
  const bool announced = switches_ && switches_->switches() != switchesSeen_;  // +switch-master since the last call
  if (connected() && !announced && !(endpoint_.viaSentinel() && SteadyClock::now() >= nextSentinelCheck_)) return {};
  if (announced) {
    switchesSeen_ = switches_->switches();
    if (auto to = switches_->announced(); to && (to->first != endpoint_.host || to->second != endpoint_.port)) {
      announced_ = to;
      if (connected())
        dropForSentinel("the Sentinels announced +switch-master to " + to->first + ":" + std::to_string(to->second));
    }
    if (connected()) return {};  // announced where it already is
  } else if (connected()) {  // Sentinel: has the master moved (a SENTINEL FAILOVER leaves the old one up)?
    nextSentinelCheck_ = SteadyClock::now() + kSentinelRecheck;
    auto master = resolveSentinelMaster(endpoint_);
    if (!master || (master->first == endpoint_.host && master->second == endpoint_.port)) return {};
    dropForSentinel("the Sentinels name " + master->first + ":" + std::to_string(master->second) + " now");
  }
  if (probe_) return runProbe(Micros{0});
  if (circuit_.coolingOff())
    return unavailable("circuit open to " + endpoint_.address() + " (" + circuit_.lastError() + "); next probe in " +
                       std::to_string(circuit_.msUntilNextAttempt()) + " ms");
  free();
  if (announced_) {  // Sentinel: first where +switch-master said (the handshake checks ROLE; else ask next time)
    endpoint_.host = announced_->first;
    endpoint_.port = announced_->second;
    announced_.reset();
  } else if (auto ok = detail::resolveMasterOf(endpoint_); !ok) {  // Sentinel: where the master is now
    openCircuit(ok.error().message);
    return unavailable(ok.error().message);
  }
  auto probe = std::make_unique<Probe>();
  probe->ctx = redisConnectNonBlock(endpoint_.host.c_str(), endpoint_.port);
  if (!probe->ctx || probe->ctx->err) {
    const std::string why = "cannot connect to " + endpoint_.address() + ": " + detail::contextError(probe->ctx);
    openCircuit(why);
    return unavailable(why);
  }
  probe->commands = detail::handshakeCommands(endpoint_);
  for (const auto& argv : probe->commands) {
    std::vector<const char*> ptrs;
    std::vector<size_t> lens;
    for (const auto& a : argv) {
      ptrs.push_back(a.data());
      lens.push_back(a.size());
    }
    redisAppendCommandArgv(probe->ctx, static_cast<int>(argv.size()), ptrs.data(), lens.data());
  }
  probe->deadline = SteadyClock::now() + endpoint_.commandTimeout;
  probe_ = std::move(probe);
  return runProbe(std::min(kProbeWait, endpoint_.commandTimeout));
}

}  // namespace rl
