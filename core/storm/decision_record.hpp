#pragma once
// DecisionRecord: one recorded decision of a storm, 48 bytes, so 10 million
// decisions take 480 MB. Times are microseconds since the run's start on the
// run's own timeline (wall time, or the virtual clock's scheduled time).

#include <cstdint>
#include <optional>

#include "common/result.hpp"

namespace rl {

/// Bits of DecisionRecord::flags.
enum DecisionFlag : std::uint8_t {
  kDecisionAllowed = 1,  ///< the request was let through (after any fail-open)
  kDecisionError = 2,    ///< the store failed; `allowed` is the failure policy's answer
  kDecisionLate = 4,     ///< the send started later than its intended time (open model)
  kDecisionByPolicy = 8, ///< the store was down (an outage): the failure policy decided (with kDecisionError)
};

/// Bits 4..7 of DecisionRecord::flags: the store error's ErrorCode + 1 (0 = no error).
inline constexpr int kDecisionCauseShift = 4;

/// The flags bits that record `cause` (an error decision's ErrorCode).
constexpr std::uint8_t decisionCauseBits(ErrorCode cause) {
  return static_cast<std::uint8_t>((static_cast<int>(cause) + 1) << kDecisionCauseShift);
}

/// One decision as the recorder keeps it; see the file comment.
struct DecisionRecord {
  std::int64_t intendedUs = 0;    ///< intended send time, us since the run's start
  std::int64_t atUs = 0;          ///< when the decision was made, us since the run's start
  std::int64_t remaining = 0;     ///< Decision::remaining
  std::int64_t retryAfterUs = 0;  ///< Decision::retryAfter (0 when admitted)
  std::uint32_t latencyUs = 0;    ///< from intended send to answer (saturates at ~71 min)
  float level = 0;                ///< Decision::level (tokens, queue depth, window count)
  std::uint32_t client = 0;       ///< client index, 0..clients-1
  std::uint16_t replica = 0;      ///< replica index, 0..replicas-1
  std::uint8_t algorithm = 0;     ///< index into StormSpec::algorithms (not the enum)
  std::uint8_t flags = 0;         ///< DecisionFlag bits

  bool allowed() const { return (flags & kDecisionAllowed) != 0; }  ///< let through
  bool error() const { return (flags & kDecisionError) != 0; }      ///< store failed
  bool late() const { return (flags & kDecisionLate) != 0; }        ///< started late
  bool byPolicy() const { return (flags & kDecisionByPolicy) != 0; }  ///< decided by the failure policy (degraded)
  /// The store's error for an error decision (OutOfMemory, ReadOnly, Timeout, ...), else nullopt.
  std::optional<ErrorCode> cause() const {
    const int c = flags >> kDecisionCauseShift;
    return c == 0 ? std::nullopt : std::optional(static_cast<ErrorCode>(c - 1));
  }
};

static_assert(sizeof(DecisionRecord) <= 48, "DecisionRecord must stay <= 48 bytes");

/// A live quota change during a run, for the timeline's marker.
struct QuotaMarker {
  std::int64_t atUs = 0;        ///< when it took effect, us since the run's start
  std::int64_t limit = 0;       ///< the new limit
  std::int64_t windowUs = 0;    ///< the new window
  double refillPerSecond = 0;   ///< the new explicit refill rate, 0 = limit per window
};

}  // namespace rl
