#include "process/owned_child.hpp"

#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <thread>

namespace rl {

namespace {
// ---- registry for the signal handler (async-signal-safe data only) ----------
constexpr std::size_t kMaxServers = 64;
constexpr std::size_t kDirLen = 256;
struct Slot {
  std::atomic<int> pid{0};     ///< live child pid, 0 = free slot
  char dir[kDirLen] = {};      ///< its temp dir (NUL-terminated)
};
std::array<Slot, kMaxServers> gSlots;

}  // namespace

void registerOwnedChild(int pid, const std::string& dir) {
  for (auto& s : gSlots) {
    int expected = 0;
    if (!s.pid.compare_exchange_strong(expected, -1)) continue;  // claim the slot, then fill it
    std::strncpy(s.dir, dir.c_str(), kDirLen - 1);
    s.pid.store(pid);
    return;
  }
}

bool ownedChildRegistered(int pid) {
  for (auto& s : gSlots)
    if (s.pid.load() == pid) return true;
  return false;
}

void unregisterOwnedChild(int pid) {
  for (auto& s : gSlots) {
    int expected = pid;
    if (s.pid.compare_exchange_strong(expected, 0)) return;
  }
}

namespace {

// Removes the files an owned child may leave (a redis-server's, the nginx
// front's), its empty subdirs, then the dir (signal-safe calls only).
void removeDirSignalSafe(const char* dir) {
  static const char* const kFiles[] = {"/redis.log", "/dump.rdb",  "/appendonly.aof", "/nodes.conf", "/sentinel.conf",
                                       "/nginx.conf", "/nginx.pid", "/owner.pid",      "/error.log"};
  static const char* const kDirs[] = {"/body", "/proxy", "/fastcgi", "/uwsgi", "/scgi"};
  char path[kDirLen + 32];
  const std::size_t n = std::strlen(dir);
  std::memcpy(path, dir, n);
  for (const char* f : kFiles) {
    std::memcpy(path + n, f, std::strlen(f) + 1);
    ::unlink(path);
  }
  for (const char* d : kDirs) {
    std::memcpy(path + n, d, std::strlen(d) + 1);
    ::rmdir(path);
  }
  ::rmdir(dir);
}

extern "C" void onTerminatingSignal(int sig) {
  stopAllManagedServers();
  ::_exit(128 + sig);
}

// Forks and execs from one long-lived thread. PR_SET_PDEATHSIG fires when the
// *thread* that forked exits, so forking from a caller's worker thread would
// kill the server with that thread; this thread lives until the process ends.
class Spawner {
 public:
  static Spawner& instance() {
    // Never destroyed: its thread runs until exit. A forked child has no copy
    // of that thread, so a process that is not the creator makes its own.
    static std::mutex guard;
    static Spawner* s = nullptr;
    static pid_t owner = 0;
    std::lock_guard lock(guard);
    if (!s || owner != ::getpid()) {
      s = new Spawner;
      owner = ::getpid();
    }
    return *s;
  }
  /// Runs fork + exec of `argv` on the spawner thread; returns the pid or -errno.
  int spawn(std::vector<char*>& argv, std::optional<std::pair<unsigned, unsigned>> runAs) {
    std::unique_lock lock(mutex_);
    idle_.wait(lock, [&] { return job_ == nullptr; });
    Job job{&argv, runAs, 0, false};
    job_ = &job;
    wake_.notify_all();
    idle_.wait(lock, [&] { return job.done; });
    job_ = nullptr;
    idle_.notify_all();
    return job.result;
  }

 private:
  struct Job {
    std::vector<char*>* argv;  ///< NULL-terminated
    std::optional<std::pair<unsigned, unsigned>> runAs;  ///< uid, gid to drop to
    int result;                ///< pid or -errno
    bool done;                 ///< set by the spawner thread
  };
  Spawner() { std::thread([this] { loop(); }).detach(); }
  [[noreturn]] void loop() {
    std::unique_lock lock(mutex_);
    for (;;) {
      wake_.wait(lock, [&] { return job_ != nullptr && !job_->done; });
      job_->result = forkExec(*job_->argv, job_->runAs);
      job_->done = true;
      idle_.notify_all();
    }
  }
  static int forkExec(std::vector<char*>& argv, std::optional<std::pair<unsigned, unsigned>> runAs) {
    const pid_t parent = ::getpid();
    const pid_t pid = ::fork();
    if (pid < 0) return -errno;
    if (pid == 0) {
      // Child: only async-signal-safe calls until exec. Credentials change before
      // PR_SET_PDEATHSIG, because a change of user clears it.
      if (runAs && ::geteuid() == 0 &&
          (::setgroups(0, nullptr) != 0 || ::setgid(runAs->second) != 0 || ::setuid(runAs->first) != 0))
        ::_exit(126);
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != parent) ::_exit(127);  // the owner died before prctl
      const int devnull = ::open("/dev/null", O_RDWR);
      if (devnull >= 0) {
        ::dup2(devnull, 0);
        ::dup2(devnull, 1);
        ::dup2(devnull, 2);
      }
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
    return pid;
  }

  std::mutex mutex_;                 ///< guards job_
  std::condition_variable wake_;     ///< a job arrived
  std::condition_variable idle_;     ///< a job finished / the slot is free
  Job* job_ = nullptr;               ///< the job in progress
};
}  // namespace

int spawnOwnedChild(std::vector<char*>& argv, std::optional<std::pair<unsigned, unsigned>> runAs) {
  return Spawner::instance().spawn(argv, runAs);
}

void stopAllManagedServers() {
  for (auto& s : gSlots) {
    int pid = s.pid.load();
    if (pid <= 0 || !s.pid.compare_exchange_strong(pid, 0)) continue;
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
    removeDirSignalSafe(s.dir);
  }
}

void installServerSignalCleanup() {
  struct sigaction sa{};
  sa.sa_handler = onTerminatingSignal;
  sigemptyset(&sa.sa_mask);
  ::sigaction(SIGINT, &sa, nullptr);
  ::sigaction(SIGTERM, &sa, nullptr);
}

}  // namespace rl
