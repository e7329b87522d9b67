// HTTP/1.1 parsing with limits, and the limiter's response headers: tables of
// exact bytes and numbers (no sockets).

#include <QtTest>

#include "common/json.hpp"
#include "http/client_identity.hpp"
#include "http/front_proxy.hpp"
#include "http/http_client.hpp"
#include "http/http_message.hpp"
#include "http/limit_response.hpp"

using namespace rl;

class HttpMessageTest : public QObject {
  Q_OBJECT
 private slots:
  void parsesRequests_data();
  void parsesRequests();
  void refusesBadRequests_data();
  void refusesBadRequests();
  void keepAlive();
  void retryAfterRoundsUp_data();
  void retryAfterRoundsUp();
  void admittedResponse();
  void deniedResponse();
  void failurePolicyResponses();
  void decisionRoundTrip();
  void wireAnswerEqualsResponse_data();
  void wireAnswerEqualsResponse();
  void parsesResponses();
  void scanEqualsParse_data();
  void scanEqualsParse();
  void parsesUrls_data();
  void parsesUrls();
  void expectContinueIsSignalled();
  void clientKeys_data();
  void clientKeys();
  void utf8Validation();
  void trustedProxyLists();
  void forwardedBytesReplaceIdentity();
};

void HttpMessageTest::parsesRequests_data() {
  QTest::addColumn<QByteArray>("bytes");
  QTest::addColumn<int>("consumed");
  QTest::addColumn<QByteArray>("target");
  QTest::addColumn<QByteArray>("apiKey");
  QTest::addColumn<QByteArray>("body");
  QTest::newRow("curl") << QByteArray("GET /ping HTTP/1.1\r\nHost: x\r\nx-api-key: test-client\r\n\r\n")
                        << 55 << QByteArray("/ping") << QByteArray("test-client") << QByteArray();
  QTest::newRow("trimmed value") << QByteArray("GET / HTTP/1.1\r\nHost: x\r\nX-API-KEY:  \t k \r\n\r\n")
                                 << 45 << QByteArray("/") << QByteArray("k") << QByteArray();
  QTest::newRow("body, pipelined rest") << QByteArray("POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabcGET")
                                        << 51 << QByteArray("/a") << QByteArray() << QByteArray("abc");
  QTest::newRow("http/1.0 without host") << QByteArray("GET /x?y=1 HTTP/1.0\r\n\r\n")
                                         << 23 << QByteArray("/x?y=1") << QByteArray() << QByteArray();
}

void HttpMessageTest::parsesRequests() {
  QFETCH(QByteArray, bytes);
  QFETCH(int, consumed);
  QFETCH(QByteArray, target);
  QFETCH(QByteArray, apiKey);
  QFETCH(QByteArray, body);
  HttpRequest r;
  const auto o = parseRequest(bytes.toStdString(), HttpLimits{}, r);
  QCOMPARE(o.state, ParseState::Complete);
  QCOMPARE(o.consumed, std::size_t(consumed));
  QCOMPARE(QByteArray::fromStdString(r.target), target);
  const auto* key = findHeader(r.headers, "x-api-key");
  QCOMPARE(QByteArray::fromStdString(key ? *key : std::string()), apiKey);
  QCOMPARE(QByteArray::fromStdString(r.body), body);
  // Every proper prefix is incomplete, never an error.
  for (qsizetype n = 0; n < consumed; ++n) {
    HttpRequest part;
    QCOMPARE(parseRequest(bytes.left(n).toStdString(), HttpLimits{}, part).state, ParseState::NeedMore);
  }
}

void HttpMessageTest::refusesBadRequests_data() {
  QTest::addColumn<QByteArray>("bytes");
  QTest::addColumn<int>("status");
  QTest::newRow("garbage line") << QByteArray("GARBAGE\r\n") << 400;
  QTest::newRow("LF only") << QByteArray("GET / HTTP/1.1\nHost: x\n\n") << 400;
  QTest::newRow("no version") << QByteArray("GET /\r\n") << 400;
  QTest::newRow("double space") << QByteArray("GET  / HTTP/1.1\r\n") << 400;
  QTest::newRow("relative target") << QByteArray("GET ping HTTP/1.1\r\n") << 400;
  QTest::newRow("bad method") << QByteArray("G(T / HTTP/1.1\r\n") << 400;
  QTest::newRow("http/2.0") << QByteArray("GET / HTTP/2.0\r\n") << 505;
  QTest::newRow("http/1.2") << QByteArray("GET / HTTP/1.2\r\n") << 505;
  QTest::newRow("no host") << QByteArray("GET / HTTP/1.1\r\nA: b\r\n\r\n") << 400;
  QTest::newRow("two hosts") << QByteArray("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n") << 400;
  QTest::newRow("space before colon") << QByteArray("GET / HTTP/1.1\r\nHost : a\r\n\r\n") << 400;
  QTest::newRow("folded header") << QByteArray("GET / HTTP/1.1\r\nHost: a\r\n b\r\n\r\n") << 400;
  QTest::newRow("no colon") << QByteArray("GET / HTTP/1.1\r\nHost a\r\n\r\n") << 400;
  QTest::newRow("bad length") << QByteArray("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: -1\r\n\r\n") << 400;
  QTest::newRow("two lengths") << QByteArray("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n") << 400;
  QTest::newRow("chunked") << QByteArray("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n") << 501;
  QTest::newRow("body too large") << QByteArray("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 65537\r\n\r\n") << 413;
  QTest::newRow("headers too large") << ("GET / HTTP/1.1\r\nHost: a\r\nX-Big: " + QByteArray(8200, 'a')) << 431;
  QTest::newRow("endless first line") << QByteArray(8193, 'A') << 431;
  QByteArray many = "GET / HTTP/1.1\r\nHost: a\r\n";
  for (int i = 0; i < 100; ++i) many += "A: b\r\n";
  QTest::newRow("101 fields") << many + "\r\n" << 431;
}

void HttpMessageTest::refusesBadRequests() {
  QFETCH(QByteArray, bytes);
  QFETCH(int, status);
  HttpRequest r;
  const auto o = parseRequest(bytes.toStdString(), HttpLimits{}, r);
  QCOMPARE(o.state, ParseState::Failed);
  QCOMPARE(o.status, status);
  QVERIFY(!o.error.empty());
}

void HttpMessageTest::keepAlive() {
  HttpRequest r;
  r.headers = {{"Connection", "keep-alive, Close"}};
  QVERIFY(!r.keepAlive());
  r.headers = {};
  QVERIFY(r.keepAlive());
  r.minorVersion = 0;
  QVERIFY(!r.keepAlive());
  r.headers = {{"connection", "Keep-Alive"}};
  QVERIFY(r.keepAlive());
}

void HttpMessageTest::retryAfterRoundsUp_data() {
  QTest::addColumn<qint64>("us");
  QTest::addColumn<qint64>("seconds");
  QTest::addColumn<qint64>("millis");
  QTest::newRow("0 (never 0 while denied)") << qint64(0) << qint64(1) << qint64(1);
  QTest::newRow("1 us") << qint64(1) << qint64(1) << qint64(1);
  QTest::newRow("999 us") << qint64(999) << qint64(1) << qint64(1);
  QTest::newRow("1001 us") << qint64(1001) << qint64(1) << qint64(2);
  QTest::newRow("1 s") << qint64(1'000'000) << qint64(1) << qint64(1000);
  QTest::newRow("1 s + 1 us") << qint64(1'000'001) << qint64(2) << qint64(1001);
  QTest::newRow("59.5 s") << qint64(59'500'000) << qint64(60) << qint64(59'500);
}

void HttpMessageTest::retryAfterRoundsUp() {
  QFETCH(qint64, us);
  QFETCH(qint64, seconds);
  QFETCH(qint64, millis);
  QCOMPARE(retryAfterSeconds(Micros{us}), seconds);
  QCOMPARE(retryAfterMillis(Micros{us}), millis);
}

static QByteArray header(const HttpResponse& r, const char* name) {
  const auto* v = findHeader(r.headers, name);
  return v ? QByteArray::fromStdString(*v) : QByteArray("<absent>");
}

void HttpMessageTest::admittedResponse() {
  // token_bucket capacity 10, refill 1/s: one token used, 1 s until full again.
  const Quota q = Quota::perSecond(1).withBurst(10);
  Decision d{true, 9, 10, Micros{0}, Micros{1'000'000}, Micros{0}, 9.0};
  const auto r = decisionResponse(d, {Algorithm::TokenBucket, q, "test-client", 2});
  QCOMPARE(r.status, 200);
  QCOMPARE(header(r, "X-RateLimit-Remaining"), QByteArray("9"));
  QCOMPARE(header(r, "X-RateLimit-Limit"), QByteArray("10"));
  QCOMPARE(header(r, "RateLimit-Policy"), QByteArray("\"token_bucket\";q=10;w=10"));
  QCOMPARE(header(r, "RateLimit"), QByteArray("\"token_bucket\";r=9;t=1"));
  QCOMPARE(header(r, "Retry-After"), QByteArray("<absent>"));
  QCOMPARE(header(r, "X-RateLimit-Replica"), QByteArray("2"));
  QCOMPARE(QByteArray::fromStdString(r.body),
           QByteArray("{\"status\":\"ok\",\"replica\":2,\"client\":\"test-client\",\"algorithm\":\"token_bucket\","
                      "\"allowed\":true,\"remaining\":9,\"limit\":10,\"retry_after_us\":0,"
                      "\"reset_after_us\":1000000,\"delay_us\":0,\"level\":9.0}\n"));
  // A 60 s fixed window advertises w=60; a shaped leaky-bucket answer says its delay.
  QCOMPARE(rateLimitPolicyField(Algorithm::FixedWindow, Quota::perMinute(100)),
           std::string("\"fixed_window\";q=100;w=60"));
  d.delay = Micros{1'500};
  QCOMPARE(header(decisionResponse(d, {Algorithm::LeakyBucket, q, "c", 0}), "X-RateLimit-Delay-Ms"), QByteArray("2"));
}

void HttpMessageTest::deniedResponse() {
  const Quota q = Quota::perSecond(1).withBurst(10);
  const Decision d{false, 0, 10, Micros{400'001}, Micros{10'000'000}, Micros{0}, 0.0};
  const auto r = decisionResponse(d, {Algorithm::TokenBucket, q, "a\"b", 0});
  QCOMPARE(r.status, 429);
  QCOMPARE(header(r, "Retry-After"), QByteArray("1"));
  QCOMPARE(header(r, "Retry-After-Ms"), QByteArray("401"));
  QCOMPARE(header(r, "X-RateLimit-Remaining"), QByteArray("0"));
  QCOMPARE(header(r, "RateLimit"), QByteArray("\"token_bucket\";r=0;t=10"));
  QVERIFY(r.body.find("\"client\":\"a\\\"b\"") != std::string::npos);
  const auto bytes = QByteArray::fromStdString(r.serialize());
  QVERIFY(bytes.startsWith("HTTP/1.1 429 Too Many Requests\r\n"));
  QVERIFY(bytes.contains("\r\nContent-Length: " + QByteArray::number(qsizetype(r.body.size())) + "\r\n"));
  QVERIFY(bytes.contains("\r\nConnection: keep-alive\r\n\r\n{"));
}

void HttpMessageTest::failurePolicyResponses() {
  const LimitContext c{Algorithm::Gcra, Quota::perSecond(5), "k", 1};
  const auto open = storeFailureResponse(FailurePolicy::Open, failureDecision(FailurePolicy::Open, c.quota, kPolicyRetryAfter), c);
  QCOMPARE(open.status, 200);
  QCOMPARE(header(open, "X-RateLimit-Failure-Policy"), QByteArray("open"));
  const auto closed =
      storeFailureResponse(FailurePolicy::Closed, failureDecision(FailurePolicy::Closed, c.quota, kPolicyRetryAfter), c);
  QCOMPARE(closed.status, 503);
  QCOMPARE(header(closed, "X-RateLimit-Failure-Policy"), QByteArray("closed"));
  QCOMPARE(header(closed, "Retry-After"), QByteArray("1"));
  // the target's degraded decision: closed is a deny decided by its policy, open an admit.
  const auto back = decisionFromResponse(closed);
  QVERIFY(back.ok());
  QVERIFY(!back->allowed);
  QVERIFY(back->degraded);
  const auto openBack = decisionFromResponse(open);
  QVERIFY(openBack.ok());
  QVERIFY(openBack->allowed);
  QVERIFY(openBack->degraded);
  auto unknown = closed;
  for (auto& h : unknown.headers)
    if (h.name == "X-RateLimit-Failure-Policy") h.value = "maybe";
  QCOMPARE(decisionFromResponse(unknown).error().code, ErrorCode::Protocol);
  QVERIFY(open.body.find("cannot") == std::string::npos);  // the store's error text never reaches the client
  // local: the replica's own memory limiter decided; its 429 keeps Retry-After and names the policy.
  const Decision local{false, 0, 5, Micros{200'000}, Micros{1'000'000}, Micros{0}, 0};
  const auto l = storeFailureResponse(FailurePolicy::Local, local, c);
  QCOMPARE(l.status, 429);
  QCOMPARE(header(l, "X-RateLimit-Failure-Policy"), QByteArray("local"));
  QCOMPARE(header(l, "Retry-After-Ms"), QByteArray("200"));
}

void HttpMessageTest::decisionRoundTrip() {
  const Decision d{false, 0, 7, Micros{123'457}, Micros{3'000'001}, Micros{0}, 0.25};
  const auto r = decisionResponse(d, {Algorithm::LeakyBucket, Quota::perSecond(7), "c", 0});
  const auto back = decisionFromResponse(r);
  QVERIFY(back.ok());
  QCOMPARE(back->allowed, false);
  QCOMPARE(back->limit, 7);
  QCOMPARE(back->retryAfter, Micros{123'457});
  QCOMPARE(back->resetAfter, Micros{3'000'001});
  QCOMPARE(back->level, 0.25);
  auto bad = r;
  bad.status = 200;
  QCOMPARE(decisionFromResponse(bad).error().code, ErrorCode::Protocol);
}

void HttpMessageTest::parsesResponses() {
  const std::string bytes = "HTTP/1.1 429 Too Many Requests\r\nRetry-After: 1\r\nContent-Length: 2\r\n\r\n{}extra";
  HttpResponse r;
  const auto o = parseResponse(bytes, HttpLimits{}, false, r);
  QCOMPARE(o.state, ParseState::Complete);
  QCOMPARE(o.consumed, bytes.size() - 5);
  QCOMPARE(r.status, 429);
  QCOMPARE(r.body, std::string("{}"));
  QVERIFY(r.keepAlive);
  HttpResponse noLength;
  QCOMPARE(parseResponse("HTTP/1.1 200 OK\r\n\r\n", HttpLimits{}, false, noLength).status, 502);
  HttpResponse head;
  QCOMPARE(parseResponse("HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\n", HttpLimits{}, true, head).state,
           ParseState::Complete);
}

void HttpMessageTest::scanEqualsParse_data() {
  // The front relays a replica's answer after scanResponse() only: it must accept and refuse
  // exactly what parseResponse() does, with the same errors and framing.
  QTest::addColumn<QByteArray>("bytes");
  QTest::addColumn<bool>("head");
  QTest::addColumn<int>("state");   // ParseState
  QTest::addColumn<int>("status");  // the status parsed, or the failure's
  QTest::addColumn<bool>("keepAlive");
  const QByteArray ok = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}";
  const int complete = int(ParseState::Complete), more = int(ParseState::NeedMore), failed = int(ParseState::Failed);
  QTest::newRow("answer and the next one") << ok + "HTTP/1.1 200" << false << complete << 200 << true;
  QTest::newRow("body not all there") << ok.left(ok.size() - 1) << false << more << 0 << true;
  QTest::newRow("head not all there") << QByteArray("HTTP/1.1 200 OK\r\nContent-Le") << false << more << 0 << true;
  QTest::newRow("connection close")
      << QByteArray("HTTP/1.1 429 Too Many Requests\r\nConnection: keep-alive, Close\r\nContent-Length: 0\r\n\r\n")
      << false << complete << 429 << false;
  QTest::newRow("HTTP/1.0") << QByteArray("HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n") << false << complete << 200
                            << false;
  QTest::newRow("HEAD: no body after a length") << QByteArray("HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\n") << true
                                                << complete << 200 << true;
  QTest::newRow("204 without length") << QByteArray("HTTP/1.1 204 No Content\r\n\r\n") << false << complete << 204 << true;
  QTest::newRow("no length") << QByteArray("HTTP/1.1 200 OK\r\n\r\n") << false << failed << 502 << true;
  QTest::newRow("chunked") << QByteArray("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n")
                           << false << failed << 502 << true;
  QTest::newRow("two lengths") << QByteArray("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}")
                               << false << failed << 502 << true;
  QTest::newRow("same length twice") << QByteArray("HTTP/1.1 200 OK\r\nContent-Length: 2\r\ncontent-length: 2\r\n\r\n{}")
                                     << false << complete << 200 << true;
  QTest::newRow("length not a number") << QByteArray("HTTP/1.1 200 OK\r\nContent-Length: 2x\r\n\r\n{}") << false
                                       << failed << 502 << true;
  QTest::newRow("body over the limit") << QByteArray("HTTP/1.1 200 OK\r\nContent-Length: 70000\r\n\r\n") << false
                                       << failed << 502 << true;
  QTest::newRow("bad status line") << QByteArray("HTTP/1.1 2x0 OK\r\nContent-Length: 0\r\n\r\n") << false << failed
                                   << 502 << true;
  QTest::newRow("bad header line") << QByteArray("HTTP/1.1 200 OK\r\nBad Name: x\r\nContent-Length: 0\r\n\r\n")
                                   << false << failed << 502 << true;
  QTest::newRow("control character") << QByteArray("HTTP/1.1 200 OK\r\nX: a\x01b\r\nContent-Length: 0\r\n\r\n")
                                     << false << failed << 502 << true;
  QByteArray many = "HTTP/1.1 200 OK\r\n";
  for (int i = 0; i < 101; ++i) many += "X-" + QByteArray::number(i) + ": 1\r\n";
  QTest::newRow("101 header fields") << many + "Content-Length: 0\r\n\r\n" << false << failed << 502 << true;
  QTest::newRow("head over 8 KiB") << "HTTP/1.1 200 OK\r\nX: " + QByteArray(9000, 'a') << false << failed << 502 << true;
}

void HttpMessageTest::scanEqualsParse() {
  QFETCH(QByteArray, bytes);
  QFETCH(bool, head);
  QFETCH(int, state);
  QFETCH(int, status);
  QFETCH(bool, keepAlive);
  const std::string_view data(bytes.constData(), static_cast<std::size_t>(bytes.size()));
  ResponseFrame frame;
  HttpResponse parsed;
  const auto scanned = scanResponse(data, HttpLimits{}, head, frame);
  const auto full = parseResponse(data, HttpLimits{}, head, parsed);
  QCOMPARE(int(scanned.state), state);
  QCOMPARE(int(full.state), state);
  QCOMPARE(scanned.consumed, full.consumed);
  QCOMPARE(scanned.status, full.status);
  QCOMPARE(scanned.error, full.error);
  if (state == int(ParseState::Failed)) {
    QCOMPARE(scanned.status, status);
    QVERIFY2(!scanned.error.empty() && scanned.error.rfind("upstream ", 0) == 0, scanned.error.c_str());
  }
  if (state != int(ParseState::Complete)) return;
  QCOMPARE(frame.status, status);
  QCOMPARE(parsed.status, status);
  QCOMPARE(frame.keepAlive, keepAlive);
  QCOMPARE(parsed.keepAlive, keepAlive);
  QCOMPARE(frame.bodyLength, parsed.body.size());
  QCOMPARE(frame.headLength, parsed.headLength);
  QCOMPARE(scanned.consumed, frame.headerEnd + 4 + frame.bodyLength);
}

void HttpMessageTest::parsesUrls_data() {
  QTest::addColumn<QString>("url");
  QTest::addColumn<QString>("host");  // empty: an error whose message contains `path`
  QTest::addColumn<int>("port");
  QTest::addColumn<QString>("path");
  QTest::newRow("front") << "http://127.0.0.1:8080" << "127.0.0.1" << 8080 << "/";
  QTest::newRow("path") << "http://localhost:9/limit/x" << "localhost" << 9 << "/limit/x";
  QTest::newRow("ipv6") << "http://[::1]:18080/ping" << "::1" << 18080 << "/ping";
  QTest::newRow("default port") << "http://example" << "example" << 80 << "/";
  QTest::newRow("https") << "https://x:1/a" << "x" << 1 << "/a";
  QTest::newRow("https default port") << "https://example" << "example" << 443 << "/";
  QTest::newRow("other scheme") << "ftp://x:1" << "" << 0 << "must start with http:// or https://";
  QTest::newRow("no host") << "http://:80" << "" << 0 << "has no host";
  QTest::newRow("port 0") << "http://h:0" << "" << 0 << "1..65535";
  QTest::newRow("port too big") << "http://h:65536" << "" << 0 << "1..65535";
  QTest::newRow("port text") << "http://h:abc" << "" << 0 << "1..65535";
  QTest::newRow("empty port") << "http://h:" << "" << 0 << "1..65535";
  QTest::newRow("open bracket") << "http://[::1:80" << "" << 0 << "unclosed [";
}

void HttpMessageTest::parsesUrls() {
  QFETCH(QString, url);
  QFETCH(QString, host);
  QFETCH(int, port);
  QFETCH(QString, path);
  const auto t = parseHttpUrl(url.toStdString());
  if (host.isEmpty()) {
    QVERIFY(!t.ok());
    QCOMPARE(t.error().code, ErrorCode::InvalidArgument);
    QVERIFY2(QString::fromStdString(t.error().message).contains(path), t.error().message.c_str());
    return;
  }
  QVERIFY(t.ok());
  QCOMPARE(QString::fromStdString(t->host), host);
  QCOMPARE(t->port, port);
  QCOMPARE(QString::fromStdString(t->path), path);
}

void HttpMessageTest::expectContinueIsSignalled() {
  // Issue 9: a client sending Expect: 100-continue waited a second for a 100 that never came.
  HttpRequest r;
  const std::string head = "POST /ping HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n";
  auto outcome = parseRequest(head, HttpLimits{}, r);
  QCOMPARE(outcome.state, ParseState::NeedMore);
  QVERIFY(outcome.expectContinue);
  outcome = parseRequest(head + "hello", HttpLimits{}, r);
  QCOMPARE(outcome.state, ParseState::Complete);
  QCOMPARE(r.body, std::string("hello"));
  outcome = parseRequest("POST /ping HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\n", HttpLimits{}, r);
  QVERIFY(!outcome.expectContinue);  // no Expect: nothing to signal
}

void HttpMessageTest::clientKeys_data() {
  QTest::addColumn<QByteArrayList>("headers");  // name, value, name, value...
  QTest::addColumn<QString>("peer");
  QTest::addColumn<QString>("key");
  const QString secret = "s3cret";
  QTest::newRow("api key namespaced") << QByteArrayList{"x-api-key", "127.0.0.9"} << "127.0.0.1" << "key:127.0.0.9";
  QTest::newRow("address namespaced") << QByteArrayList{} << "127.0.0.9" << "ip:127.0.0.9";
  // A local process talking to a replica directly cannot pick its identity (issue 9: 12 x 200 at limit 10).
  QTest::newRow("XFF from a loopback peer, no secret") << QByteArrayList{"X-Forwarded-For", "203.0.113.9"}
                                                       << "127.0.0.1" << "ip:127.0.0.1";
  QTest::newRow("XFF with a wrong secret") << QByteArrayList{"X-Forwarded-For", "203.0.113.9", "X-RateLab-Front", "guess"}
                                           << "127.0.0.1" << "ip:127.0.0.1";
  QTest::newRow("XFF from the front") << QByteArrayList{"X-Forwarded-For", "203.0.113.9", "X-RateLab-Front", "s3cret"}
                                      << "10.1.2.3" << "ip:203.0.113.9";
  QTest::newRow("XFF garbage from the front") << QByteArrayList{"X-Forwarded-For", "evil", "X-RateLab-Front", "s3cret"}
                                              << "10.1.2.3" << "ip:10.1.2.3";
  QTest::newRow("XFF via a trusted proxy, rightmost untrusted")
      << QByteArrayList{"X-Forwarded-For", "1.1.1.1, 198.51.100.7, 192.0.2.50"} << "192.0.2.1" << "ip:198.51.100.7";
  QTest::newRow("XFF from an untrusted peer") << QByteArrayList{"X-Forwarded-For", "1.1.1.1"} << "198.51.100.1"
                                              << "ip:198.51.100.1";
}

void HttpMessageTest::clientKeys() {
  QFETCH(QByteArrayList, headers);
  QFETCH(QString, peer);
  QFETCH(QString, key);
  ForwardTrust trust;
  trust.frontSecret = "s3cret";
  trust.proxies = *parseTrustedProxies("192.0.2.0/24");
  HttpRequest r;
  for (int i = 0; i + 1 < headers.size(); i += 2) r.headers.push_back({headers[i].toStdString(), headers[i + 1].toStdString()});
  const auto got = clientKeyOf(r, peer.toStdString(), trust);
  QVERIFY(got.ok());
  QCOMPARE(QString::fromStdString(*got), key);
}

void HttpMessageTest::utf8Validation() {
  QVERIFY(isValidUtf8("plain ascii"));
  QVERIFY(isValidUtf8("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"));
  QVERIFY(!isValidUtf8("\xff"));
  QVERIFY(!isValidUtf8("\xc3"));              // truncated
  QVERIFY(!isValidUtf8("\xc0\xaf"));          // overlong
  QVERIFY(!isValidUtf8("\xed\xa0\x80"));      // surrogate
  QVERIFY(!isValidUtf8("\xf4\x90\x80\x80"));  // above U+10FFFF
  // A raw non-UTF-8 x-api-key is refused with a message that does not echo it.
  HttpRequest r;
  r.headers.push_back({"x-api-key", "ab\xff\xfe"});
  const auto key = clientKeyOf(r, "127.0.0.1", {});
  QVERIFY(!key.ok());
  QCOMPARE(key.error().message, std::string("x-api-key is not valid UTF-8: send UTF-8 text"));
}

void HttpMessageTest::trustedProxyLists() {
  QCOMPARE(parseTrustedProxies("10.0.0.0/8, 192.0.2.7,::1")->size(), std::size_t{3});
  for (const auto* bad : {"", "10.0.0.0/33", "example.com", "10.0.0.0/8,,"}) {
    const auto r = parseTrustedProxies(bad);
    QVERIFY2(!r.ok(), bad);
    QVERIFY(r.error().message.starts_with("--trusted-proxy '"));
  }
  QCOMPARE(makeFrontSecret().size(), std::size_t{32});
  QVERIFY(makeFrontSecret() != makeFrontSecret());
}

void HttpMessageTest::forwardedBytesReplaceIdentity() {
  HttpRequest r{"POST", "/ping", 1,
                {{"Host", "a"}, {"X-Forwarded-For", "6.6.6.6"}, {"X-RateLab-Front", "forged"},
                 {"Expect", "100-continue"}, {"Connection", "keep-alive"}, {"Content-Length", "2"}},
                "hi"};
  const auto bytes = forwardedBytes(r, "198.51.100.7", "s3cret");
  QCOMPARE(QByteArray::fromStdString(bytes),
           QByteArray("POST /ping HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\nX-Forwarded-For: 198.51.100.7\r\n"
                      "X-RateLab-Front: s3cret\r\n\r\nhi"));
  HttpRequest parsed;
  QCOMPARE(parseRequest(bytes, HttpLimits{}, parsed).state, ParseState::Complete);
  ForwardTrust trust;
  trust.frontSecret = "s3cret";
  QCOMPARE(*clientKeyOf(parsed, "127.0.0.1", trust), std::string("ip:198.51.100.7"));
}

void HttpMessageTest::wireAnswerEqualsResponse_data() {
  QTest::addColumn<bool>("allowed");
  QTest::addColumn<qint64>("delayUs");
  QTest::addColumn<double>("level");
  QTest::addColumn<QString>("client");
  QTest::addColumn<bool>("keepAlive");
  QTest::addColumn<bool>("head");
  QTest::newRow("admitted") << true << qint64(0) << 9.0 << "key:k1" << true << false;
  QTest::newRow("denied, close") << false << qint64(0) << 0.0 << "key:k1" << false << false;
  QTest::newRow("shaped") << true << qint64(1'500) << 2.5 << "ip:127.0.0.1" << true << false;
  QTest::newRow("head") << true << qint64(0) << 0.125 << "ip:::1" << true << true;
  QTest::newRow("escaped key") << false << qint64(0) << 1e-7 << "key:a\"b\\c\tz\u00e9" << true << false;
  QTest::newRow("big level") << true << qint64(0) << 123456789012.0 << "key:x" << true << false;
}

void HttpMessageTest::wireAnswerEqualsResponse() {
  // The replicas' hot path writes wire bytes straight from the decision; they must be the
  // bytes of decisionResponse() serialized, and read back to the same decision.
  QFETCH(bool, allowed);
  QFETCH(qint64, delayUs);
  QFETCH(double, level);
  QFETCH(QString, client);
  QFETCH(bool, keepAlive);
  QFETCH(bool, head);
  const Decision d{allowed, allowed ? 7 : 0, 10, Micros{allowed ? 0 : 400'001}, Micros{1'000'000}, Micros{delayUs}, level};
  const auto key = client.toStdString();
  const LimitContext c{Algorithm::TokenBucket, Quota::perSecond(1).withBurst(10), key, 3};
  auto response = decisionResponse(d, c);
  response.keepAlive = keepAlive;
  std::string wire = "prefix:";
  appendDecisionAnswer(wire, d, c, keepAlive, head);
  QCOMPARE(QByteArray::fromStdString(wire), QByteArray::fromStdString("prefix:" + response.serialize(head)));
  const auto body = parseJson(response.body);
  QVERIFY(body.ok());
  QCOMPARE(QString::fromStdString((*body)["client"].get<std::string>()), client);
  QCOMPARE((*body)["level"].get<double>(), level);
  const auto back = decisionFromResponse(response);
  QVERIFY(back.ok());
  QCOMPARE(back->remaining, d.remaining);
  QCOMPARE(back->delay, d.delay);
}

QTEST_GUILESS_MAIN(HttpMessageTest)
#include "test_http_message.moc"
