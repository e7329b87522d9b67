#pragma once
// Redis Cluster key slots: CRC16 (XMODEM: polynomial 0x1021, initial 0) of the
// key's hash tag, modulo 16384. The hash tag is the part between the first '{'
// and the first '}' after it, when that part is not empty; otherwise the whole
// key. RateLab's keys `<prefix>{<algorithm>:<client>}[:suffix]` put all keys
// of one client in one slot, so a multi-key script never spans slots.

#include <cstdint>
#include <string>
#include <string_view>

#include "common/result.hpp"
#include "limiter/algorithm.hpp"

namespace rl {

/// Slots of a Redis Cluster.
inline constexpr int kClusterSlots = 16384;

/// CRC16-XMODEM of `data` (Redis Cluster's key hash).
std::uint16_t crc16(std::string_view data);

/// The part of `key` that is hashed: its non-empty `{...}` tag, else the whole key.
std::string_view hashTag(std::string_view key);

/// The cluster slot of `key`, 0..16383.
int keySlot(std::string_view key);

/// The base key of one client on a cluster, `<prefix>{<algorithm>:<client>}`,
/// after checking that every key of that client (the base and each
/// `:<suffix>` key the scripts derive from it) hashes to one slot.
/// InvalidArgument names the prefix or client that breaks the hash tag
/// (e.g. a prefix holding an empty `{}`), instead of CROSSSLOT at run time.
Result<std::string> clusterLimiterKey(std::string_view prefix, Algorithm a, std::string_view client);

}  // namespace rl
