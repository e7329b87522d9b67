#pragma once
// AsyncLuaDecider: redis-lua decisions through hiredis' async API on the
// replica's Qt event loop. Every request is one EVALSHA written at once (the
// event loop batches what is queued into one write), so many decisions are
// in flight on one connection and Redis answers them in order.
//
// Failures keep the synchronous store's contract, per request:
//   - NOSCRIPT: the request is re-sent as EVAL, the scripts are loaded again;
//   - a command not answered within the command timeout breaks the connection:
//     every request in flight is answered Unavailable at that moment;
//   - while the connection is down, requests fail fast (Unavailable) until a
//     reconnect (backoff 10 ms doubling to 1 s) and a PING probe succeed: a
//     stopped server whose kernel still accepts connections does not count as up.
// So every request is answered within the command timeout, whatever Redis does.
//
// Threading: made, used and destroyed on one thread with a Qt event loop.

#include <QObject>
#include <QTimer>

#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>

#include "http/replica_decider.hpp"
#include "redis/redis_store.hpp"
#include "store/circuit_breaker.hpp"

struct redisAsyncContext;

namespace rl {

class AsyncRedisLink;

/// See the file comment.
class AsyncLuaDecider final : public QObject, public ReplicaDecider {
 public:
  /// Takes the endpoint, prefix, clock and script SHAs of `store` (connected and loaded).
  static Result<std::unique_ptr<AsyncLuaDecider>> make(const RedisLuaStore& store);
  ~AsyncLuaDecider() override;

  void decide(const DecisionRequest& request, Done done) override;
  /// Commands sent and not answered yet.
  std::size_t inFlight() const { return inflight_.size(); }

  struct Call;  ///< one command in flight (internal)
  /// hiredis' reply hook (internal): `reply` null when the context goes away.
  void onReplyFrom(redisAsyncContext* ac, Call* call, void* reply);

 private:
  explicit AsyncLuaDecider(const RedisLuaStore& store);
  void connectNow();
  void send(Call* call);
  void finish(Call* call, Result<Decision> result);
  void breakConnection(const std::string& why);
  void onConnected(const redisAsyncContext* ac, int status);
  void onGone(const redisAsyncContext* ac, const std::string& why);
  void checkDeadline();
  void scheduleReconnect();
  void loadScripts();

  enum class State { Up, Probing, Down };
  RedisStoreOptions options_;            ///< endpoint, prefix, clock
  std::string sha_[6];                   ///< script SHA1 per algorithm
  redisAsyncContext* ctx_ = nullptr;     ///< null while down
  std::unique_ptr<AsyncRedisLink> link_; ///< the context's socket notifiers
  State state_ = State::Down;            ///< circuit state
  std::deque<Call*> inflight_;           ///< sent, in reply order (oldest first)
  QTimer deadline_;                      ///< fires when the oldest call may have timed out
  QTimer reconnect_;                     ///< the backoff
  CircuitBreaker circuit_{std::chrono::milliseconds{10}, std::chrono::milliseconds{1000}};  ///< the backoff schedule
  std::string lastError_;                ///< why the connection is down
  int loadsPending_ = 0;                 ///< SCRIPT LOADs in flight (one reload at a time)
};

}  // namespace rl
