// The serve hot path (issue 13): the builtin front pipelines requests to
// replicas that hold no answer back, and only to those; answers still reach
// the right client, in order, with exact counts; a shaped (leaky-bucket)
// answer never holds up another client's; a redis-lua replica decides a
// connection's pipelined requests together and answers them in order.

#include <QElapsedTimer>
#include <QTcpSocket>
#include <QtTest>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "http/event_thread.hpp"
#include "http/http_client.hpp"
#include "http/http_listener.hpp"
#include "http/limit_response.hpp"
#include "http/serve_cluster.hpp"
#include "http_test_support.hpp"
#include "redis_test_server.hpp"

using namespace rl;
using namespace rl::test;

class ServePipeliningTest : public QObject {
  Q_OBJECT
 private slots:
  void pipelinedOnlyWhereNoAnswerIsHeld();
  void manyPipelinedClientsGetTheirOwnAnswers_data();
  void manyPipelinedClientsGetTheirOwnAnswers();
  void shapedAnswerHoldsUpNoOtherClient();
  void answersLeaveInRequestOrder();
  void idleDeadlineFollowsTheLastAnswer();
};

void ServePipeliningTest::pipelinedOnlyWhereNoAnswerIsHeld() {
  ServeOptions o;
  o.quota = Quota::perSecond(1).withBurst(10);
  o.replicas = 2;
  auto memory = ServeCluster::start(o, memoryFactory());
  QVERIFY(memory.ok());
  QVERIFY((*memory)->pipelinable());
  o.algorithm = Algorithm::LeakyBucket;  // shaped answers wait in the replica
  auto leaky = ServeCluster::start(o, memoryFactory());
  QVERIFY(leaky.ok());
  QVERIFY(!(*leaky)->pipelinable());
  o.algorithm = Algorithm::TokenBucket;
  o.allowClientOverrides = true;  // a request may pick leaky_bucket
  auto overrides = ServeCluster::start(o, memoryFactory());
  QVERIFY(overrides.ok());
  QVERIFY(!(*overrides)->pipelinable());
  RedisTestServer redis;
  RL_REQUIRE_REDIS(redis);
  o.allowClientOverrides = false;
  auto lua = ServeCluster::start(o, redisLuaFactory(redis.endpoint(), "pl:"));
  QVERIFY2(lua.ok(), lua.ok() ? "" : lua.error().message.c_str());
  QVERIFY((*lua)->pipelinable());  // answers come back from Redis later, but none is held back
}

void ServePipeliningTest::manyPipelinedClientsGetTheirOwnAnswers_data() {
  QTest::addColumn<bool>("redisLua");
  QTest::newRow("memory") << false;
  QTest::newRow("redis-lua") << true;
}

void ServePipeliningTest::manyPipelinedClientsGetTheirOwnAnswers() {
  // One replica, token_bucket 10 (one token a minute back): 24 clients at once, each
  // pipelining 12 requests with its own key in one write through the front. Each must get
  // its own 12 answers in order: remaining 9..0, then two 429s, all naming its key.
  QFETCH(bool, redisLua);
  ServeOptions o;
  o.quota = Quota::perMinute(1).withBurst(10);
  o.replicas = 1;
  std::unique_ptr<RedisTestServer> redis;
  if (redisLua) {
    redis = std::make_unique<RedisTestServer>();
    RL_REQUIRE_REDIS(*redis);
  }
  auto cluster = ServeCluster::start(o, redisLua ? redisLuaFactory(redis->endpoint(), "pp:") : memoryFactory());
  QVERIFY2(cluster.ok(), cluster.ok() ? "" : cluster.error().message.c_str());
  QVERIFY((*cluster)->pipelinable());
  const int port = QUrl(QString::fromStdString((*cluster)->frontUrl())).port();
  constexpr int kClients = 24;
  constexpr int kRequests = 12;
  std::vector<QByteArray> received(kClients);
  std::vector<std::thread> threads;
  for (int c = 0; c < kClients; ++c) {
    threads.emplace_back([c, port, &received] {
      QByteArray bytes;
      for (int i = 0; i < kRequests; ++i) {
        bytes += "GET /ping HTTP/1.1\r\nHost: a\r\nx-api-key: c" + QByteArray::number(c) + "\r\n";
        if (i == kRequests - 1) bytes += "Connection: close\r\n";
        bytes += "\r\n";
      }
      received[static_cast<std::size_t>(c)] = rawExchange(port, bytes, 20'000).received;
    });
  }
  for (auto& t : threads) t.join();
  for (int c = 0; c < kClients; ++c) {
    const auto& r = received[static_cast<std::size_t>(c)];
    QCOMPARE(r.count("HTTP/1.1 "), kRequests);
    QCOMPARE(r.count("\"client\":\"key:c" + QByteArray::number(c) + "\""), kRequests);
    qsizetype at = 0;
    for (int i = 0; i < kRequests; ++i) {  // in order
      const QByteArray want = i < 10 ? "\"remaining\":" + QByteArray::number(9 - i) + "," : QByteArray("\"status\":\"rate_limited\"");
      const auto next = r.indexOf(want, at);
      QVERIFY2(next >= at, qPrintable(QString("client %1 answer %2: %3").arg(c).arg(i).arg(QString::fromLatin1(r))));
      at = next + 1;
    }
  }
  const auto tally = (*cluster)->tally();
  QCOMPARE(tally.admitted, kClients * 10);
  QCOMPARE(tally.denied, kClients * 2);
  QCOMPARE(tally.upstreamErrors, 0);
}

void ServePipeliningTest::shapedAnswerHoldsUpNoOtherClient() {
  // leaky_bucket, queue 5, one leak every 2 s: the second request of a key waits about 2 s
  // in the replica. Another client's request to the same (only) replica is answered meanwhile.
  ServeOptions o;
  o.algorithm = Algorithm::LeakyBucket;
  o.quota = Quota::perMinute(30).withBurst(5);
  o.replicas = 1;
  auto cluster = ServeCluster::start(o, memoryFactory());
  QVERIFY(cluster.ok());
  const auto url = *parseHttpUrl((*cluster)->frontUrl());
  HttpRequest shaped{"GET", "/ping", 1, {{"x-api-key", "shaped"}}, {}};
  HttpClient first(url);
  QCOMPARE(first.send(shaped)->status, 200);
  int heldStatus = 0;
  std::thread waiting([&] {  // held about 2 s
    auto r = HttpClient(url).send(shaped);
    heldStatus = r.ok() ? r->status : -1;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  HttpClient other(url);
  HttpRequest fresh{"GET", "/ping", 1, {{"x-api-key", "other"}}, {}};
  const auto start = std::chrono::steady_clock::now();
  const auto answer = other.send(fresh);
  const auto took = std::chrono::steady_clock::now() - start;
  waiting.join();
  QCOMPARE(heldStatus, 200);
  QVERIFY(answer.ok());
  QCOMPARE(answer->status, 200);
  QVERIFY2(took < std::chrono::milliseconds(1500),
           qPrintable(QString::number(std::chrono::duration_cast<std::chrono::milliseconds>(took).count())));
}

void ServePipeliningTest::answersLeaveInRequestOrder() {
  // maxPipelined 4: four pipelined requests are all handed to the handler at once, which
  // answers them in reverse order (/3 at once ... /0 after 300 ms). They leave in request order.
  EventThread thread("pipelined");
  std::unique_ptr<HttpListener> listener;
  std::atomic<int> handled{0};
  std::atomic<int> handledAtFirstAnswer{-1};
  HttpServerLimits limits;
  limits.maxPipelined = 4;
  Result<int> port = 0;
  thread.runBlocking([&] {
    listener = std::make_unique<HttpListener>(limits, [&](HttpConnection& c, HttpRequest&& r) {
      const int n = r.target.back() - '0';
      ++handled;
      QPointer<HttpConnection> target(&c);
      QTimer::singleShot((3 - n) * 100, &c, [&, target, id = c.currentRequest(), n] {
        if (n == 0) handledAtFirstAnswer = handled.load();
        HttpResponse answer;
        answer.body = "answer " + std::to_string(n) + "\n";
        if (target) target->respondTo(id, answer);
      });
    });
    port = listener->listen("127.0.0.1", 0);
  });
  QVERIFY(port.ok());
  QByteArray bytes;
  for (int n = 0; n < 4; ++n)
    bytes += "GET /" + QByteArray::number(n) + " HTTP/1.1\r\nHost: a\r\n" + (n == 3 ? "Connection: close\r\n" : "") + "\r\n";
  const auto r = rawExchange(*port, bytes);
  thread.runBlocking([&] { listener.reset(); });
  QVERIFY(r.closed);
  const auto a0 = r.received.indexOf("answer 0"), a1 = r.received.indexOf("answer 1");
  const auto a2 = r.received.indexOf("answer 2"), a3 = r.received.indexOf("answer 3");
  QVERIFY2(a0 >= 0 && a0 < a1 && a1 < a2 && a2 < a3, r.received.constData());
  QCOMPARE(handledAtFirstAnswer.load(), 4);  // decided together, not one after another
}

void ServePipeliningTest::idleDeadlineFollowsTheLastAnswer() {
  // Idle timeout 600 ms, moved (lazily: the timer is not re-armed) after every answer:
  // requests 300 ms apart keep the connection well past 600 ms; silence then closes it.
  ServeOptions o;
  o.quota = Quota::perSecond(1).withBurst(100);
  o.replicas = 1;
  o.limits.idleTimeout = Micros{600'000};
  auto cluster = ServeCluster::start(o, memoryFactory());
  QVERIFY(cluster.ok());
  QTcpSocket s;
  s.connectToHost("127.0.0.1", static_cast<quint16>(QUrl(QString::fromStdString((*cluster)->frontUrl())).port()));
  QVERIFY(s.waitForConnected(5'000));
  QElapsedTimer t;
  t.start();
  for (int i = 0; i < 5; ++i) {
    s.write("GET /ping HTTP/1.1\r\nHost: a\r\nx-api-key: idle\r\n\r\n");
    QByteArray got;
    while (!got.endsWith("}\n") && s.waitForReadyRead(5'000)) got += s.readAll();
    QVERIFY2(got.startsWith("HTTP/1.1 200"), got.constData());
    QTest::qWait(300);
  }
  QVERIFY(t.elapsed() > 1'200);  // alive twice the idle timeout after its first answer
  QElapsedTimer quiet;
  quiet.start();
  if (s.state() == QAbstractSocket::ConnectedState) QVERIFY(s.waitForDisconnected(5'000));
  QVERIFY2(quiet.elapsed() < 4'000, qPrintable(QString::number(quiet.elapsed())));
}

QTEST_GUILESS_MAIN(ServePipeliningTest)
#include "test_serve_pipelining.moc"
