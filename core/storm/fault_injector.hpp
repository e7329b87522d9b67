#pragma once
// FaultInjector: carries out a fault schedule (fault_schedule.hpp) on a
// managed redis-server while a storm runs, with real mechanisms:
//   kill      SIGKILL (ManagedRedisServer::kill)
//   restart   a new redis-server on the same port and dir; done once it answers PING
//   pause     SIGSTOP .. SIGCONT
//   latency   DEBUG SLEEP <stall>, then 1 ms free for the waiting commands, repeated, from
//             its own connection (the server must allow DEBUG: `--enable-debug-command local`)
//   oom       CONFIG SET maxmemory 1 + maxmemory-policy noeviction; the old values back at the end
//   readonly  REPLICAOF 127.0.0.1 <a port nobody listens on>; REPLICAOF NO ONE at the end
//
// Threading. start() runs the schedule on its own thread, timed from
// `originSteadyUs` (the storm's start on the steady clock, see
// StormRunner::setOnStart). stop() (or the destructor) ends it early: a fault
// in progress is undone first (SIGCONT, old maxmemory, REPLICAOF NO ONE); a
// killed server stays down. The server must outlive the injector and must not
// be touched by anyone else meanwhile. actions() and windows() may be read
// from any thread; they are complete after stop().

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "redis/managed_redis_server.hpp"
#include "storm/fault_schedule.hpp"

namespace rl {

/// One step the injector took (or could not take).
struct FaultAction {
  std::string what;            ///< "pause@1000:2500 begin", "... end", "kill@1000"
  std::int64_t plannedUs = 0;  ///< when it was due, since the run's start
  std::int64_t doneUs = -1;    ///< when it had taken effect, since the run's start; -1 = not reached
  std::string error;           ///< why it failed ("" = done)
};

/// What the injector did during one run.
struct FaultRun {
  std::vector<FaultWindow> windows;  ///< measured windows (FaultInjector::windows)
  std::vector<FaultAction> actions;  ///< every step (FaultInjector::actions)
  Micros commandTimeout{100'000};    ///< the stores' command timeout
};

/// Runs a fault schedule against a managed server; see the file comment.
class FaultInjector {
 public:
  FaultInjector(ManagedRedisServer& server, std::vector<FaultEvent> schedule);
  ~FaultInjector();
  FaultInjector(const FaultInjector&) = delete;
  FaultInjector& operator=(const FaultInjector&) = delete;

  /// Starts the schedule's thread; times count from `originSteadyUs` (steady clock, us). Once.
  void start(std::int64_t originSteadyUs);
  /// Ends the schedule: undoes a fault in progress, joins the thread. Idempotent.
  void stop();
  /// Every step so far, in order.
  std::vector<FaultAction> actions() const;
  /// The schedule's windows with the times the faults took effect (a signal: when sent; a
  /// command: when Redis replied; a restart: when the new server answered PING) and ended
  /// (an unreached fault keeps its planned times and reached = false).
  std::vector<FaultWindow> windows() const;

 private:
  void run();
  void undoActive(std::size_t i);
  bool sleepUntil(std::int64_t runUs);
  std::int64_t nowUs() const;
  std::string perform(const FaultEvent& e, bool begin);
  std::string stallUntil(const FaultEvent& e);
  std::string adminCommand(const std::vector<std::string>& argv, Micros timeout, std::string* reply = nullptr);
  /// Logs a step; the event's begin or end time is `effectiveUs`, or now when negative.
  void record(std::size_t event, bool begin, const std::string& what, std::int64_t plannedUs, const std::string& error,
              std::int64_t effectiveUs = -1);

  ManagedRedisServer& server_;       ///< the server faults are done to
  std::vector<FaultEvent> schedule_; ///< in time order
  std::int64_t originSteadyUs_ = 0;  ///< the run's start on the steady clock
  std::string savedMaxmemory_;       ///< oom: the values to restore
  std::string savedPolicy_;          ///< oom: maxmemory-policy to restore
  mutable std::mutex mutex_;         ///< guards actions_, stop_
  std::condition_variable cv_;       ///< wakes the thread on stop()
  std::vector<FaultAction> actions_; ///< steps taken
  std::vector<std::int64_t> begunUs_;  ///< per event: when it took effect, -1 = not reached
  std::vector<std::int64_t> endedUs_;  ///< per windowed event: when it was undone, -1 = not yet
  bool stop_ = false;                ///< stop() was called
  std::thread thread_;               ///< runs run()
};

}  // namespace rl
