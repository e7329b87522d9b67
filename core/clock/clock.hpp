#pragma once
// Clocks. Algorithms never read a clock: stores and storms read one and pass
// `now` in. Every clock is safe to read from any thread.

#include <atomic>
#include <memory>

#include "limiter/time.hpp"

namespace rl {

/// A source of "now" in microseconds since the Unix epoch.
class Clock {
 public:
  virtual ~Clock() = default;
  /// The current time (us since the epoch).
  virtual Micros now() const = 0;
};

/// Wall-clock time (std::chrono::system_clock).
class SystemClock final : public Clock {
 public:
  Micros now() const override;
};

/// A clock that only moves when told to: for tests (tables of time).
class ManualClock final : public Clock {
 public:
  explicit ManualClock(Micros start = Micros{0}) : now_(start.count()) {}
  Micros now() const override { return Micros{now_.load(std::memory_order_acquire)}; }
  /// Sets the time (may go backwards: tests of skew use that).
  void set(Micros t) { now_.store(t.count(), std::memory_order_release); }
  /// Moves the time forward by `d`.
  void advance(Micros d) { now_.fetch_add(d.count(), std::memory_order_acq_rel); }

 private:
  std::atomic<std::int64_t> now_;  ///< current time, us
};

/// Another clock shifted by a fixed offset: one simulated replica's skewed clock.
class SkewedClock final : public Clock {
 public:
  /// `base` must outlive this clock. Positive `offset` runs ahead, negative behind.
  SkewedClock(const Clock& base, Micros offset) : base_(base), offset_(offset) {}
  Micros now() const override { return base_.now() + offset_; }
  Micros offset() const { return offset_; }

 private:
  const Clock& base_;  ///< the true time
  Micros offset_;      ///< this replica's error
};

/// Scheduled time: a storm driver moves it to each request's intended send
/// time, so a run is deterministic and as fast as the machine allows. Never
/// moves backwards.
class VirtualClock final : public Clock {
 public:
  explicit VirtualClock(Micros start = Micros{0}) : now_(start.count()) {}
  Micros now() const override { return Micros{now_.load(std::memory_order_acquire)}; }
  /// Moves the time to `t` if that is later than now; returns the time after the move.
  Micros advanceTo(Micros t);

 private:
  std::atomic<std::int64_t> now_;  ///< scheduled time, us
};

}  // namespace rl
