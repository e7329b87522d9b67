// ManagedRedisServer: started on a free loopback port in a temp dir, ready on
// PING, stopped and cleaned up on destruction, on SIGTERM, and when its owner
// is killed; the embedded default's choice of Redis.

#include <QtTest>

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <thread>

#include "redis/managed_redis_server.hpp"
#include "redis/redis_connection.hpp"

using namespace rl;

namespace {
bool answers(int port) {
  RedisEndpoint ep;
  ep.port = port;
  auto c = RedisConnection::connect(ep);
  return c && c->command({"PING"}).ok();
}

// Polls until `port` stops answering (true) or `timeout` passes (false).
bool goesQuiet(int port, std::chrono::seconds timeout) {
  const auto end = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < end) {
    if (!answers(port)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

struct ChildServer {
  pid_t child = 0;   ///< the owner process
  int port = 0;      ///< its server's port
  int server = 0;    ///< its server's pid
  std::string dir;   ///< its server's temp dir
};

// Forks a child that starts a managed server (optionally with the signal
// cleanup installed), reports "port dir" through a pipe and waits to be killed.
ChildServer forkServerOwner(bool installCleanup) {
  int fds[2];
  if (::pipe(fds) != 0) return {};
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    if (installCleanup) installServerSignalCleanup();
    auto s = ManagedRedisServer::start();
    char line[512];
    const int n = s ? std::snprintf(line, sizeof line, "%d %d %s\n", s->port(), s->pid(), s->dir().c_str())
                    : std::snprintf(line, sizeof line, "0 0 -\n");
    if (::write(fds[1], line, static_cast<std::size_t>(n)) != n) ::_exit(3);
    for (;;) ::pause();
  }
  ::close(fds[1]);
  ChildServer out;
  out.child = pid;
  char buf[512] = {};
  std::size_t got = 0;
  ssize_t n;
  while (got < sizeof buf - 1 && (n = ::read(fds[0], buf + got, sizeof buf - 1 - got)) > 0) {
    got += static_cast<std::size_t>(n);
    if (buf[got - 1] == '\n') break;
  }
  ::close(fds[0]);
  char dir[400] = {};
  if (std::sscanf(buf, "%d %d %399s", &out.port, &out.server, dir) == 3) out.dir = dir;
  return out;
}
}  // namespace

class ManagedRedisServerTest : public QObject {
  Q_OBJECT
 private slots:
  void startsPingsStopsAndCleansUp();
  void restartsOnTheSamePort();
  void reportsMissingExecutable();
  void neverTakesAnotherServerForItsOwn();
  void outlivesTheThreadThatStartedIt();
  void diesWithKilledOwner();
  void sweepsDirsOfKilledOwners();
  void signalCleanupStopsServers();
  void embeddedDefaultUsesAnsweringRedis();
  void embeddedDefaultStartsPrivateServer();
  void embeddedDefaultFallsBackToMemory();
};

void ManagedRedisServerTest::startsPingsStopsAndCleansUp() {
  QVERIFY(findRedisServer().has_value());
  std::string dir;
  int port = 0;
  {
    auto s = ManagedRedisServer::start();
    QVERIFY2(s.ok(), s.ok() ? "" : s.error().message.c_str());
    dir = s->dir();
    port = s->port();
    QVERIFY(port > 0 && port != 6379);
    QVERIFY(s->running());
    QVERIFY(std::filesystem::is_directory(dir));
    QVERIFY(answers(port));
    QCOMPARE(QString::fromStdString(s->endpoint().toString()), QString("redis://127.0.0.1:%1/0").arg(port));
    auto c = RedisConnection::connect(s->endpoint());
    auto cfg = c->command({"CONFIG", "GET", "save"});
    QCOMPARE(cfg->size(), std::size_t{2});
    QCOMPARE((*cfg)[1].str(), std::string_view(""));  // no snapshots
    auto aof = c->command({"CONFIG", "GET", "appendonly"});
    QCOMPARE((*aof)[1].str(), std::string_view("no"));
    auto bind = c->command({"CONFIG", "GET", "bind"});
    QCOMPARE((*bind)[1].str(), std::string_view("127.0.0.1"));
    QVERIFY(s->stop().ok());
    QVERIFY(!s->running());
    QVERIFY(!answers(port));
    QVERIFY(std::filesystem::is_directory(dir));  // kept for restart()
  }
  QVERIFY(!std::filesystem::exists(dir));  // removed by the destructor
}

void ManagedRedisServerTest::restartsOnTheSamePort() {
  auto s = ManagedRedisServer::start();
  QVERIFY(s.ok());
  const int port = s->port();
  const int firstPid = s->pid();
  QVERIFY(s->restart().ok());
  QCOMPARE(s->port(), port);
  QVERIFY(s->pid() != firstPid);
  QVERIFY(answers(port));
  ManagedRedisServer moved = std::move(s).value();  // move keeps ownership
  QVERIFY(answers(moved.port()));
}

void ManagedRedisServerTest::reportsMissingExecutable() {
  ManagedServerOptions o;
  o.executable = "/nonexistent/redis-server";
  auto s = ManagedRedisServer::start(o);
  QVERIFY(!s.ok());
  QCOMPARE(s.error().code, ErrorCode::Unavailable);
  QCOMPARE(QString::fromStdString(s.error().message),
           QString("redis-server '/nonexistent/redis-server' is not an executable file: No such file or directory"));
}

void ManagedRedisServerTest::neverTakesAnotherServerForItsOwn() {
  auto first = ManagedRedisServer::start();
  QVERIFY(first.ok());
  ManagedServerOptions o;
  o.port = first->port();  // taken: the second server cannot bind, though PING there answers
  auto second = ManagedRedisServer::start(o);
  QVERIFY(!second.ok());
  QCOMPARE(second.error().code, ErrorCode::Unavailable);
  QVERIFY2(second.error().message.starts_with("redis-server on 127.0.0.1:" + std::to_string(o.port)),
           second.error().message.c_str());
  QVERIFY(answers(first->port()));  // the first one is untouched
}

void ManagedRedisServerTest::outlivesTheThreadThatStartedIt() {
  // PR_SET_PDEATHSIG follows the forking thread: servers are forked from one
  // long-lived internal thread, so a worker thread may start one and exit.
  std::optional<ManagedRedisServer> server;
  std::thread([&] {
    auto s = ManagedRedisServer::start();
    if (s) server.emplace(std::move(s).value());
  }).join();
  QVERIFY(server.has_value());
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  QVERIFY(answers(server->port()));
}

void ManagedRedisServerTest::diesWithKilledOwner() {
  // Orphans are re-parented to this process (not to an init that may not reap
  // them), so the test can see the server process itself end.
  QCOMPARE(::prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
  const ChildServer c = forkServerOwner(false);
  QVERIFY2(c.port > 0, "the child could not start redis-server");
  QVERIFY(answers(c.port));
  ::kill(c.child, SIGKILL);  // no destructor, no handler: only PR_SET_PDEATHSIG can stop the server
  ::waitpid(c.child, nullptr, 0);
  QVERIFY2(goesQuiet(c.port, std::chrono::seconds(5)), "redis-server outlived its killed owner");
  int status = 0;
  bool reaped = false;
  for (int i = 0; i < 250 && !reaped; ++i) {
    reaped = ::waitpid(c.server, &status, WNOHANG) == c.server;
    if (!reaped) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  QVERIFY2(reaped, "the orphaned redis-server did not end");
  QVERIFY(WIFSIGNALED(status));
  QCOMPARE(WTERMSIG(status), SIGKILL);
  std::filesystem::remove_all(c.dir);  // the killed owner could not remove its dir
}

void ManagedRedisServerTest::sweepsDirsOfKilledOwners() {
  namespace fs = std::filesystem;
  // A dead pid: a child that has exited and been reaped.
  const pid_t dead = ::fork();
  if (dead == 0) ::_exit(0);
  ::waitpid(dead, nullptr, 0);
  auto makeDir = [&](const std::string& name, int pid, std::chrono::minutes age) {
    const fs::path d = fs::temp_directory_path() / name;
    fs::create_directories(d);
    std::FILE* f = std::fopen((d / "redis.log").c_str(), "w");
    std::fprintf(f, "%d:M 02 Dec 2026 12:00:00.000 * Ready to accept connections\n", pid);
    std::fclose(f);
    fs::last_write_time(d, fs::file_time_type::clock::now() - age);
    return d;
  };
  const fs::path stale = makeDir("ratelab-redis-teststale" + std::to_string(::getpid()), dead, std::chrono::minutes(5));
  const fs::path young = makeDir("ratelab-redis-testyoung" + std::to_string(::getpid()), dead, std::chrono::minutes(0));
  const fs::path alive = makeDir("ratelab-redis-testalive" + std::to_string(::getpid()), ::getpid(), std::chrono::minutes(5));
  auto s = ManagedRedisServer::start();
  QVERIFY(s.ok());
  QVERIFY(!fs::exists(stale));  // dead owner, a minute old: swept
  QVERIFY(fs::exists(young));   // may be a server still starting: kept
  QVERIFY(fs::exists(alive));   // its process lives: kept
  fs::remove_all(young);
  fs::remove_all(alive);
}

void ManagedRedisServerTest::signalCleanupStopsServers() {
  const ChildServer c = forkServerOwner(true);
  QVERIFY2(c.port > 0, "the child could not start redis-server");
  QVERIFY(std::filesystem::is_directory(c.dir));
  ::kill(c.child, SIGTERM);
  int status = 0;
  ::waitpid(c.child, &status, 0);
  QVERIFY(WIFEXITED(status));
  QCOMPARE(WEXITSTATUS(status), 128 + SIGTERM);
  QVERIFY(!answers(c.port));  // stopped before the owner exited
  QVERIFY(!std::filesystem::exists(c.dir));
}

void ManagedRedisServerTest::embeddedDefaultUsesAnsweringRedis() {
  auto existing = ManagedRedisServer::start();  // stands in for a Redis at the probe port
  QVERIFY(existing.ok());
  auto e = resolveEmbeddedDefault(existing->port());
  QVERIFY(e.ok());
  QCOMPARE(e->endpoint.port, existing->port());
  QVERIFY(!e->server.has_value());
  QCOMPARE(QString::fromStdString(e->description), QString("using the Redis at 127.0.0.1:%1").arg(existing->port()));
}

void ManagedRedisServerTest::embeddedDefaultStartsPrivateServer() {
  auto dead = ManagedRedisServer::start();
  QVERIFY(dead.ok());
  const int probe = dead->port();
  QVERIFY(dead->stop().ok());  // nothing answers there now
  auto e = resolveEmbeddedDefault(probe);
  QVERIFY2(e.ok(), e.ok() ? "" : e.error().message.c_str());
  QVERIFY(e->server.has_value());
  QVERIFY(e->endpoint.port != probe);
  QVERIFY(answers(e->endpoint.port));
  QVERIFY(QString::fromStdString(e->description).startsWith("started a private redis-server on 127.0.0.1:"));
}

void ManagedRedisServerTest::embeddedDefaultFallsBackToMemory() {
  auto dead = ManagedRedisServer::start();
  QVERIFY(dead.ok());
  const int probe = dead->port();
  QVERIFY(dead->stop().ok());
  ManagedServerOptions o;
  o.executable = "/nonexistent/redis-server";
  auto e = resolveEmbeddedDefault(probe, o);
  QVERIFY(!e.ok());
  QCOMPARE(e.error().code, ErrorCode::Unavailable);
  const QString msg = QString::fromStdString(e.error().message);
  // The CLI exits 3 with this text: it must not claim a memory-store fallback.
  QVERIFY2(!msg.contains("memory store"), qPrintable(msg));
  QVERIFY2(msg.contains("install redis-server or give a Redis URL"), qPrintable(msg));
  QVERIFY2(msg.contains(QString("no Redis at 127.0.0.1:%1").arg(probe)), qPrintable(msg));
}

QTEST_GUILESS_MAIN(ManagedRedisServerTest)
#include "test_managed_redis_server.moc"
