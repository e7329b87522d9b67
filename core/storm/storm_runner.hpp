#pragma once
// StormRunner: runs one storm on worker threads and records every decision.
//
// Threading and ownership. start() returns at once; a driver thread creates
// the stores (through the StoreFactory, on the worker threads: a Redis
// connection belongs to one thread) and runs `concurrency` workers. Every
// other member may be called from any thread while the run goes on:
// progress(), takeRecords() (short per-thread locks, never one per decision),
// setQuota(), cancel(). `onData` is called on the driver thread, at most once
// per interval, when new records were published; it must be cheap (e.g. post
// a queued signal). The destructor cancels and joins.
//
// Open model. Every request has an intended send time (traffic_plan.hpp);
// latency is measured from it, so a slow limiter cannot hide its latency.
// Real clocks (server, client): workers take the next send in intended
// order, sleep until its time, and count it late when it starts more than
// kLateAfter after it; for rate-driven patterns (constant, ramp, poisson) a
// send that cannot start before the last intended time plus a grace
// (max(1 s, span / 10)) is dropped, not sent. Virtual clock: now = the
// intended time (plus the replica's skew); each (algorithm, client) key is
// owned by one worker, so decisions are in intended order and the run is
// deterministic; latency is the store's service time.

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "clock/clock.hpp"
#include "common/result.hpp"
#include "storm/decision_record.hpp"
#include "storm/recorder.hpp"
#include "storm/storm_spec.hpp"
#include "store/failure_policy.hpp"
#include "store/store.hpp"

namespace rl {

/// Reads a store's optimistic-transaction retry count (redis-watch); may be empty.
using RetryCounter = std::function<std::int64_t(const Store&)>;

/// A send that starts more than this after its intended time is late.
inline constexpr Micros kLateAfter{kLateAfterUs};

/// The virtual clock's time at the run's start (a fixed epoch: runs replay exactly).
inline constexpr Micros kVirtualEpoch{1'700'000'040'000'000};

/// A snapshot of a run's progress.
struct StormProgress {
  Micros elapsed{0};          ///< wall time since start
  Micros remaining{0};        ///< estimated wall time left
  std::int64_t planned = 0;   ///< sends planned (requests x algorithms)
  std::int64_t sent = 0;      ///< decisions made so far
  std::int64_t late = 0;      ///< sends that started late
  std::int64_t dropped = 0;   ///< sends that could not start within the run
  std::int64_t errors = 0;    ///< store errors (outages decided by the failure policy, and faults)
  bool finished = false;      ///< the run is over (done, cancelled or failed)
};

/// Live counts of one algorithm (index as in StormSpec::algorithms).
struct AlgorithmCounters {
  std::int64_t admitted = 0;  ///< let through (fail-open admissions included)
  std::int64_t denied = 0;    ///< refused (fail-closed denials included)
  std::int64_t errors = 0;    ///< of those, store errors (outages the policy decided, faults denied)
  std::int64_t retries = 0;   ///< optimistic-transaction retries (redis-watch), at the end
};

/// Everything a finished run produced.
struct StormOutcome {
  std::vector<DecisionRecord> records;      ///< every decision, sorted by intended time
  std::vector<QuotaMarker> markers;         ///< live quota changes
  std::vector<AlgorithmCounters> counters;  ///< per algorithm, in spec order
  StormProgress progress;                   ///< final counts
  Micros wallDuration{0};                   ///< wall time of the run
  std::int64_t clockOriginUs = 0;           ///< the limiters' clock (us since the epoch) at the run's start
  bool cancelled = false;                   ///< cancel() stopped it early
  std::optional<Error> failure;             ///< a store could not be created (e.g. Redis down)
  std::optional<Error> firstDecisionError;  ///< the first error a decision returned (the rest are counted)
  std::optional<Error> firstOutage;         ///< the first outage the failure policy decided (server and cause)
};

/// Runs one storm; see the file comment.
class StormRunner {
 public:
  /// `spec` must pass validate(); `factory` makes the stores.
  StormRunner(StormSpec spec, StoreFactory factory);
  ~StormRunner();
  StormRunner(const StormRunner&) = delete;
  StormRunner& operator=(const StormRunner&) = delete;

  /// Before start(): `cb` runs on the driver thread at most every `interval` when data is new.
  void setOnData(std::function<void()> cb, Micros interval = Micros{30'000});
  /// Before start(): `cb` runs on the driver thread once the plan is made, just before the
  /// first send, with the run's start on the steady clock (us since its epoch): the origin
  /// of every record's times (a fault schedule is timed from it).
  void setOnStart(std::function<void(std::int64_t startSteadyUs)> cb);
  /// Before start(): how to read retries from a store (redis-watch).
  void setRetryCounter(RetryCounter counter);
  /// Validates the spec and starts the driver thread; never blocks on I/O.
  Result<void> start();
  /// Asks the workers to stop; they return promptly with what was recorded.
  void cancel();
  /// Blocks until the run is over.
  void wait();
  /// True once the run is over.
  bool finished() const;

  /// Progress so far (any thread).
  StormProgress progress() const;
  /// Appends the decisions published since the previous call; returns how many (any thread).
  std::size_t takeRecords(std::vector<DecisionRecord>& out);
  /// Live counts per algorithm (any thread).
  std::vector<AlgorithmCounters> counters() const;
  /// Changes the quota for the next decisions and records a marker (any thread).
  Result<void> setQuota(const Quota& quota);
  /// The quota in force.
  Quota quota() const;
  /// Quota changes so far.
  std::vector<QuotaMarker> markers() const;
  /// The spec being run.
  const StormSpec& spec() const { return spec_; }
  /// After start(): the limiters' clock (us since the epoch) at the run's start.
  std::int64_t clockOriginUs() const { return startUs_; }
  /// After wait(): every record, counters and the final progress. The records
  /// are moved out of the recorder (no second copy): call it once.
  StormOutcome outcome();

 private:
  class Send;
  struct Worker;
  void drive();
  void plan();
  void monitorUntilDone();
  void runWorker(int index);
  bool openStores(Worker& w, int index);
  void decideOne(Worker& w, int index, const Send& s, std::int64_t intendedSteady);
  void runVirtual(Worker& w, int index);
  void runReal(Worker& w, int index);
  std::int64_t steadyNowUs() const;
  std::int64_t elapsedUs() const;

  StormSpec spec_;                     ///< what to run
  StoreFactory factory_;               ///< makes one store per (replica, worker)
  RetryCounter retryCounter_;          ///< optional
  std::function<void()> onData_;       ///< optional data hook
  std::function<void(std::int64_t)> onStart_;  ///< optional start hook
  Micros onDataInterval_{30'000};      ///< minimum gap between onData calls
  Recorder recorder_;                  ///< per-thread decision buffers
  std::vector<Send> sends_;            ///< real clocks: all sends in intended order
  std::vector<std::unique_ptr<Worker>> workers_;  ///< one per concurrency slot
  std::vector<std::unique_ptr<Store>> fallbacks_;  ///< local failure policy: each replica's memory store
  std::vector<std::string> clientNames_;          ///< key names of the clients
  SystemClock systemClock_;                       ///< the true wall time (client and server clocks)
  std::vector<SkewedClock> replicaClocks_;        ///< client clock of each replica: systemClock_ + skew
  std::int64_t startUs_ = 0;           ///< decision-clock time of the run's start
  std::atomic<std::int64_t> startSteadyUs_{0};  ///< steady-clock time of the run's start
  std::atomic<std::int64_t> spanUs_{0};  ///< intended time of the last request
  std::int64_t deadlineUs_ = -1;       ///< sends starting later are dropped; -1 = none
  std::atomic<std::int64_t> cursor_{0};          ///< real clocks: next send to take
  std::atomic<std::int64_t> dropped_{0};         ///< sends dropped
  std::atomic<std::int64_t> finishedAtUs_{0};    ///< wall duration once finished
  std::atomic<bool> cancel_{false};    ///< stop requested
  std::atomic<bool> finished_{false};  ///< the run is over
  std::atomic<bool> started_{false};   ///< start() was called
  std::atomic<int> running_{0};        ///< workers still running
  std::atomic<int> ready_{0};          ///< workers whose stores are open (or failed)
  std::atomic<std::int64_t> planned_{0};  ///< sends planned
  bool go_ = false;                    ///< guarded by mutex_: the plan is ready, workers may send
  std::condition_variable goCv_;       ///< signalled when go_ is set or the run is cancelled
  mutable std::mutex mutex_;           ///< guards quota_, markers_, failure_
  std::condition_variable doneCv_;     ///< signalled when a worker ends or the run finishes
  Quota quota_;                        ///< in force
  std::atomic<std::uint64_t> quotaVersion_{0};  ///< bumped by setQuota
  std::vector<QuotaMarker> markers_;   ///< quota changes
  std::optional<Error> failure_;       ///< first store failure
  std::optional<Error> firstDecisionError_;  ///< guarded by mutex_: the first decision's error
  std::atomic<bool> sawDecisionError_{false};  ///< firstDecisionError_ is set
  std::optional<Error> firstOutage_;   ///< guarded by mutex_: the first outage the policy decided
  std::atomic<bool> sawOutage_{false};  ///< firstOutage_ is set
  std::thread driver_;                 ///< runs drive()
};

/// Builds, runs and waits for one storm (CLI, tests). `onProgress`, when set,
/// is called about every 200 ms from the calling thread. When `cancel` becomes
/// true the run is cancelled and returns what was recorded.
/// `onStart`, when set, is StormRunner::setOnStart's hook.
Result<StormOutcome> runStorm(const StormSpec& spec, StoreFactory factory,
                              const std::function<void(const StormProgress&)>& onProgress = {},
                              RetryCounter retries = {}, const std::atomic<bool>* cancel = nullptr,
                              std::function<void(std::int64_t)> onStart = {});

}  // namespace rl
