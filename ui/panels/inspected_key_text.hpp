#pragma once
// The key inspector's words for one key, in the window's language (never a
// CLI flag): its TTL in human units, ZSET scores as times in the unit they are
// written in, and the detail pane (the reading, what to type in the Assume
// field, warnings such as a missing TTL, then the raw value).

#include <QString>

#include "ui/workers/redis_types.hpp"

namespace rl::ui {

/// A PTTL for the list: "59.2 s", "3 min 12 s", "no TTL", "gone", "expired".
QString pttlText(qint64 ms);

/// A ZSET score in `unitUs` per unit (0: not a time) as "2026-12-03 12:00:01.250 UTC (ms score 1796...)".
QString scoreText(const QString& score, qint64 unitUs);

/// The detail pane of `key`: the reading in words, then `raw` (the value as Redis holds it).
QString keyDetailText(const InspectedKey& key, const QString& raw);

}  // namespace rl::ui
