#include "process/readiness.hpp"

#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <cerrno>
#include <fstream>
#include <sstream>
#include <thread>

namespace rl {

bool pollUntil(const std::function<bool()>& check, Micros timeout, Micros every) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    if (check()) return true;
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline) return false;
    std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(every, deadline - now));
  }
}

ChildStart waitUntilReady(int pid, const std::function<bool()>& ready, Micros timeout, Micros every) {
  bool exited = false;
  const bool done = pollUntil(
      [&] {
        exited = ::waitpid(pid, nullptr, WNOHANG) == pid;
        return exited || ready();
      },
      timeout, every);
  if (exited) return ChildStart::Exited;
  return done ? ChildStart::Ready : ChildStart::TimedOut;
}

bool waitExit(int pid, Micros timeout) {
  return pollUntil(
      [pid] {
        const int r = ::waitpid(pid, nullptr, WNOHANG);
        return r == pid || (r < 0 && errno == ECHILD);
      },
      timeout, Micros{5'000});
}

void stopChild(int pid, int signal, Micros grace) {
  if (pid <= 0) return;
  ::kill(pid, signal);
  if (waitExit(pid, grace)) return;
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
}

std::string tailOfFile(const std::string& path, std::size_t maxChars) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string s = ss.str();
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  if (s.size() > maxChars) s = "..." + s.substr(s.size() - maxChars);
  return s;
}

}  // namespace rl
