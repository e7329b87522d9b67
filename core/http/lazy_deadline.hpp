#pragma once
// LazyDeadline: a deadline that is cheap to move on every request. The QTimer
// is re-armed only when the deadline comes earlier than the time it is armed
// for; a later deadline is noticed when the timer fires, and re-armed then.
// A keep-alive connection moving its idle deadline after each answer (or a
// proxy moving its upstream deadline) so touches no timer at all. Lives on
// the thread of its owner's event loop.

#include <QObject>
#include <QTimer>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>

#include "limiter/time.hpp"

namespace rl {

class LazyDeadline {
 public:
  using Steady = std::chrono::steady_clock;

  /// `expired` runs when a set deadline passes (not after clear()).
  explicit LazyDeadline(std::function<void()> expired) : expired_(std::move(expired)) {
    timer_.setSingleShot(true);
    QObject::connect(&timer_, &QTimer::timeout, [this] { onTimer(); });
  }
  LazyDeadline(const LazyDeadline&) = delete;
  LazyDeadline& operator=(const LazyDeadline&) = delete;

  /// The deadline is `after` from now.
  void setIn(Micros after) { setAt(Steady::now() + std::chrono::microseconds(after.count())); }
  /// The deadline is `at`.
  void setAt(Steady::time_point at) {
    deadline_ = at;
    set_ = true;
    if (timer_.isActive() && due_ <= at) return;  // fires first, then re-arms for the rest
    arm(Steady::now());
  }
  /// No deadline (the timer may still fire once, and does nothing).
  void clear() { set_ = false; }

 private:
  void arm(Steady::time_point now) {
    const auto us = std::chrono::duration_cast<std::chrono::microseconds>(deadline_ - now).count();
    const auto ms = std::clamp<std::int64_t>(ceilMillis(Micros{us}), 1, 1 << 30);
    timer_.start(static_cast<int>(ms));
    due_ = now + std::chrono::milliseconds(ms);
  }
  void onTimer() {
    if (!set_) return;
    const auto now = Steady::now();
    if (now < deadline_) return arm(now);
    set_ = false;
    expired_();
  }

  std::function<void()> expired_;  ///< the owner's timeout handler
  QTimer timer_;                   ///< fires at or before deadline_
  Steady::time_point deadline_{};  ///< when expired_ is due
  Steady::time_point due_{};       ///< when timer_ fires
  bool set_ = false;               ///< a deadline applies
};

}  // namespace rl
