// StormRunner's worker side: opening stores, sending, recording, and the
// thread-safe readers (progress, counters, quota changes, outcome).
#include <algorithm>
#include <chrono>
#include <limits>
#include <thread>

#include "clock/clock.hpp"
#include "storm/storm_runner.hpp"
#include "storm/failover_watch.hpp"
#include "storm/storm_runner_detail.hpp"

namespace rl {

namespace {
constexpr std::int64_t kSleepSliceUs = 20'000;  // cancellation is seen within this
constexpr std::int64_t kPublishEveryUs = 10'000;  // real clocks: records reach readers this fast

void add(std::atomic<std::int64_t>& a, std::int64_t by) {
  a.store(a.load(std::memory_order_relaxed) + by, std::memory_order_relaxed);  // single writer
}
}  // namespace

void StormRunner::runWorker(int index) {
  Worker& w = *workers_[static_cast<std::size_t>(index)];
  const bool opened = openStores(w, index);
  {
    std::unique_lock lock(mutex_);
    ready_.fetch_add(1);
    doneCv_.notify_all();
    goCv_.wait(lock, [this] { return go_ || cancel_.load(); });
    w.quota = quota_;
    w.quotaVersion = quotaVersion_.load();
  }
  if (opened && !cancel_.load()) {
    if (spec_.clock == ClockMode::Virtual)
      runVirtual(w, index);
    else
      runReal(w, index);
  }
  recorder_.publish(index);
  w.stores.clear();  // connections close on the thread that owns them
  std::lock_guard lock(mutex_);
  running_.fetch_sub(1);
  doneCv_.notify_all();
}

bool StormRunner::openStores(Worker& w, int index) {
  for (int r = 0; r < std::max(spec_.replicas, 1); ++r) {
    auto store = factory_(r, index);
    if (!store) {
      std::lock_guard lock(mutex_);
      if (!failure_) failure_ = store.error();
      cancel_.store(true);
      goCv_.notify_all();
      return false;
    }
    w.stores.push_back(std::move(store.value()));
  }
  return true;
}

void StormRunner::runVirtual(Worker& w, int index) {
  for (const Send& s : w.own) {
    if (cancel_.load(std::memory_order_relaxed)) break;
    decideOne(w, index, s, 0);
  }
}

void StormRunner::runReal(Worker& w, int index) {
  const auto total = static_cast<std::int64_t>(sends_.size());
  const std::int64_t start = startSteadyUs_.load();
  std::int64_t lastPublish = start;
  while (!cancel_.load(std::memory_order_relaxed)) {
    const std::int64_t i = cursor_.fetch_add(1);
    if (i >= total) break;
    const Send& s = sends_[static_cast<std::size_t>(i)];
    const std::int64_t target = start + s.intendedUs();
    std::int64_t now = steadyNowUs();
    while (now < target && !cancel_.load(std::memory_order_relaxed)) {
      std::this_thread::sleep_for(Micros{std::min(target - now, kSleepSliceUs)});
      now = steadyNowUs();
    }
    if (cancel_.load(std::memory_order_relaxed)) break;
    if (deadlineUs_ >= 0 && now - start > deadlineUs_) {
      dropped_.fetch_add(1, std::memory_order_relaxed);
      continue;
    }
    decideOne(w, index, s, target);
    if (now - lastPublish >= kPublishEveryUs) {
      recorder_.publish(index);
      lastPublish = now;
    }
  }
}

void StormRunner::decideOne(Worker& w, int index, const Send& s, std::int64_t intendedSteady) {
  if (quotaVersion_.load(std::memory_order_acquire) != w.quotaVersion) {
    std::lock_guard lock(mutex_);
    w.quota = quota_;
    w.quotaVersion = quotaVersion_.load();
  }
  // Scheduled changes apply by the send's planned time (so the virtual clock
  // replays them decision for decision), on top of any live change.
  const auto& changes = spec_.quotaChanges;
  while (w.nextChange < changes.size() && changes[w.nextChange].at.count() <= s.intendedUs())
    w.quota = appliedTo(changes[w.nextChange++], w.quota);
  const bool virt = spec_.clock == ClockMode::Virtual;
  const Micros skew = s.replica() < spec_.skew.size() ? spec_.skew[s.replica()] : Micros{0};
  DecisionRequest req;
  req.algorithm = spec_.algorithms[s.algo()];
  req.client = clientNames_[s.client()];
  req.quota = w.quota;
  req.cost = s.cost(spec_.cost);
  if (virt)
    req.now = Micros{startUs_ + s.intendedUs()} + skew;
  else if (spec_.clock == ClockMode::Client)
    req.now = replicaClocks_[s.replica()].now();
  else
    req.now = systemClock_.now();  // server clock: Redis ignores it; the memory store has only this one
  Store& store = *w.stores[s.replica()];
  const std::int64_t retriesBefore = retryCounter_ ? retryCounter_(store) : 0;
  const std::int64_t t0 = steadyNowUs();
  Store* fallback = fallbacks_.empty() ? nullptr : fallbacks_[s.replica()].get();
  const auto d = decideWithPolicy(store, req, spec_.resilience.onRedisError, kPolicyRetryAfter, fallback);
  const std::int64_t t1 = steadyNowUs();

  DecisionFields rec;
  rec.intendedUs = s.intendedUs();
  rec.atUs = virt ? s.intendedUs() : t0 - startSteadyUs_.load(std::memory_order_relaxed);
  const std::int64_t latency = virt ? t1 - t0 : t1 - intendedSteady;
  rec.latencyUs = static_cast<std::uint32_t>(std::clamp<std::int64_t>(latency, 0, std::numeric_limits<std::uint32_t>::max()));
  rec.client = s.client();
  rec.replica = s.replica();
  rec.algorithm = s.algo();
  // An outage is decided by the policy; any other error is a fault: counted, never admitted.
  const bool failed = !d || d->byPolicy;
  const bool allowed = d && d->decision.allowed;
  rec.flags = static_cast<std::uint8_t>((allowed ? kDecisionAllowed : 0) | (failed ? kDecisionError : 0) |
                                        (d && d->byPolicy ? kDecisionByPolicy : 0));
  if (failed) rec.flags |= decisionCauseBits(d ? d->cause : d.error().code);
  if (!virt && t0 - intendedSteady > kLateAfter.count()) add(w.late, 1);  // the record tells from its times
  if (d) {
    rec.remaining = d->decision.remaining;
    rec.retryAfterUs = d->decision.retryAfter.count();
    rec.level = static_cast<float>(d->decision.level);
  }
  std::atomic<std::int64_t>* c = &w.perAlgo[4 * s.algo()];
  add(c[allowed ? 0 : 1], 1);
  if (failed) add(c[2], 1);
  if (!d && !sawDecisionError_.exchange(true)) {  // the first fault, for the report
    std::lock_guard lock(mutex_);
    firstDecisionError_ = d.error();
  }
  if (d && d->byPolicy && !sawOutage_.load(std::memory_order_relaxed) && !sawOutage_.exchange(true)) {
    std::lock_guard lock(mutex_);  // the first outage: which server, and why, for the report
    firstOutage_ = Error{d->cause, d->why};
  }
  if (retryCounter_) add(c[3], retryCounter_(store) - retriesBefore);
  add(w.sent, 1);
  w.lastAtUs.store(rec.atUs, std::memory_order_relaxed);
  recorder_.push(index, DecisionRecord(rec));
}

StormProgress StormRunner::progress() const {
  StormProgress p;
  p.elapsed = Micros{started_.load() ? elapsedUs() : 0};
  p.planned = planned_.load();
  for (const auto& w : workers_) {
    p.sent += w->sent.load(std::memory_order_relaxed);
    p.late += w->late.load(std::memory_order_relaxed);
    for (std::size_t a = 0; a < spec_.algorithms.size(); ++a) p.errors += w->perAlgo[4 * a + 2].load(std::memory_order_relaxed);
  }
  p.dropped = dropped_.load(std::memory_order_relaxed);
  p.finished = finished();
  const std::int64_t done = p.sent + p.dropped;
  if (!p.finished && spec_.clock != ClockMode::Virtual)
    p.remaining = Micros{std::max<std::int64_t>(spanUs_.load() - p.elapsed.count(), 0)};
  else if (!p.finished && done > 0)
    p.remaining = Micros{p.elapsed.count() * (p.planned - done) / done};
  return p;
}

std::vector<AlgorithmCounters> StormRunner::counters() const {
  std::vector<AlgorithmCounters> out(spec_.algorithms.size());
  for (const auto& w : workers_) {
    for (std::size_t a = 0; a < out.size(); ++a) {
      out[a].admitted += w->perAlgo[4 * a].load(std::memory_order_relaxed);
      out[a].denied += w->perAlgo[4 * a + 1].load(std::memory_order_relaxed);
      out[a].errors += w->perAlgo[4 * a + 2].load(std::memory_order_relaxed);
      out[a].retries += w->perAlgo[4 * a + 3].load(std::memory_order_relaxed);
    }
  }
  return out;
}

std::size_t StormRunner::takeRecords(std::vector<DecisionRecord>& out) { return recorder_.takeNew(out); }

Result<void> StormRunner::setQuota(const Quota& q) {
  for (Algorithm a : spec_.algorithms)
    if (auto ok = q.validate(a); !ok) return ok;
  if (auto ok = validateCost(spec_.cost, q); !ok) return ok;
  std::lock_guard lock(mutex_);
  quota_ = q;
  std::int64_t at = 0;  // virtual clock: the latest decision's time; real clocks: now
  if (spec_.clock != ClockMode::Virtual) at = elapsedUs();
  for (const auto& w : workers_) at = std::max(at, w->lastAtUs.load(std::memory_order_relaxed));
  markers_.push_back({at, q.limit, q.window.count(), q.refillPerSecond.value_or(0.0)});
  quotaVersion_.fetch_add(1, std::memory_order_release);
  return {};
}

Quota StormRunner::quota() const {
  std::lock_guard lock(mutex_);
  return quota_;
}

std::vector<QuotaMarker> StormRunner::markers() const {
  std::lock_guard lock(mutex_);
  return markers_;
}

StormOutcome StormRunner::outcome() {
  StormOutcome o;
  o.records = recorder_.takeAll();
  o.markers = markers();
  o.counters = counters();
  o.progress = progress();
  o.wallDuration = Micros{finishedAtUs_.load()};
  o.clockOriginUs = startUs_;
  o.cancelled = cancel_.load();
  std::lock_guard lock(mutex_);
  o.failure = failure_;
  o.firstDecisionError = firstDecisionError_;
  o.firstOutage = firstOutage_;
  if (o.failure) o.cancelled = false;
  return o;
}

Result<StormOutcome> runStorm(const StormSpec& spec, StoreFactory factory,
                              const std::function<void(const StormProgress&)>& onProgress,
                              RetryCounter retries, const std::atomic<bool>* cancel,
                              std::function<void(std::int64_t)> onStart) {
  StormRunner runner(spec, std::move(factory));
  if (retries) runner.setRetryCounter(std::move(retries));
  if (onStart) runner.setOnStart(std::move(onStart));
  if (auto ok = runner.start(); !ok) return ok.error();
  if (onProgress || cancel) waitForRun(runner, Micros::max(), FailoverWatch{onProgress, {}, cancel, {}});
  runner.wait();
  StormOutcome o = runner.outcome();
  if (o.failure) return *o.failure;
  return o;
}

}  // namespace rl
