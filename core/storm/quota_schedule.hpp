#pragma once
// Quota changes during a run (`--quota-change`, scenario key "quota_changes",
// the window's live tuning): events at a time, each changing some of limit,
// window and refill rate. Text form of one change:
//
//   AT_MS:limit=N,window_ms=W,refill_rate=R     (any non-empty subset, any order)
//
// What a change does not name stays as it was. What the state keeps across a
// change is the algorithm's business (ARCHITECTURE.md, "A quota change"):
// token_bucket its tokens, leaky_bucket its queue, window algorithms their
// counts, GCRA its theoretical arrival time. Parsing is pure.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"
#include "limiter/quota.hpp"
#include "storm/decision_record.hpp"

namespace rl {

/// One scheduled quota change: the fields it sets, from `at` on.
struct QuotaChange {
  Micros at{0};                         ///< since the run's start
  std::optional<std::int64_t> limit;    ///< new limit
  std::optional<Micros> window;         ///< new window
  std::optional<double> refillPerSecond;  ///< new explicit refill rate

  bool operator==(const QuotaChange&) const = default;
};

/// Parses one change; InvalidArgument names `shownAs`, the part and what is allowed.
Result<QuotaChange> parseQuotaChange(std::string_view text, const std::string& shownAs);

/// "4000:limit=20,refill_rate=10" (round-trips through parseQuotaChange).
std::string quotaChangeText(const QuotaChange& change);

/// `q` with the fields `change` sets.
Quota appliedTo(const QuotaChange& change, Quota q);

/// Inserts `change` keeping time order (equal times: after the ones there).
void insertQuotaChange(std::vector<QuotaChange>& changes, QuotaChange change);

/// The quota a marker says is in force: its limit and window, and its refill when it names one (> 0). The
/// window's live lanes and a past run's redraw both read markers through this, so they judge alike.
Quota quotaOf(const QuotaMarker& marker);

/// A live change (the window's tuning) as the event a scenario file holds: every field set.
QuotaChange quotaChangeOf(const QuotaMarker& marker);

/// `scheduled` with `live` (the window's tuning) merged in time order, as a
/// scenario file holds them, so a tuned run replays headless.
std::vector<QuotaChange> withLiveChanges(std::span<const QuotaChange> scheduled, std::span<const QuotaMarker> live);

/// A quota in force from `atUs` (us since the run's start) until the next one.
struct TimedQuota {
  std::int64_t atUs = 0;  ///< from when
  Quota quota;            ///< what
};

/// The quotas a run went through: `start` at 0, then `scheduled` and `live`
/// merged in time order, each applied to the quota before it.
std::vector<TimedQuota> quotaTimeline(const Quota& start, std::span<const QuotaChange> scheduled,
                                      std::span<const QuotaMarker> live = {});

}  // namespace rl
