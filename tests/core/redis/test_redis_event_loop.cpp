// Driving many hiredis connections from one thread without blocking:
// RedisConnection::fd(), flush(), tryGetReply() and pending(), against a
// private redis-server. Exact reply counts and the counter left in Redis.

#include <QtTest>

#include <poll.h>

#include <optional>
#include <set>
#include <vector>

#include "redis/redis_connection.hpp"
#include "support/redis_test_server.hpp"

using namespace rl;

class RedisEventLoopTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase();
  void manyConnectionsFromOneThread_data();
  void manyConnectionsFromOneThread();
  void tryGetReplyNeverWaits();
  void errorReplyKeepsThePipelineInStep();
  void closedByServerIsUnavailable();

 private:
  std::unique_ptr<test::RedisTestServer> redis_;
};

namespace {
constexpr int kNoHangMs = 10'000;  // generous "no hang" bound for one poll()

// Waits until `c` has something to read (or the bound passes).
bool waitReadable(const RedisConnection& c) {
  pollfd p{c.fd(), POLLIN, 0};
  return ::poll(&p, 1, kNoHangMs) == 1;
}
}  // namespace

void RedisEventLoopTest::initTestCase() {
  redis_ = std::make_unique<test::RedisTestServer>();
  RL_REQUIRE_REDIS(*redis_);
}

void RedisEventLoopTest::manyConnectionsFromOneThread_data() {
  QTest::addColumn<int>("connections");
  QTest::addColumn<int>("inFlight");
  QTest::addColumn<int>("perConnection");
  QTest::newRow("50 x 1 in flight") << 50 << 1 << 200;
  QTest::newRow("50 x 16 in flight") << 50 << 16 << 400;
  QTest::newRow("3 x 1000 in flight") << 3 << 1000 << 3000;
}

// Every connection INCRs one shared counter `perConnection` times, keeping
// `inFlight` commands outstanding, all from this thread with poll(): every
// reply arrives exactly once and the counter ends at the exact total.
void RedisEventLoopTest::manyConnectionsFromOneThread() {
  QFETCH(int, connections);
  QFETCH(int, inFlight);
  QFETCH(int, perConnection);
  const std::string key = "ev:counter:" + std::to_string(connections) + "x" + std::to_string(inFlight);
  std::vector<RedisConnection> conns;
  std::vector<int> sent(static_cast<std::size_t>(connections), 0);
  for (int i = 0; i < connections; ++i) {
    auto c = redis_->connect();
    QVERIFY2(c.ok(), c.ok() ? "" : c.error().message.c_str());
    conns.push_back(std::move(c.value()));
  }
  auto topUp = [&](std::size_t i) {
    bool queued = false;
    for (; sent[i] < perConnection && conns[i].pending() < inFlight; ++sent[i], queued = true)
      if (!conns[i].append({"INCR", key})) return false;
    return !queued || conns[i].flush().ok();
  };
  for (std::size_t i = 0; i < conns.size(); ++i) QVERIFY(topUp(i));
  std::set<std::int64_t> values;  // each INCR result exactly once: no reply lost or doubled
  std::int64_t replies = 0;
  std::vector<pollfd> fds(conns.size());
  while (true) {
    nfds_t n = 0;
    std::vector<std::size_t> index;
    for (std::size_t i = 0; i < conns.size(); ++i)
      if (conns[i].pending() > 0) {
        fds[n++] = pollfd{conns[i].fd(), POLLIN, 0};
        index.push_back(i);
      }
    if (n == 0) break;
    QVERIFY2(::poll(fds.data(), n, kNoHangMs) > 0, "no connection became readable");
    for (nfds_t k = 0; k < n; ++k) {
      if (fds[k].revents == 0) continue;
      RedisConnection& c = conns[index[k]];
      while (c.pending() > 0) {
        auto r = c.tryGetReply();
        QVERIFY2(r.ok(), r.ok() ? "" : r.error().message.c_str());
        if (!r->has_value()) break;
        QVERIFY((*r)->isInteger());
        values.insert((*r)->integer());
        ++replies;
      }
      QVERIFY(topUp(index[k]));
    }
  }
  const std::int64_t total = std::int64_t{connections} * perConnection;
  QCOMPARE(replies, total);
  QCOMPARE(static_cast<std::int64_t>(values.size()), total);
  QCOMPARE(*values.begin(), std::int64_t{1});
  QCOMPARE(*values.rbegin(), total);
  auto counter = conns[0].command({"GET", key});  // blocking use works again once pending() is 0
  QVERIFY(counter.ok());
  QCOMPARE(counter->toInt(), std::optional<std::int64_t>(total));
}

// A command the server holds (BLPOP with no timeout): tryGetReply() returns
// "nothing yet" at once, however often it is asked, and the reply when it comes.
void RedisEventLoopTest::tryGetReplyNeverWaits() {
  auto waiter = redis_->connect();
  auto pusher = redis_->connect();
  QVERIFY(waiter.ok() && pusher.ok());
  QVERIFY(waiter->fd() >= 0);
  QVERIFY(waiter->append({"BLPOP", "ev:list", "0"}));
  QVERIFY(waiter->flush());
  for (int i = 0; i < 100; ++i) {
    auto r = waiter->tryGetReply();
    QVERIFY(r.ok());
    QVERIFY(!r->has_value());
  }
  QCOMPARE(waiter->pending(), 1);
  QVERIFY(pusher->command({"RPUSH", "ev:list", "x"}));
  std::optional<RedisReply> reply;
  while (!reply) {
    QVERIFY(waitReadable(*waiter));
    auto r = waiter->tryGetReply();
    QVERIFY(r.ok());
    reply = std::move(r.value());
  }
  QCOMPARE(reply->size(), std::size_t{2});
  QCOMPARE((*reply)[0].str(), std::string_view("ev:list"));
  QCOMPARE((*reply)[1].str(), std::string_view("x"));
  QCOMPARE(waiter->pending(), 0);
  auto none = waiter->tryGetReply();
  QVERIFY(!none.ok());
  QCOMPARE(none.error().code, ErrorCode::Internal);
}

// An error reply is a reply: the command after it still gets its own answer.
void RedisEventLoopTest::errorReplyKeepsThePipelineInStep() {
  auto c = redis_->connect();
  QVERIFY(c.ok());
  QVERIFY(c->command({"SET", "ev:text", "abc"}));
  QVERIFY(c->append({"INCR", "ev:text"}));
  QVERIFY(c->append({"INCRBY", "ev:step", "7"}));
  QVERIFY(c->flush());
  std::vector<RedisReply> got;
  while (got.size() < 2) {
    QVERIFY(waitReadable(*c));
    for (auto r = c->tryGetReply(); r.ok() && r->has_value(); r = c->tryGetReply()) {
      got.push_back(std::move(**r));
      if (c->pending() == 0) break;
    }
  }
  QVERIFY(got[0].isError());
  QVERIFY(got[0].str().find("not an integer") != std::string_view::npos);
  QCOMPARE(got[1].integer(), std::int64_t{7});
}

// The server closing the socket is an Unavailable value naming the address;
// the connection then reports fd() -1 and reconnects on the next command.
void RedisEventLoopTest::closedByServerIsUnavailable() {
  auto c = redis_->connect();
  QVERIFY(c.ok());
  QVERIFY(c->command({"CLIENT", "SETNAME", "ev-victim"}));
  auto killer = redis_->connect();
  QVERIFY(killer.ok());
  QVERIFY(c->append({"BLPOP", "ev:never", "0"}));
  QVERIFY(c->flush());
  auto killed = killer->command({"CLIENT", "KILL", "SKIPME", "yes", "TYPE", "normal"});
  QVERIFY(killed.ok());
  QVERIFY(killed->integer() >= 1);
  QVERIFY(waitReadable(*c));
  auto r = c->tryGetReply();
  QVERIFY(!r.ok());
  QCOMPARE(r.error().code, ErrorCode::Unavailable);
  QVERIFY2(r.error().message.find(redis_->endpoint().address()) != std::string::npos, r.error().message.c_str());
  QCOMPARE(c->fd(), -1);
  QCOMPARE(c->pending(), 0);
  QVERIFY(!c->connected());
  QVERIFY(c->command({"PING"}));
  QCOMPARE(c->reconnects(), std::int64_t{1});
}

QTEST_GUILESS_MAIN(RedisEventLoopTest)
#include "test_redis_event_loop.moc"
