#include "storm/fault_injector.hpp"

#include <chrono>
#include <cstdio>

#include "process/loopback_port.hpp"
#include "redis/redis_connection.hpp"

namespace rl {

namespace {
constexpr Micros kAdminTimeout{2'000'000};  // CONFIG SET / REPLICAOF on a server the storm keeps busy
constexpr Micros kStallGap{1'000};  // latency: free time between two stalls, so waiting commands get their turn

std::string seconds(Micros d) {  // DEBUG SLEEP takes (fractional) seconds
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6f", static_cast<double>(d.count()) / 1e6);
  return buf;
}
}  // namespace

FaultInjector::FaultInjector(ManagedRedisServer& server, std::vector<FaultEvent> schedule)
    : server_(server),
      schedule_(std::move(schedule)),
      begunUs_(schedule_.size(), -1),
      endedUs_(schedule_.size(), -1) {}

FaultInjector::~FaultInjector() { stop(); }

void FaultInjector::start(std::int64_t originSteadyUs) {
  if (thread_.joinable()) return;
  originSteadyUs_ = originSteadyUs;
  thread_ = std::thread([this] { run(); });
}

void FaultInjector::stop() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

std::int64_t FaultInjector::nowUs() const {
  const auto t = std::chrono::steady_clock::now().time_since_epoch();
  return std::chrono::duration_cast<Micros>(t).count() - originSteadyUs_;
}

bool FaultInjector::sleepUntil(std::int64_t runUs) {
  std::unique_lock lock(mutex_);
  const auto target = std::chrono::steady_clock::time_point(Micros{originSteadyUs_ + runUs});
  cv_.wait_until(lock, target, [this] { return stop_; });
  return !stop_;
}

void FaultInjector::record(std::size_t event, bool begin, const std::string& what, std::int64_t plannedUs,
                           const std::string& error, std::int64_t effectiveUs) {
  const std::int64_t done = nowUs();
  std::lock_guard lock(mutex_);
  actions_.push_back({what, plannedUs, done, error});
  (begin ? begunUs_ : endedUs_)[event] = effectiveUs >= 0 ? effectiveUs : done;
}

void FaultInjector::run() {
  for (std::size_t i = 0; i < schedule_.size(); ++i) {
    const FaultEvent& e = schedule_[i];
    const std::string text = faultText(e);
    const bool windowed = isWindowedFault(e.kind);
    if (!sleepUntil(e.at.count())) break;
    // A signal takes effect when sent; a command once Redis has replied (it applied it first).
    const std::int64_t issued = nowUs();
    const bool signal = e.kind == FaultKind::Kill || e.kind == FaultKind::Pause;
    record(i, true, windowed ? text + " begin" : text, e.at.count(), perform(e, true), signal ? issued : -1);
    if (!windowed) continue;
    if (e.kind == FaultKind::Latency) {  // stalls until its end (or stop), then is over by itself
      const std::string error = stallUntil(e);
      record(i, false, text + " end", e.end.count(), error);
      continue;
    }
    if (!sleepUntil(e.end.count())) {
      undoActive(i);
      break;
    }
    record(i, false, text + " end", e.end.count(), perform(e, false));
  }
  std::lock_guard lock(mutex_);
  for (std::size_t i = 0; i < schedule_.size(); ++i)
    if (begunUs_[i] < 0) actions_.push_back({faultText(schedule_[i]), schedule_[i].at.count(), -1, "not reached: the run ended first"});
}

void FaultInjector::undoActive(std::size_t i) {
  const FaultEvent& e = schedule_[i];
  record(i, false, faultText(e) + " end (the run ended)", e.end.count(), perform(e, false));
}

std::string FaultInjector::adminCommand(const std::vector<std::string>& argv, Micros timeout, std::string* reply) {
  RedisEndpoint ep = server_.endpoint();
  ep.connectTimeout = kAdminTimeout;
  ep.commandTimeout = timeout;
  auto conn = RedisConnection::connect(ep);
  if (!conn) return conn.error().message;
  auto r = conn->command(argv);
  if (!r) return r.error().message;
  if (reply) *reply = std::string(r->isArray() ? (*r)[1].str() : r->str());
  return {};
}

std::string FaultInjector::perform(const FaultEvent& e, bool begin) {
  auto message = [](const Result<void>& r) { return r ? std::string() : r.error().message; };
  switch (e.kind) {
    case FaultKind::Kill: return message(server_.kill());
    case FaultKind::Restart: return message(server_.restart());
    case FaultKind::Pause: return message(begin ? server_.pause() : server_.resume());
    case FaultKind::Latency: return {};  // stallUntil does the work
    case FaultKind::OutOfMemory:
      if (begin) {
        if (auto err = adminCommand({"CONFIG", "GET", "maxmemory"}, kAdminTimeout, &savedMaxmemory_); !err.empty()) return err;
        if (auto err = adminCommand({"CONFIG", "GET", "maxmemory-policy"}, kAdminTimeout, &savedPolicy_); !err.empty()) return err;
        return adminCommand({"CONFIG", "SET", "maxmemory", "1", "maxmemory-policy", "noeviction"}, kAdminTimeout);
      }
      return adminCommand({"CONFIG", "SET", "maxmemory", savedMaxmemory_.empty() ? "0" : savedMaxmemory_,
                           "maxmemory-policy", savedPolicy_.empty() ? "noeviction" : savedPolicy_},
                          kAdminTimeout);
    case FaultKind::ReadOnly: {
      if (!begin) return adminCommand({"REPLICAOF", "NO", "ONE"}, kAdminTimeout);
      auto port = freePort();  // a master nobody answers for: the link stays down, writes get READONLY
      if (!port) return port.error().message;
      return adminCommand({"REPLICAOF", "127.0.0.1", std::to_string(port.value())}, kAdminTimeout);
    }
  }
  return "unknown fault";
}

std::string FaultInjector::stallUntil(const FaultEvent& e) {
  RedisEndpoint ep = server_.endpoint();
  ep.connectTimeout = kAdminTimeout;
  ep.commandTimeout = e.stall + kAdminTimeout;
  auto conn = RedisConnection::connect(ep);
  if (!conn) return conn.error().message;
  while (true) {
    {
      std::lock_guard lock(mutex_);
      if (stop_) return {};
    }
    const Micros left{e.end.count() - nowUs()};
    if (left <= Micros{0}) return {};
    auto r = conn->command({"DEBUG", "SLEEP", seconds(std::min(e.stall, left))});
    if (!r) return r.error().message + " (a managed server allows DEBUG with --enable-debug-command local)";
    std::unique_lock lock(mutex_);
    cv_.wait_for(lock, kStallGap, [this] { return stop_; });
  }
}

std::vector<FaultAction> FaultInjector::actions() const {
  std::lock_guard lock(mutex_);
  return actions_;
}

std::vector<FaultWindow> FaultInjector::windows() const {
  std::vector<FaultWindow> out = faultWindows(schedule_);
  std::lock_guard lock(mutex_);
  std::size_t w = 0;
  for (std::size_t i = 0; i < schedule_.size() && w < out.size(); ++i) {
    if (schedule_[i].kind == FaultKind::Restart) continue;
    FaultWindow& win = out[w++];
    win.reached = begunUs_[i] >= 0;
    if (!win.reached) continue;
    win.startUs = begunUs_[i];
    if (isWindowedFault(schedule_[i].kind)) {
      win.endUs = endedUs_[i] >= 0 ? endedUs_[i] : -1;
      continue;
    }
    win.endUs = -1;  // kill: until its restart answers (or the run ends)
    for (std::size_t j = i + 1; j < schedule_.size(); ++j)
      if (schedule_[j].kind == FaultKind::Restart) {
        win.endUs = begunUs_[j];
        break;
      }
  }
  return out;
}

}  // namespace rl
