#pragma once
// DecisionRecord: one recorded decision of a storm, packed into 32 bytes, so
// 10 million decisions take 320 MB. Times are microseconds since the run's
// start on the run's own timeline (wall time, or the virtual clock's
// scheduled time). Every value reads back exactly within the bounds the storm
// spec validates (run span < 2^40 us = 12.7 days, |remaining| < 2^40,
// retry-after < 2^46 us, clients < 2^20, replicas <= 64, algorithms <= 8);
// the start delay saturates at 2^32 - 1 us (~71 min) and the latency at
// 2^28 - 1 us (~268 s): its word also holds the store error's cause.

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>

#include "common/result.hpp"

namespace rl {

/// A send that starts more than this many us after its intended time is late.
inline constexpr std::int64_t kLateAfterUs = 1000;
/// Run times (intended send) must stay below this: 2^40 us, about 12.7 days.
inline constexpr std::int64_t kMaxRecordedUs = std::int64_t{1} << 40;
/// A trace request's cost must stay below this (a planned send keeps it in 27 bits).
inline constexpr std::int64_t kMaxPlannedCost = std::int64_t{1} << 27;

/// Bits of DecisionFields::flags.
enum DecisionFlag : std::uint8_t {
  kDecisionAllowed = 1,  ///< the request was let through (after any fail-open)
  kDecisionError = 2,    ///< the store failed; `allowed` is the failure policy's answer
  kDecisionLate = 4,     ///< the send started later than its intended time (open model)
  kDecisionByPolicy = 8, ///< the store was down (an outage): the failure policy decided (with kDecisionError)
};

/// Bits 4..7 of DecisionFields::flags: the store error's ErrorCode + 1 (0 = no error).
inline constexpr int kDecisionCauseShift = 4;

/// The flags bits that record `cause` (an error decision's ErrorCode).
constexpr std::uint8_t decisionCauseBits(ErrorCode cause) {
  return static_cast<std::uint8_t>((static_cast<int>(cause) + 1) << kDecisionCauseShift);
}

/// One decision unpacked: what a worker records and what DecisionRecord::fields() returns.
struct DecisionFields {
  std::int64_t intendedUs = 0;    ///< intended send time, us since the run's start
  std::int64_t atUs = 0;          ///< when the decision was made (>= intendedUs), us since the run's start
  std::int64_t remaining = 0;     ///< Decision::remaining
  std::int64_t retryAfterUs = 0;  ///< Decision::retryAfter (0 when admitted)
  std::uint32_t latencyUs = 0;    ///< from intended send to answer (the record keeps up to ~268 s)
  float level = 0;                ///< Decision::level (tokens, queue depth, window count)
  std::uint32_t client = 0;       ///< client index, 0..clients-1
  std::uint16_t replica = 0;      ///< replica index, 0..replicas-1
  std::uint8_t algorithm = 0;     ///< index into StormSpec::algorithms (not the enum)
  std::uint8_t flags = 0;         ///< DecisionFlag bits and the cause (late follows from the times)
};

/// One decision as the recorder keeps it; see the file comment.
class DecisionRecord {
 public:
  DecisionRecord() = default;
  /// Packs `f` (values outside the bounds of the file comment are cut to their bits).
  explicit DecisionRecord(const DecisionFields& f) {
    const auto delay = f.atUs - f.intendedUs;
    w0_ = (static_cast<std::uint64_t>(f.intendedUs) & kMask40) | (std::uint64_t{f.client} & kMask20) << 40 |
          (std::uint64_t{f.algorithm} & 7) << 60 | std::uint64_t{(f.flags & kDecisionAllowed) != 0} << 63;
    const auto rem = static_cast<std::uint64_t>(f.remaining) & kMask41;
    w1_ = (static_cast<std::uint64_t>(f.retryAfterUs) & kMask46) | (std::uint64_t{f.replica} & 63) << 46 |
          std::uint64_t{(f.flags & kDecisionError) != 0} << 52 | (rem >> 32) << 53 |
          std::uint64_t{(f.flags & kDecisionByPolicy) != 0} << 62;
    remainingLow_ = static_cast<std::uint32_t>(rem);
    delayUs_ = delay <= 0 ? 0 : delay >= 0xffffffffLL ? 0xffffffffu : static_cast<std::uint32_t>(delay);
    latency_ = std::min<std::uint32_t>(f.latencyUs, kMaxLatencyUs) | std::uint32_t{f.flags} >> kDecisionCauseShift << 28;
    level_ = f.level;
  }

  std::int64_t intendedUs() const { return static_cast<std::int64_t>(w0_ & kMask40); }  ///< intended send time
  std::int64_t atUs() const { return intendedUs() + delayUs_; }  ///< when the decision was made
  std::uint32_t startDelayUs() const { return delayUs_; }        ///< atUs - intendedUs (saturating)
  /// Real clocks: from the send's start to its answer (the decision happened in between).
  std::uint32_t serviceUs() const { return latencyUs() > delayUs_ ? latencyUs() - delayUs_ : 0; }
  /// Decision::remaining
  std::int64_t remaining() const {
    const std::uint64_t u = (w1_ >> 53 & 0x1ff) << 32 | remainingLow_;
    return static_cast<std::int64_t>(u << 23) >> 23;  // sign-extend bit 40
  }
  std::int64_t retryAfterUs() const { return static_cast<std::int64_t>(w1_ & kMask46); }  ///< Decision::retryAfter
  std::uint32_t latencyUs() const { return latency_ & kMaxLatencyUs; }  ///< from intended send to answer
  std::int64_t answeredUs() const { return intendedUs() + latencyUs(); }  ///< when the answer came (real clocks)
  float level() const { return level_; }                  ///< Decision::level
  std::uint32_t client() const { return static_cast<std::uint32_t>(w0_ >> 40 & kMask20); }  ///< client index
  std::uint16_t replica() const { return static_cast<std::uint16_t>(w1_ >> 46 & 63); }      ///< replica index
  std::uint8_t algorithm() const { return static_cast<std::uint8_t>(w0_ >> 60 & 7); }       ///< algorithm index
  bool allowed() const { return (w0_ >> 63) != 0; }             ///< let through
  bool error() const { return (w1_ >> 52 & 1) != 0; }           ///< store failed
  bool late() const { return delayUs_ > kLateAfterUs; }         ///< started late (real clocks only)
  bool byPolicy() const { return (w1_ >> 62 & 1) != 0; }        ///< decided by the failure policy (degraded)
  /// The store's error for an error decision (OutOfMemory, ReadOnly, Timeout, ...), else nullopt.
  std::optional<ErrorCode> cause() const {
    const auto c = static_cast<int>(latency_ >> 28);
    return c == 0 ? std::nullopt : std::optional(static_cast<ErrorCode>(c - 1));
  }
  /// DecisionFlag bits and the cause bits.
  std::uint8_t flags() const {
    return static_cast<std::uint8_t>((allowed() ? kDecisionAllowed : 0) | (error() ? kDecisionError : 0) |
                                     (late() ? kDecisionLate : 0) | (byPolicy() ? kDecisionByPolicy : 0) |
                                     (latency_ >> 28) << kDecisionCauseShift);
  }
  /// Every field unpacked.
  DecisionFields fields() const {
    return {intendedUs(), atUs(), remaining(), retryAfterUs(), latencyUs(), level(), client(), replica(),
            algorithm(), flags()};
  }

 private:
  static constexpr std::uint64_t kMask20 = (std::uint64_t{1} << 20) - 1;
  static constexpr std::uint64_t kMask40 = (std::uint64_t{1} << 40) - 1;
  static constexpr std::uint64_t kMask41 = (std::uint64_t{1} << 41) - 1;
  static constexpr std::uint64_t kMask46 = (std::uint64_t{1} << 46) - 1;
  static constexpr std::uint32_t kMaxLatencyUs = (1u << 28) - 1;  // ~268 s, then it saturates
  std::uint64_t w0_ = 0;            ///< intendedUs:40 | client:20 | algorithm:3 | allowed:1
  std::uint64_t w1_ = 0;            ///< retryAfterUs:46 | replica:6 | error:1 | remaining bits 32..40:9 | byPolicy:1
  std::uint32_t remainingLow_ = 0;  ///< remaining bits 0..31
  std::uint32_t delayUs_ = 0;       ///< atUs - intendedUs, saturating
  std::uint32_t latency_ = 0;       ///< latency:28 (saturating) | cause:4 (ErrorCode + 1, 0 = none)
  float level_ = 0;                 ///< level
};

static_assert(sizeof(DecisionRecord) == 32, "DecisionRecord packs into 32 bytes");

/// A live quota change during a run, for the timeline's marker.
struct QuotaMarker {
  std::int64_t atUs = 0;        ///< when it took effect, us since the run's start
  std::int64_t limit = 0;       ///< the new limit
  std::int64_t windowUs = 0;    ///< the new window
  double refillPerSecond = 0;   ///< the new explicit refill rate, 0 = limit per window
};

}  // namespace rl
