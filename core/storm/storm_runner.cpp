#include "storm/storm_runner.hpp"

#include <algorithm>
#include <chrono>

#include "clock/clock.hpp"
#include "store/memory_store.hpp"
#include "storm/storm_runner_detail.hpp"
#include "storm/traffic_plan.hpp"

namespace rl {

namespace {
// Sends of these storms have a time to keep: late ones past the span (and a grace) are dropped.
bool isRateDriven(const StormSpec& s) {
  return s.traceData || s.pattern == Pattern::Constant || s.pattern == Pattern::Ramp || s.pattern == Pattern::Poisson;
}
}  // namespace

StormRunner::StormRunner(StormSpec spec, StoreFactory factory)
    : spec_(std::move(spec)),
      factory_(std::move(factory)),
      recorder_(std::max(spec_.concurrency, 1)),
      quota_(spec_.quota) {
  for (int i = 0; i < std::max(spec_.concurrency, 1); ++i)
    workers_.push_back(std::make_unique<Worker>(spec_.algorithms.size()));
  for (int r = 0; r < std::max(spec_.replicas, 1); ++r)
    replicaClocks_.emplace_back(systemClock_, static_cast<std::size_t>(r) < spec_.skew.size() ? spec_.skew[static_cast<std::size_t>(r)] : Micros{0});
  if (spec_.traceData) {  // a trace's clients are its keys
    for (const std::string& key : spec_.traceData->keys) clientNames_.push_back(spec_.runTag + key);
  } else {
    for (int c = 0; c < std::max(spec_.clients, 1); ++c)
      clientNames_.push_back(spec_.runTag + "client-" + std::to_string(c));
  }
  if (spec_.resilience.onRedisError == FailurePolicy::Local && spec_.backend != Backend::Memory)
    for (int r = 0; r < std::max(spec_.replicas, 1); ++r) fallbacks_.push_back(std::make_unique<MemoryStore>());
  Quota q = spec_.quota;  // the schedule's markers are known before the run
  for (const QuotaChange& c : spec_.quotaChanges) {
    q = appliedTo(c, q);
    markers_.push_back({c.at.count(), q.limit, q.window.count(), q.refillPerSecond.value_or(0.0)});
  }
}

StormRunner::~StormRunner() {
  cancel();
  if (driver_.joinable()) driver_.join();
}

void StormRunner::setOnData(std::function<void()> cb, Micros interval) {
  onData_ = std::move(cb);
  onDataInterval_ = std::max(interval, Micros{1000});
}

void StormRunner::setOnStart(std::function<void(std::int64_t)> cb) { onStart_ = std::move(cb); }

void StormRunner::setRetryCounter(RetryCounter counter) { retryCounter_ = std::move(counter); }

Result<void> StormRunner::start() {
  if (auto ok = validate(spec_); !ok) return ok;
  if (!factory_) return invalidArgument("storm: no store factory");
  if (started_.exchange(true)) return invalidArgument("storm: already started");
  startSteadyUs_ = steadyNowUs();
  driver_ = std::thread([this] { drive(); });
  return {};
}

void StormRunner::cancel() {
  cancel_.store(true, std::memory_order_release);
  { std::lock_guard lock(mutex_); }
  goCv_.notify_all();
  doneCv_.notify_all();
}

void StormRunner::wait() {
  std::unique_lock lock(mutex_);
  doneCv_.wait(lock, [this] { return finished_.load() || !started_.load(); });
}

bool StormRunner::finished() const { return finished_.load(std::memory_order_acquire); }

std::int64_t StormRunner::steadyNowUs() const {
  return std::chrono::duration_cast<Micros>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::int64_t StormRunner::elapsedUs() const {
  if (finished()) return finishedAtUs_.load();
  return steadyNowUs() - startSteadyUs_;
}

void StormRunner::drive() {
  running_.store(static_cast<int>(workers_.size()));
  for (std::size_t i = 0; i < workers_.size(); ++i)
    workers_[i]->thread = std::thread([this, i] { runWorker(static_cast<int>(i)); });
  {
    std::unique_lock lock(mutex_);
    doneCv_.wait(lock, [this] { return ready_.load() == static_cast<int>(workers_.size()) || cancel_.load(); });
  }
  if (!cancel_.load()) plan();
  if (onStart_ && !cancel_.load()) onStart_(startSteadyUs_.load());
  {
    std::lock_guard lock(mutex_);
    go_ = true;
  }
  goCv_.notify_all();
  monitorUntilDone();
  for (auto& w : workers_) {
    w->thread.join();
    std::vector<Send>().swap(w->own);  // the plan is spent: free it before the records are merged
  }
  std::vector<Send>().swap(sends_);
  releaseFreedMemory();
  finishedAtUs_.store(steadyNowUs() - startSteadyUs_);
  {
    std::lock_guard lock(mutex_);
    finished_.store(true, std::memory_order_release);
  }
  doneCv_.notify_all();
  if (onData_) onData_();
}

void StormRunner::plan() {
  static_assert(sizeof(Send) == 12, "a planned send is 12 bytes");
  const bool virt = spec_.clock == ClockMode::Virtual;
  startSteadyUs_ = steadyNowUs();
  startUs_ = planStart(spec_, virt ? kVirtualEpoch : systemClock_.now()).count();
  const auto requests = planRequests(spec_, Micros{startUs_});
  spanUs_ = requests.empty() ? 0 : requests.back().intendedUs;
  if (!virt && isRateDriven(spec_)) deadlineUs_ = spanUs_ + std::max(kSecond.count(), spanUs_ / 10);
  const std::size_t algos = spec_.algorithms.size();
  const std::size_t nWorkers = workers_.size();
  auto ownerOf = [&](std::size_t algo, std::uint32_t client) {  // one owner per (algorithm, client) key
    return (algo * clientNames_.size() + client) % nWorkers;
  };
  if (virt) {  // exact sizes first: no vector doubling on a 20-million-send plan
    std::vector<std::size_t> counts(nWorkers, 0);
    for (const PlannedRequest& r : requests)
      for (std::size_t a = 0; a < algos; ++a) ++counts[ownerOf(a, r.client)];
    for (std::size_t w = 0; w < nWorkers; ++w) workers_[w]->own.reserve(counts[w]);
  } else {
    sends_.reserve(requests.size() * algos);
  }
  for (const PlannedRequest& r : requests) {
    for (std::size_t a = 0; a < algos; ++a) {
      const Send s(r.intendedUs, spec_.traceData ? r.cost : 0, r.client, r.replica, static_cast<std::uint8_t>(a));
      (virt ? workers_[ownerOf(a, r.client)]->own : sends_).push_back(s);
    }
  }
  planned_.store(static_cast<std::int64_t>(requests.size() * algos));
}

void StormRunner::monitorUntilDone() {
  std::size_t seen = 0;
  std::unique_lock lock(mutex_);
  while (running_.load() > 0) {
    doneCv_.wait_for(lock, onDataInterval_, [this] { return running_.load() == 0; });
    if (!onData_) continue;
    const std::size_t now = recorder_.published();
    if (now == seen) continue;
    seen = now;
    lock.unlock();
    onData_();
    lock.lock();
  }
}

}  // namespace rl
