#include "http/nginx_front.hpp"

#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "http/replica_server.hpp"
#include "process/readiness.hpp"
#include "process/loopback_port.hpp"
#include "process/owned_child.hpp"

namespace rl {
namespace {

namespace fs = std::filesystem;

std::string hostPort(const std::string& address, int port) {
  const bool v6 = address.find(':') != std::string::npos;
  return (v6 ? "[" + address + "]" : address) + ":" + std::to_string(port);
}

std::int64_t seconds(Micros d) { return std::max<std::int64_t>(1, (d.count() + 999'999) / 1'000'000); }

std::string errorLogOf(const std::string& dir) {
  const std::string tail = tailOfFile(dir + "/error.log", 300);
  return tail.empty() ? "(no error log)" : tail;
}

// Removes dirs of fronts whose owner was killed (the child died with it; nobody removed the dir).
void sweepStaleDirs() {
  std::error_code ec;
  const auto now = fs::file_time_type::clock::now();
  for (const auto& e : fs::directory_iterator(fs::temp_directory_path(), ec)) {
    if (e.path().filename().string().rfind("ratelab-nginx-", 0) != 0) continue;
    std::ifstream pidFile(e.path() / "owner.pid");
    int owner = 0;
    pidFile >> owner;
    const bool ownerAlive = owner > 0 && ::kill(owner, 0) == 0;
    if (!ownerAlive && now - fs::last_write_time(e.path(), ec) > std::chrono::minutes(1)) fs::remove_all(e.path(), ec);
  }
}

// An id no user or group has (systemd's DynamicUser range, 61184-65519),
// picked from this process's pid, for nginx to run as when RateLab is root:
// its dir (0700) and config (0600, it holds the front's secret) are then
// readable by root and that id only, not by every process running as nobody.
std::optional<unsigned> privateServiceId() {
  constexpr unsigned kFirst = 61184, kCount = 65519 - 61184 + 1;
  for (unsigned i = 0; i < kCount; ++i) {
    const unsigned id = kFirst + (static_cast<unsigned>(::getpid()) + i) % kCount;
    if (::getpwuid(id) == nullptr && ::getgrgid(id) == nullptr) return id;
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> findNginx() {
  if (const char* path = std::getenv("PATH")) {
    std::stringstream dirs(path);
    std::string d;
    while (std::getline(dirs, d, ':'))
      if (!d.empty() && ::access((d + "/nginx").c_str(), X_OK) == 0) return d + "/nginx";
  }
  if (::access("/usr/sbin/nginx", X_OK) == 0) return std::string("/usr/sbin/nginx");
  return std::nullopt;
}

std::string nginxConfig(const NginxFrontOptions& o, int port, const std::string& dir) {
  const auto& l = o.limits;
  const int workers = o.workerConnections > 0 ? o.workerConnections : 2 * l.maxConnections + nginxPool(o);
  std::ostringstream c;
  c << "# written by ratelab-cli serve --front nginx; removed when it stops\n"
    << "daemon off;\nmaster_process off;\nworker_processes 1;\n"
    << "pid " << dir << "/nginx.pid;\nerror_log " << dir << "/error.log warn;\n"
    << "worker_rlimit_nofile " << workers + 32 << ";\n"
    << "events { worker_connections " << workers << "; }\n"
    << "http {\n  access_log off;\n";
  if (l.maxPerAddress > 0)  // more from one address: 503, as the builtin front answers
    c << "  limit_conn_zone $binary_remote_addr zone=ratelab_per_address:1m;\n"
      << "  limit_conn ratelab_per_address " << l.maxPerAddress << ";\n  limit_conn_status 503;\n";
  c << "  reset_timedout_connection on;\n"
    << "  client_body_temp_path " << dir << "/body;\n  proxy_temp_path " << dir << "/proxy;\n"
    << "  fastcgi_temp_path " << dir << "/fastcgi;\n  uwsgi_temp_path " << dir << "/uwsgi;\n"
    << "  scgi_temp_path " << dir << "/scgi;\n"
    << "  client_header_buffer_size " << std::min<std::size_t>(l.message.maxHeaderBytes, 1024) << ";\n"
    << "  large_client_header_buffers 1 " << l.message.maxHeaderBytes << ";\n"
    << "  client_max_body_size " << l.message.maxBodyBytes << ";\n"
    << "  client_header_timeout " << seconds(l.headerTimeout) << "s;\n"
    << "  client_body_timeout " << seconds(l.headerTimeout) << "s;\n"
    << "  keepalive_timeout " << seconds(l.idleTimeout) << "s;\n  keepalive_requests 1000000;\n"
    << "  upstream ratelab_replicas {\n";
  for (const int p : o.replicaPorts) c << "    server " << hostPort(o.upstreamAddress, p) << " max_fails=0;\n";
  c << "    keepalive " << nginxPool(o) << ";\n  }\n"
    << "  server {\n    listen " << hostPort(o.bindAddress, port) << ";\n"
    << "    location / {\n      proxy_pass http://ratelab_replicas;\n      proxy_http_version 1.1;\n"
    << "      proxy_set_header Connection \"\";\n      proxy_set_header Expect \"\";\n"
    << "      proxy_set_header X-Forwarded-For $remote_addr;\n"
    << "      proxy_set_header X-RateLab-Front \"" << o.secret << "\";\n"
    << "      proxy_next_upstream off;\n      proxy_connect_timeout 5s;\n"
    << "      proxy_read_timeout " << seconds(o.upstreamTimeout) << "s;\n"
    << "    }\n  }\n}\n";
  return c.str();
}

Result<std::unique_ptr<NginxFront>> NginxFront::start(const NginxFrontOptions& options) {
  auto executable = options.executable.empty() ? findNginx() : std::optional(options.executable);
  if (!executable)
    return unavailable("nginx not found in PATH or /usr/sbin: install it (Debian: apt install nginx-light) or use "
                       "--front builtin");
  if (options.replicaPorts.empty()) return invalidArgument("the nginx front needs at least one replica");
  sweepStaleDirs();
  std::unique_ptr<NginxFront> f(new NginxFront);
  std::string tmpl = (fs::temp_directory_path() / "ratelab-nginx-XXXXXX").string();
  if (!::mkdtemp(tmpl.data())) return unavailable("cannot create a temp dir for nginx: " + std::string(std::strerror(errno)));
  f->dir_ = tmpl;
  f->address_ = options.bindAddress;
  Result<void> started = unavailable("nginx did not start");
  for (int attempt = 0; attempt < 3 && !started; ++attempt) started = f->launch(*executable, options);
  if (!started) return started.error();
  return f;
}

Result<void> NginxFront::launch(const std::string& executable, const NginxFrontOptions& o) {
  auto port = o.port != 0 ? Result<int>(o.port) : freePort(o.bindAddress);
  if (!port) return port.error();
  const std::string conf = dir_ + "/nginx.conf";
  std::ofstream(conf) << nginxConfig(o, *port, dir_);
  ::chmod(conf.c_str(), 0600);  // the secret: never readable by others (the dir is 0700 too, from mkdtemp)
  std::ofstream(dir_ + "/owner.pid") << ::getpid() << "\n";
  std::optional<std::pair<unsigned, unsigned>> runAs;
  if (::geteuid() == 0) {
    const auto id = privateServiceId();
    if (!id) return unavailable("no free user id in 61184-65519 to run nginx as (it must not run as root)");
    runAs = std::pair<unsigned, unsigned>(*id, *id);
    for (const auto& p : {fs::path(dir_), fs::path(conf)})
      if (::chown(p.c_str(), *id, *id) != 0)
        return unavailable("cannot hand " + p.string() + " to nginx's user id " + std::to_string(*id) + ": " +
                           std::strerror(errno));
  }
  std::vector<std::string> args = {executable, "-p", dir_, "-c", conf, "-e", dir_ + "/error.log"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const int pid = spawnOwnedChild(argv, runAs);
  if (pid < 0) return unavailable(std::string("cannot fork nginx: ") + std::strerror(-pid));
  pid_ = pid;
  registerOwnedChild(pid, dir_);  // a SIGINT/SIGTERM of the owner stops it and removes the dir
  const auto start = waitUntilReady(pid, [&] { return accepts(o.bindAddress, *port); }, Micros{5'000'000});
  if (start == ChildStart::Ready) {
    port_ = *port;
    return {};
  }
  if (start == ChildStart::Exited) {
    unregisterOwnedChild(pid);
    pid_ = 0;
    return unavailable("nginx on " + hostPort(o.bindAddress, *port) + " exited at start: " + errorLogOf(dir_));
  }
  stopChild(pid, SIGKILL, Micros{2'000'000});
  unregisterOwnedChild(pid);
  pid_ = 0;
  return unavailable("nginx did not accept connections within 5 s: " + errorLogOf(dir_));
}

NginxFront::~NginxFront() {
  if (pid_ > 0 && ownedChildRegistered(pid_)) {  // else stopAllManagedServers() killed and reaped it
    stopChild(pid_, SIGQUIT, Micros{2'000'000});  // graceful: finish the requests in progress
    unregisterOwnedChild(pid_);
  }
  std::error_code ec;
  if (!dir_.empty()) fs::remove_all(dir_, ec);
}

std::string NginxFront::url() const { return httpUrl(address_, port_); }

}  // namespace rl
