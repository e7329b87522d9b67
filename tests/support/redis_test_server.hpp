#pragma once
// RedisTestServer: every Redis-using test gets its own private redis-server on
// a free loopback port in a temp dir (never :6379, never a shared server), and
// fails with a clear message when redis-server is not installed.
//
//   class MyTest : public QObject { ...
//     std::unique_ptr<rl::test::RedisTestServer> redis_;
//     void initTestCase() { redis_ = std::make_unique<rl::test::RedisTestServer>();
//                           RL_REQUIRE_REDIS(*redis_); }
//   };
//   ... rl::RedisConnection c = redis_->connect(); redis_->endpoint() ...

#include <QtTest>

#include <string>
#include <utility>

#include "redis/managed_redis_server.hpp"
#include "redis/redis_connection.hpp"
#include "redis/redis_store.hpp"

namespace rl::test {

/// A private redis-server for one test executable; stopped and removed on destruction.
class RedisTestServer {
 public:
  /// Starts redis-server (extra command-line arguments optional); check ok().
  explicit RedisTestServer(std::vector<std::string> extraArgs = {}) {
    ManagedServerOptions options;
    options.extraArgs = std::move(extraArgs);
    auto s = ManagedRedisServer::start(options);
    if (s) {
      server_.emplace(std::move(s).value());
    } else {
      error_ = "cannot start a private redis-server for this test: " + s.error().message;
    }
  }
  /// True when the server runs.
  bool ok() const { return server_.has_value(); }
  /// Why it did not start.
  const std::string& error() const { return error_; }
  /// The managed server (stop / restart for outage tests).
  ManagedRedisServer& server() { return *server_; }
  /// 127.0.0.1:<port>, default timeouts.
  RedisEndpoint endpoint() const { return server_->endpoint(); }
  /// A new connection; QVERIFY its ok() in the test.
  Result<RedisConnection> connect() const { return RedisConnection::connect(endpoint()); }
  /// Options for makeRedisStore on this server: own key prefix, 2 s command
  /// timeout (a busy CI machine is not an outage), server or client clock.
  RedisStoreOptions storeOptions(std::string prefix, bool serverClock = true) const {
    RedisStoreOptions o;
    o.endpoint = endpoint();
    o.endpoint.commandTimeout = Micros{2'000'000};
    o.prefix = std::move(prefix);
    o.serverClock = serverClock;
    return o;
  }

 private:
  std::optional<ManagedRedisServer> server_;  ///< empty when start failed
  std::string error_;                         ///< start failure, for the test log
};

}  // namespace rl::test

/// Fails the current test function with the server's start error.
#define RL_REQUIRE_REDIS(s) QVERIFY2((s).ok(), (s).error().c_str())
