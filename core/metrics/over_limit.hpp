#pragma once
// Over limit, one definition (docs/over-limit.md): each admission is judged
// against its algorithm's own promise, per client, never summed over clients.
//
//   fixed_window     admitted cost in the aligned window it falls in  <= limit
//   sliding_log,
//   sliding_counter  admitted cost in any window (t - W, t]            <= limit
//   token_bucket,
//   leaky_bucket,
//   gcra             admitted cost in any interval [t1, t2]   <= limit + (t2 - t1) / I
//                    (burst plus what refills, leaks or is emitted in the
//                    interval; I is the integer emission interval the
//                    algorithm runs on, so an exact limiter is never over)
//
// An admission's "need" is the smallest limit that would have let it through
// (the window's cost, or the burst the interval needed); need / limit > 1 is
// over the limit, and the run's overshoot is the largest need / limit.
//
// Real clocks: a decision happened somewhere in [atUs, atUs + serviceUs], so
// the judge gives it the benefit of the doubt: an admission is over only if no
// placement of the decisions within their service times makes it fit. On the
// virtual clock serviceUs is 0 and the judgement is exact.
//
// A quota change starts a new judgement for rate algorithms (an interval is
// judged only within one quota); window algorithms judge each admission by the
// quota in force at its time.

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "limiter/algorithm.hpp"
#include "limiter/quota.hpp"
#include "limiter/quota_change.hpp"
#include "storm/quota_schedule.hpp"

namespace rl {

/// What an admission is judged against; see the file comment.
struct OverLimitRule {
  Algorithm algorithm = Algorithm::FixedWindow;  ///< whose promise
  std::vector<TimedQuota> quotas;  ///< by time, the first at 0 (at least one)
  std::int64_t cost = 1;           ///< cost of every request
  std::int64_t originUs = 0;       ///< the limiter's clock at the run's start (aligns fixed windows)
};

/// One admission's judgement.
struct OverLimitVerdict {
  double ratio = 0;    ///< need / limit: > 1 is over the limit
  bool over = false;   ///< ratio > 1
};

/// The worst admission seen so far.
struct WorstAdmission {
  std::uint32_t client = 0;  ///< whose
  std::int64_t atUs = -1;    ///< when (-1: none yet)
  double ratio = 0;          ///< its need / limit
};

/// Judges the admissions of one algorithm in time order, client by client.
class OverLimitJudge {
 public:
  explicit OverLimitJudge(OverLimitRule rule);
  /// The next admission (atUs non-decreasing over calls) of `client`, decided
  /// somewhere in [atUs, atUs + serviceUs].
  OverLimitVerdict admit(std::uint32_t client, std::int64_t atUs, std::int64_t serviceUs = 0);
  /// The admission with the largest need / limit so far.
  const WorstAdmission& worst() const { return worst_; }
  /// Admissions over the limit so far.
  std::int64_t overCount() const { return overCount_; }
  /// How many admissions of each client were over the limit.
  std::unordered_map<std::uint32_t, std::int64_t> overByClient() const;

  /// The judge's state after the admissions so far, to return to with restore().
  struct Checkpoint;
  Checkpoint checkpoint() const;
  /// Forgets every admission after `c` was taken.
  void restore(const Checkpoint& c);

 private:
  struct Client {
    std::vector<std::int64_t> times;  ///< admission times (window algorithms)
    std::size_t quotaIndex = 0;       ///< the quota its current judgement runs under
    std::int64_t windowIndex = 0;     ///< fixed_window: the aligned window of `count`
    std::int64_t count = 0;           ///< fixed_window: admissions in it; rate: admissions since the quota began
    WideInt minStart = 0;             ///< rate: min over its admissions i of (admissions before i) x cost x I - t_i
    std::int64_t overs = 0;           ///< admissions over the limit
  };
  double judge(Client& c, const Quota& q, std::int64_t atUs, std::int64_t serviceUs);
  std::size_t quotaIndexAt(std::int64_t atUs);

  OverLimitRule rule_;
  std::size_t cursor_ = 0;  ///< index of the quota in force at the latest admission
  std::unordered_map<std::uint32_t, Client> clients_;
  WorstAdmission worst_;
  std::int64_t overCount_ = 0;

 public:
  struct Checkpoint {
    struct Saved {
      Client scalars;      ///< with `times` empty
      std::size_t times;   ///< how many times it had
    };
    std::unordered_map<std::uint32_t, Saved> clients;
    std::size_t cursor = 0;
    WorstAdmission worst;
    std::int64_t overCount = 0;
  };
};

/// The promise `algorithm` makes under `q`, in words: "at most 20 in any 1 s",
/// "burst 20 + 10/s x T".
std::string overLimitBoundText(Algorithm algorithm, const Quota& q);

}  // namespace rl
