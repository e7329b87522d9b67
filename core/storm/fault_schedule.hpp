#pragma once
// A fault schedule (`--fault`, scenario key "fault"): what to do to the
// managed redis-server during a run, and when (ms since the run's first
// planned send). The text form, comma-separated:
//
//   kill@T                 SIGKILL the server (it stays down until a restart)
//   restart@T              start it again on the same port and dir (empty: no persistence)
//   pause@S:E              SIGSTOP at S, SIGCONT at E (the kernel still accepts connections)
//   latency@S:E:MS         the server stalls MS at a time (DEBUG SLEEP, 1 ms apart) from S to E
//   oom@S:E                CONFIG SET maxmemory 1 + noeviction from S, restored at E
//   readonly@S:E           REPLICAOF a dead port from S (writes get READONLY), REPLICAOF NO ONE at E
//
// A window may also be written S+D (D = duration). Numbers are integer ms,
// an "ms" suffix is allowed. Windows (kill..restart counts as one) must not
// overlap; a restart needs an earlier kill. Parsing is pure: the injector
// (fault_injector.hpp) carries a schedule out.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"
#include "limiter/time.hpp"

namespace rl {

/// What a fault does to the managed server.
enum class FaultKind {
  Kill,      ///< SIGKILL
  Restart,   ///< start again on the same port and dir
  Pause,     ///< SIGSTOP .. SIGCONT
  Latency,   ///< DEBUG SLEEP, repeated
  OutOfMemory,  ///< maxmemory 1, noeviction
  ReadOnly,  ///< replica of a dead port
};

/// One scheduled fault; `end` and `stall` only for the windowed kinds.
struct FaultEvent {
  FaultKind kind = FaultKind::Kill;  ///< what to do
  Micros at{0};                      ///< when it starts, since the run's start
  Micros end{0};                     ///< windowed kinds: when it is undone
  Micros stall{0};                   ///< latency: how long each stall lasts

  bool operator==(const FaultEvent&) const = default;
};

/// A span of the run under one fault: a windowed event, or kill .. restart
/// (kill without restart: until the run ends, `end` = -1).
struct FaultWindow {
  std::string label;         ///< as written: "pause@1000:2500", "kill@1000,restart@2000"
  FaultKind kind = FaultKind::Kill;  ///< the kind that opened it
  std::int64_t startUs = 0;  ///< since the run's start
  std::int64_t endUs = -1;   ///< since the run's start; -1 = until the run ends
  bool reached = true;       ///< false: the run ended before the fault began (injector)
};

std::string_view faultKindName(FaultKind k);  ///< "kill", "restart", "pause", "latency", "oom", "readonly"

/// True for pause, latency, oom and readonly (they take S:E).
bool isWindowedFault(FaultKind k);

/// Parses a schedule; the error names `shownAs` ("--fault" or the scenario key),
/// the part that is wrong, and what is allowed. Events come back in time order.
Result<std::vector<FaultEvent>> parseFaultSchedule(std::string_view text, const std::string& shownAs = "--fault");

/// One event as text ("pause@1000:2500", "latency@1000:2000:50ms").
std::string faultText(const FaultEvent& e);

/// The whole schedule as text (parses back to the same events).
std::string faultScheduleText(const std::vector<FaultEvent>& events);

/// The windows of a schedule (kill pairs with the next restart), in time order.
std::vector<FaultWindow> faultWindows(const std::vector<FaultEvent>& events);

/// The time of the schedule's last event (a window's end), since the run's start.
Micros faultScheduleEnd(const std::vector<FaultEvent>& events);

}  // namespace rl
