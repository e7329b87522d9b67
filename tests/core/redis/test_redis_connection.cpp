// Redis URLs and the hiredis connection: parsing, errors, AUTH, SELECT,
// pipelining, command timeout and reconnect, against a private redis-server.

#include <QtTest>

#include <chrono>
#include <thread>

#include "redis/redis_connection.hpp"
#include "redis/redis_url.hpp"
#include "support/redis_test_server.hpp"

using namespace rl;

class RedisConnectionTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase();
  void parsesUrls_data();
  void parsesUrls();
  void rejectsBadUrls_data();
  void rejectsBadUrls();
  void toStringHidesPassword();
  void neverShowsPassword_data();
  void neverShowsPassword();
  void savedUrlHasNoPassword();
  void passwordSources();
  void passwordFromFileAuthenticates();
  void refusedConnectionNamesAddress();
  void commandsAndReplies();
  void pipelines();
  void errorReplyIsProtocolError();
  void selectsDatabase();
  void authenticates();
  void timeoutThenReconnect();
  void backsOffWhileServerIsDown();

 private:
  std::unique_ptr<test::RedisTestServer> redis_;
};

void RedisConnectionTest::initTestCase() {
  redis_ = std::make_unique<test::RedisTestServer>();
  RL_REQUIRE_REDIS(*redis_);
}

void RedisConnectionTest::parsesUrls_data() {
  QTest::addColumn<QString>("url");
  QTest::addColumn<QString>("host");
  QTest::addColumn<int>("port");
  QTest::addColumn<QString>("user");
  QTest::addColumn<QString>("password");
  QTest::addColumn<int>("db");
  QTest::newRow("plain") << "redis://127.0.0.1:6390" << "127.0.0.1" << 6390 << "" << "" << 0;
  QTest::newRow("db") << "redis://localhost:7000/3" << "localhost" << 7000 << "" << "" << 3;
  QTest::newRow("password") << "redis://:s3cret@10.0.0.1:6379" << "10.0.0.1" << 6379 << "" << "s3cret" << 0;
  QTest::newRow("acl user") << "redis://alice:pw@h:1/15" << "h" << 1 << "alice" << "pw" << 15;
  QTest::newRow("ipv6") << "redis://[::1]:6380/2" << "::1" << 6380 << "" << "" << 2;
  QTest::newRow("@ in password") << "redis://u:p@ss@h:2" << "h" << 2 << "u" << "p@ss" << 0;
  QTest::newRow("percent-encoded") << "redis://u%40corp:p%40ss%3A%2f@h:2" << "h" << 2 << "u@corp" << "p@ss:/" << 0;
  QTest::newRow("user only (password from a file or REDISCLI_AUTH)") << "redis://alice@h:1" << "h" << 1 << "alice" << "" << 0;
}

void RedisConnectionTest::parsesUrls() {
  QFETCH(QString, url);
  auto ep = parseRedisUrl(url.toStdString());
  QVERIFY2(ep.ok(), ep.ok() ? "" : ep.error().message.c_str());
  QTEST(QString::fromStdString(ep->host), "host");
  QTEST(ep->port, "port");
  QTEST(QString::fromStdString(ep->user), "user");
  QTEST(QString::fromStdString(ep->password), "password");
  QTEST(ep->db, "db");
  QCOMPARE(ep->connectTimeout, Micros{100'000});
  QCOMPARE(ep->commandTimeout, Micros{100'000});
}

void RedisConnectionTest::rejectsBadUrls_data() {
  QTest::addColumn<QString>("url");
  QTest::addColumn<QString>("names");
  QTest::newRow("scheme") << "http://h:1" << "scheme";
  QTest::newRow("no port") << "redis://h" << "port is missing";
  QTest::newRow("port 0") << "redis://h:0" << "port '0' must be 1 to 65535";
  QTest::newRow("port big") << "redis://h:70000" << "port '70000'";
  QTest::newRow("port text") << "redis://h:abc" << "port 'abc'";
  QTest::newRow("empty host") << "redis://:6379" << "host is empty";
  QTest::newRow("db text") << "redis://h:1/x" << "db 'x'";
  QTest::newRow("db negative") << "redis://h:1/-1" << "db '-1'";
  QTest::newRow("empty user") << "redis://@h:1" << "user before '@' is empty";
  QTest::newRow("empty password") << "redis://u:@h:1" << "password after ':' is empty";
  QTest::newRow("bad escape") << "redis://u:p%4@h:1" << "password has a bad %-escape";
  QTest::newRow("bad escape in user") << "redis://%zz:pw@h:1" << "user has a bad %-escape";
  QTest::newRow("ipv6 no port") << "redis://[::1]" << "IPv6";
}

void RedisConnectionTest::rejectsBadUrls() {
  QFETCH(QString, url);
  QFETCH(QString, names);
  auto ep = parseRedisUrl(url.toStdString());
  QVERIFY(!ep.ok());
  QCOMPARE(ep.error().code, ErrorCode::InvalidArgument);
  const QString msg = QString::fromStdString(ep.error().message);
  QVERIFY2(msg.contains(names), qPrintable(msg));
  QVERIFY2(msg.contains("redis://[user:password@]host:port[/db]"), qPrintable(msg));
}

void RedisConnectionTest::neverShowsPassword_data() {
  QTest::addColumn<QString>("url");
  QTest::addColumn<QString>("shown");
  QTest::newRow("bad port") << "redis://user:SuperSecret@127.0.0.1:99999" << "redis://user:***@127.0.0.1:99999";
  QTest::newRow("bad scheme") << "http://user:SuperSecret@h:1" << "http://user:***@h:1";
  QTest::newRow("bad db") << "redis://:SuperSecret@h:1/x" << "redis://:***@h:1/x";
  QTest::newRow("bad escape") << "redis://u:SuperSecret%zz@h:1" << "redis://u:***@h:1";
  // Found by fuzz_redis_url: a '/' in the password hid it from the redaction.
  QTest::newRow("slash in password") << "redis://u:Super/Secret@h:99999" << "redis://u:***@h:99999";
}

void RedisConnectionTest::neverShowsPassword() {
  QFETCH(QString, url);
  QFETCH(QString, shown);
  auto ep = parseRedisUrl(url.toStdString());
  QVERIFY(!ep.ok());
  const QString msg = QString::fromStdString(ep.error().message);
  QVERIFY2(!msg.contains("SuperSecret"), qPrintable(msg));
  QVERIFY2(msg.contains("'" + shown + "'"), qPrintable(msg));
  QCOMPARE(QString::fromStdString(redactRedisUrl(url.toStdString())), shown);
}

void RedisConnectionTest::savedUrlHasNoPassword() {
  QCOMPARE(withoutPassword("redis://alice:pw@h:1/2"), std::string("redis://alice@h:1/2"));
  QCOMPARE(withoutPassword("redis://:pw@h:1"), std::string("redis://h:1"));
  QCOMPARE(withoutPassword("redis://h:1"), std::string("redis://h:1"));
  QCOMPARE(withoutPassword("redis://u:p@ss@h:1"), std::string("redis://u@h:1"));
  auto back = parseRedisUrl(withoutPassword("redis://alice:pw@h:1/2"));  // what the window restores parses
  QVERIFY(back.ok());
  QCOMPARE(back->user, std::string("alice"));
  QVERIFY(back->password.empty());
}

void RedisConnectionTest::passwordSources() {
  QTemporaryDir dir;
  const std::string file = dir.filePath("pw").toStdString();
  QFile f(QString::fromStdString(file));
  QVERIFY(f.open(QIODevice::WriteOnly));
  f.write("from-file\nignored second line\n");
  f.close();
  qputenv("REDISCLI_AUTH", "from-env");
  RedisEndpoint ep = *parseRedisUrl("redis://h:1");
  QVERIFY(applyPasswordSources(ep, file).ok());
  QCOMPARE(ep.password, std::string("from-file"));  // the file first
  ep = *parseRedisUrl("redis://h:1");
  QVERIFY(applyPasswordSources(ep, "").ok());
  QCOMPARE(ep.password, std::string("from-env"));  // then the environment
  ep = *parseRedisUrl("redis://:in-url@h:1");
  QVERIFY(applyPasswordSources(ep, file).ok());
  QCOMPARE(ep.password, std::string("in-url"));  // the URL wins
  qunsetenv("REDISCLI_AUTH");
  ep = *parseRedisUrl("redis://h:1");
  QVERIFY(applyPasswordSources(ep, "").ok());
  QVERIFY(ep.password.empty());
  auto missing = applyPasswordSources(ep, dir.filePath("nope").toStdString());
  QVERIFY(!missing.ok());
  QVERIFY2(missing.error().message.starts_with("--redis-password-file '"), missing.error().message.c_str());
  QFile e(dir.filePath("empty"));
  QVERIFY(e.open(QIODevice::WriteOnly));
  e.close();
  auto empty = applyPasswordSources(ep, dir.filePath("empty").toStdString());
  QVERIFY(!empty.ok());
  QVERIFY2(empty.error().message.find("is empty") != std::string::npos, empty.error().message.c_str());
}

void RedisConnectionTest::passwordFromFileAuthenticates() {
  // A password from a file reaches AUTH: a server with requirepass accepts it.
  test::RedisTestServer secured({"--requirepass", "p@ss"});
  RL_REQUIRE_REDIS(secured);
  QTemporaryDir dir;
  QFile f(dir.filePath("pw"));
  QVERIFY(f.open(QIODevice::WriteOnly));
  f.write("p@ss\n");
  f.close();
  setRedisPasswordFile(dir.filePath("pw").toStdString());
  auto ep = resolveRedisUrl("redis://127.0.0.1:" + std::to_string(secured.endpoint().port));
  setRedisPasswordFile("");
  QVERIFY(ep.ok());
  auto c = RedisConnection::connect(*ep);
  QVERIFY(c.ok());
  auto r = c->command({"SET", "k", "v"});
  QVERIFY2(r.ok(), r.ok() ? "" : r.error().message.c_str());
  auto encoded = parseRedisUrl("redis://:p%40ss@127.0.0.1:" + std::to_string(secured.endpoint().port));
  QVERIFY(encoded.ok());
  auto c2 = RedisConnection::connect(*encoded);  // percent-decoded before AUTH
  QVERIFY(c2.ok());
  QVERIFY(c2->command({"GET", "k"}).ok());
}

void RedisConnectionTest::toStringHidesPassword() {
  auto ep = parseRedisUrl("redis://alice:topsecret@h:6390/2");
  QVERIFY(ep.ok());
  QCOMPARE(QString::fromStdString(ep->toString()), QString("redis://alice@h:6390/2"));
}

void RedisConnectionTest::refusedConnectionNamesAddress() {
  // Stop a second private server to get a port where nothing listens.
  test::RedisTestServer other;
  RL_REQUIRE_REDIS(other);
  RedisEndpoint ep = other.endpoint();
  QVERIFY(other.server().stop().ok());
  auto c = RedisConnection::connect(ep);
  QVERIFY(!c.ok());
  QCOMPARE(c.error().code, ErrorCode::Unavailable);
  const std::string expected = "cannot connect to 127.0.0.1:" + std::to_string(ep.port) + ": Connection refused";
  QCOMPARE(QString::fromStdString(c.error().message), QString::fromStdString(expected));
}

void RedisConnectionTest::commandsAndReplies() {
  auto c = redis_->connect();
  QVERIFY(c.ok());
  auto set = c->command({"SET", "t:conn:k", std::string_view("a\0b", 3)});
  QVERIFY(set.ok());
  QCOMPARE(set->str(), std::string_view("OK"));
  auto get = c->command({"GET", "t:conn:k"});
  QVERIFY(get.ok());
  QCOMPARE(get->str().size(), std::size_t{3});  // binary-safe
  auto incr = c->command(std::vector<std::string>{"INCRBY", "t:conn:n", "41"});
  QCOMPARE(incr->integer(), 41);
  QCOMPARE(incr->toInt(), std::optional<std::int64_t>(41));
  auto nil = c->command({"GET", "t:conn:missing"});
  QVERIFY(nil->isNil());
  QCOMPARE(QString::fromStdString(nil->describe()), QString("(nil)"));
}

void RedisConnectionTest::pipelines() {
  auto c = redis_->connect();
  QVERIFY(c.ok());
  for (int i = 0; i < 100; ++i) QVERIFY(c->append({"INCR", "t:conn:pipe"}).ok());
  for (int i = 1; i <= 100; ++i) {
    auto r = c->getReply();
    QVERIFY(r.ok());
    QCOMPARE(r->integer(), i);
  }
  auto none = c->getReply();
  QVERIFY(!none.ok());
  QCOMPARE(none.error().code, ErrorCode::Internal);
  // An error reply inside a pipeline is a reply, and the pipeline stays in step.
  QVERIFY(c->append({"HGET", "t:conn:pipe", "f"}).ok());
  QVERIFY(c->append({"GET", "t:conn:pipe"}).ok());
  auto wrong = c->getReply();
  QVERIFY(wrong.ok() && wrong->isError());
  QCOMPARE(c->getReply()->str(), std::string_view("100"));
}

void RedisConnectionTest::errorReplyIsProtocolError() {
  auto c = redis_->connect();
  QVERIFY(c.ok());
  auto r = c->command({"NOSUCHCOMMAND", "x"});
  QVERIFY(!r.ok());
  QCOMPARE(r.error().code, ErrorCode::Protocol);
  QVERIFY2(r.error().message.starts_with("ERR unknown command"), r.error().message.c_str());
  QVERIFY(c->command({"PING"}).ok());  // still usable
}

void RedisConnectionTest::selectsDatabase() {
  RedisEndpoint ep = redis_->endpoint();
  ep.db = 3;
  auto c3 = RedisConnection::connect(ep);
  QVERIFY(c3.ok());
  QVERIFY(c3->command({"SET", "t:conn:db", "three"}).ok());
  auto c0 = redis_->connect();
  QVERIFY(c0->command({"GET", "t:conn:db"})->isNil());
  ep.db = 99;  // redis has 16 databases by default
  auto bad = RedisConnection::connect(ep);
  QVERIFY(!bad.ok());
  QCOMPARE(bad.error().code, ErrorCode::Protocol);
  QVERIFY2(bad.error().message.find("SELECT") != std::string::npos, bad.error().message.c_str());
}

void RedisConnectionTest::authenticates() {
  test::RedisTestServer secured({"--requirepass", "pw1", "--user", "alice", "on", ">pw2", "~*", "+@all"});
  RL_REQUIRE_REDIS(secured);
  RedisEndpoint ep = secured.endpoint();
  auto anonymous = RedisConnection::connect(ep);
  QVERIFY(anonymous.ok());  // connecting works; commands need AUTH
  auto denied = anonymous->command({"GET", "x"});
  QVERIFY(!denied.ok());
  QVERIFY2(denied.error().message.starts_with("NOAUTH"), denied.error().message.c_str());
  ep.password = "pw1";
  auto withPassword = RedisConnection::connect(ep);
  QVERIFY(withPassword.ok());
  QVERIFY(withPassword->command({"PING"}).ok());
  ep.user = "alice";
  ep.password = "pw2";
  auto acl = RedisConnection::connect(ep);
  QVERIFY(acl.ok());
  QCOMPARE(acl->command({"ACL", "WHOAMI"})->str(), std::string_view("alice"));
  ep.password = "wrong";
  auto bad = RedisConnection::connect(ep);
  QVERIFY(!bad.ok());
  QCOMPARE(bad.error().code, ErrorCode::Protocol);
  QVERIFY2(bad.error().message.find("AUTH on 127.0.0.1:") != std::string::npos, bad.error().message.c_str());
}

void RedisConnectionTest::timeoutThenReconnect() {
  RedisEndpoint ep = redis_->endpoint();
  ep.commandTimeout = Micros{100'000};
  auto c = RedisConnection::connect(ep);
  QVERIFY(c.ok());
  const auto t0 = std::chrono::steady_clock::now();
  auto slow = c->command({"BLPOP", "t:conn:never", "2"});  // blocks 2 s server-side
  const auto took = std::chrono::steady_clock::now() - t0;
  QVERIFY(!slow.ok());
  QCOMPARE(slow.error().code, ErrorCode::Timeout);
  QVERIFY2(slow.error().message.find("timed out") != std::string::npos, slow.error().message.c_str());
  QVERIFY(took < std::chrono::milliseconds(1900));  // generous: the 2 s block was not awaited
  QVERIFY(!c->connected());
  QVERIFY(c->circuitOpen());
  auto fast = c->command({"PING"});  // the circuit is open: fails at once, no second timeout
  QVERIFY(!fast.ok());
  QCOMPARE(fast.error().code, ErrorCode::Unavailable);
  QVERIFY2(fast.error().message.find("circuit open") != std::string::npos, fast.error().message.c_str());
  // After the backoff a probe gets PONG and closes the circuit.
  bool back = false;
  for (int i = 0; i < 100 && !back; ++i) {
    back = c->command({"PING"}).ok();
    if (!back) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  QVERIFY(back);
  QVERIFY(!c->circuitOpen());
  QCOMPARE(c->reconnects(), 1);
}

void RedisConnectionTest::backsOffWhileServerIsDown() {
  test::RedisTestServer other;
  RL_REQUIRE_REDIS(other);
  auto c = other.connect();
  QVERIFY(c.ok());
  QVERIFY(other.server().stop().ok());
  auto broken = c->command({"PING"});  // the socket breaks: EOF or reset
  QVERIFY(!broken.ok());
  QCOMPARE(broken.error().code, ErrorCode::Unavailable);
  auto refused = c->command({"PING"});  // first reconnect attempt: refused, backoff starts
  QVERIFY(!refused.ok());
  QVERIFY2(refused.error().message.find("Connection refused") != std::string::npos, refused.error().message.c_str());
  auto waiting = c->command({"PING"});  // within the backoff: fails fast, says when it retries
  QVERIFY(!waiting.ok());
  QVERIFY2(waiting.error().message.find("next probe in") != std::string::npos,
           waiting.error().message.c_str());
  QVERIFY(other.server().restart().ok());
  bool back = false;
  for (int i = 0; i < 200 && !back; ++i) {  // backoff is at most 250 ms; generous bound
    back = c->command({"PING"}).ok();
    if (!back) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  QVERIFY(back);
  QCOMPARE(c->reconnects(), 1);
}

QTEST_GUILESS_MAIN(RedisConnectionTest)
#include "test_redis_connection.moc"
