#include "redis/managed_redis_server.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "process/readiness.hpp"
#include "process/loopback_port.hpp"
#include "redis/redis_connection.hpp"

namespace rl {



namespace {

// True when the server answers PING with PONG, or (with `authOk`) with an AUTH demand.
bool answersPing(int port, Micros timeout, bool authOk = false) {
  RedisEndpoint ep;
  ep.port = port;
  ep.connectTimeout = timeout;
  ep.commandTimeout = timeout;
  auto c = RedisConnection::connect(ep);
  if (!c) return false;
  auto r = c->command({"PING"});
  if (r) return r->str() == "PONG";
  return authOk && r.error().message.starts_with("NOAUTH");
}

// True when the redis-server answering on `port` is process `pid`: a port
// found free may be taken by another server before ours binds it, and we must
// never mistake someone else's server for our own. (With requirepass the
// check cannot run: liveness of `pid` has to do.)
bool isOurServer(int port, int pid) {
  RedisEndpoint ep;
  ep.port = port;
  ep.connectTimeout = ep.commandTimeout = Micros{200'000};
  auto c = RedisConnection::connect(ep);
  if (!c) return false;
  auto info = c->command({"INFO", "server"});
  if (!info) return info.error().message.starts_with("NOAUTH") && ::kill(pid, 0) == 0;
  return info->str().find("process_id:" + std::to_string(pid) + "\r\n") != std::string_view::npos;
}

// The pid a redis.log was written by ("12345:M 02 Dec ..."), or 0.
int logOwnerPid(const std::filesystem::path& log) {
  std::ifstream in(log);
  int pid = 0;
  char colon = 0;
  if (in >> pid >> colon && colon == ':') return pid;
  return 0;
}

// Removes temp dirs of managed servers that died without cleanup (their owner
// was SIGKILLed: PR_SET_PDEATHSIG killed the server, nobody removed the dir).
// Only dirs older than a minute, whose redis.log names a dead process, and
// that hold nothing but the files a managed server writes.
void sweepStaleDirs() {
  namespace fs = std::filesystem;
  std::error_code ec;
  const auto now = fs::file_time_type::clock::now();
  for (const auto& entry : fs::directory_iterator(fs::temp_directory_path(ec), ec)) {
    const auto name = entry.path().filename().string();
    if (!name.starts_with("ratelab-redis-") || !entry.is_directory(ec)) continue;
    if (now - fs::last_write_time(entry.path(), ec) < std::chrono::minutes(1) || ec) continue;
    const int pid = logOwnerPid(entry.path() / "redis.log");
    if (pid <= 0 || ::kill(pid, 0) == 0 || errno != ESRCH) continue;
    bool ours = true;
    for (const auto& f : fs::directory_iterator(entry.path(), ec)) {
      const auto fn = f.path().filename().string();
      ours = ours && (fn == "redis.log" || fn == "dump.rdb" || fn == "appendonly.aof" || fn == "nodes.conf" ||
                      fn == "sentinel.conf");
    }
    if (ours) fs::remove_all(entry.path(), ec);
  }
}

}  // namespace

std::optional<std::string> findRedisServer() {
  if (const char* path = std::getenv("PATH")) {
    std::stringstream ss(path);
    std::string dir;
    while (std::getline(ss, dir, ':')) {
      if (dir.empty()) continue;
      const std::string p = dir + "/redis-server";
      if (::access(p.c_str(), X_OK) == 0) return p;
    }
  }
  if (::access("/usr/bin/redis-server", X_OK) == 0) return std::string("/usr/bin/redis-server");
  return std::nullopt;
}


Result<ManagedRedisServer> ManagedRedisServer::start(const ManagedServerOptions& options) {
  ManagedRedisServer s;
  if (!options.executable.empty()) {
    if (::access(options.executable.c_str(), X_OK) != 0)
      return unavailable("redis-server '" + options.executable + "' is not an executable file: " +
                         std::strerror(errno));
    s.executable_ = options.executable;
  } else if (auto found = findRedisServer()) {
    s.executable_ = *found;
  } else {
    return unavailable("redis-server not found in PATH or /usr/bin: install it (Debian: apt install "
                       "redis-server) or pass --redis URL");
  }
  s.extraArgs_ = options.extraArgs;
  s.sentinelConfig_ = options.sentinelConfig;
  s.startTimeout_ = options.startTimeout;
  sweepStaleDirs();
  std::string tmpl = (std::filesystem::temp_directory_path() / "ratelab-redis-XXXXXX").string();
  if (!::mkdtemp(tmpl.data()))
    return unavailable("cannot create a temp dir for redis-server: " + std::string(std::strerror(errno)));
  s.dir_ = tmpl;
  // A port picked free can be taken before redis binds it: try a few.
  Result<void> started = unavailable("redis-server did not start");
  for (int attempt = 0; attempt < 3 && !started; ++attempt) {
    if (options.port != 0) {
      s.port_ = options.port;
    } else {
      auto p = freePort();
      if (!p) return p.error();
      s.port_ = *p;
    }
    started = s.spawn();
    if (options.port != 0) break;
  }
  if (!started) return started.error();
  return s;
}

Result<void> ManagedRedisServer::spawn() {
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);  // a long-stopped server's dir may have been swept
  const std::string port = std::to_string(port_);
  const std::string log = dir_ + "/redis.log";
  std::vector<std::string> args = {executable_};
  if (!sentinelConfig_.empty()) {  // a Sentinel: its config file first (it must be writable), then --sentinel
    const std::string conf = dir_ + "/sentinel.conf";
    if (!std::filesystem::exists(conf, ec)) {
      std::ofstream out(conf);
      for (const auto& line : sentinelConfig_) out << line << "\n";
      if (!out) return unavailable("cannot write " + conf);
    }
    args.insert(args.end(), {conf, "--sentinel"});
  }
  args.insert(args.end(), {"--port", port, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir_,
                           "--logfile", log, "--daemonize", "no"});
  args.insert(args.end(), extraArgs_.begin(), extraArgs_.end());
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const int pid = spawnOwnedChild(argv);
  if (pid < 0) return unavailable(std::string("cannot fork redis-server: ") + std::strerror(-pid));
  pid_ = pid;
  registerOwnedChild(pid, dir_);
  const auto start = waitUntilReady(pid, [&] { return answersPing(port_, Micros{200'000}, true) && isOurServer(port_, pid); },
                                    startTimeout_);
  if (start == ChildStart::Ready) return {};
  if (start == ChildStart::Exited) {
    unregisterOwnedChild(pid);
    pid_ = 0;
    return unavailable("redis-server on 127.0.0.1:" + port + " exited at start: " + tailOfFile(log));
  }
  (void)stop();
  return unavailable("redis-server on 127.0.0.1:" + port + " did not answer PING within " +
                     std::to_string(startTimeout_.count() / 1000) + " ms: " + tailOfFile(log));
}

Result<void> ManagedRedisServer::stop() {
  if (pid_ <= 0) return {};
  const int pid = pid_;
  if (!ownedChildRegistered(pid)) {  // stopAllManagedServers() already killed and reaped it
    pid_ = 0;
    return {};
  }
  ::kill(pid, SIGCONT);  // a paused server must run to handle SIGTERM
  stopChild(pid, SIGTERM, Micros{2'000'000});
  unregisterOwnedChild(pid);
  pid_ = 0;
  return {};
}

Result<void> ManagedRedisServer::kill() {
  if (pid_ <= 0) return unavailable("the managed redis-server is not running: nothing to kill");
  const int pid = pid_;
  pid_ = 0;
  if (!ownedChildRegistered(pid)) return {};  // stopAllManagedServers() already killed and reaped it
  stopChild(pid, SIGKILL, Micros{2'000'000});
  unregisterOwnedChild(pid);
  return {};
}

Result<void> ManagedRedisServer::pause() {
  if (pid_ <= 0) return unavailable("the managed redis-server is not running: nothing to pause");
  if (::kill(pid_, SIGSTOP) != 0) return unavailable("cannot pause the managed redis-server: " + std::string(std::strerror(errno)));
  return {};
}

Result<void> ManagedRedisServer::resume() {
  if (pid_ <= 0) return unavailable("the managed redis-server is not running: nothing to resume");
  if (::kill(pid_, SIGCONT) != 0) return unavailable("cannot resume the managed redis-server: " + std::string(std::strerror(errno)));
  return {};
}

Result<void> ManagedRedisServer::restart() {
  if (auto ok = stop(); !ok) return ok;
  if (dir_.empty()) return unavailable("this managed server was moved from or released");
  return spawn();
}

RedisEndpoint ManagedRedisServer::endpoint() const {
  RedisEndpoint ep;
  ep.host = "127.0.0.1";
  ep.port = port_;
  return ep;
}

void ManagedRedisServer::release() {
  (void)stop();
  if (!dir_.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
    dir_.clear();
  }
}

ManagedRedisServer::ManagedRedisServer(ManagedRedisServer&& o) noexcept
    : executable_(std::move(o.executable_)),
      extraArgs_(std::move(o.extraArgs_)),
      sentinelConfig_(std::move(o.sentinelConfig_)),
      startTimeout_(o.startTimeout_),
      dir_(std::exchange(o.dir_, {})),
      port_(o.port_),
      pid_(std::exchange(o.pid_, 0)) {}

ManagedRedisServer& ManagedRedisServer::operator=(ManagedRedisServer&& o) noexcept {
  if (this != &o) {
    release();
    executable_ = std::move(o.executable_);
    extraArgs_ = std::move(o.extraArgs_);
    sentinelConfig_ = std::move(o.sentinelConfig_);
    startTimeout_ = o.startTimeout_;
    dir_ = std::exchange(o.dir_, {});
    port_ = o.port_;
    pid_ = std::exchange(o.pid_, 0);
  }
  return *this;
}

ManagedRedisServer::~ManagedRedisServer() { release(); }

Result<EmbeddedRedis> resolveEmbeddedDefault(int probePort, const ManagedServerOptions& options) {
  EmbeddedRedis out;
  if (probePort > 0 && answersPing(probePort, Micros{100'000})) {
    out.endpoint.port = probePort;
    out.description = "using the Redis at 127.0.0.1:" + std::to_string(probePort);
    return out;
  }
  auto server = ManagedRedisServer::start(options);
  if (!server)
    return unavailable("no Redis at 127.0.0.1:" + std::to_string(probePort) +
                       " and no private redis-server could be started (" + server.error().message +
                       "): install redis-server or give a Redis URL");
  out.endpoint = server->endpoint();
  out.description = "started a private redis-server on 127.0.0.1:" + std::to_string(server->port()) +
                    " (stopped on exit)";
  out.server.emplace(std::move(server).value());
  return out;
}

}  // namespace rl
