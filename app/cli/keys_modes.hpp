#pragma once
// The modes of `ratelab-cli keys` beside the listing: --audit (cmd_keys_audit.cpp)
// and --watch (cmd_keys_watch.cpp). cmd_keys.cpp parses the shared flags and
// calls one of them with the reading context already built.

#include <string>

#include "cli_flags.hpp"
#include "keys/key_reading.hpp"
#include "redis_target.hpp"

namespace rl::cli {

/// `keys --audit`: every matching key (every key when no --prefix) counted; exit 1 on a failed check.
int runKeysAudit(const Args& args, const Flags& flags, RedisTarget& redis, const std::string& prefix, const ReadContext& context);

/// `keys --watch`: the decoded keys over time, JSON lines (--jsonl) or one final document.
int runKeysWatch(const Flags& flags, RedisTarget& redis, const std::string& prefix, const ReadContext& context);

/// Parses a whole number flag in [lo, hi]; prints the error (exit 2) and returns nullopt when wrong.
std::optional<std::int64_t> numberFlag(const Flags& flags, std::string_view name, std::int64_t fallback,
                                       std::int64_t lo, std::int64_t hi);

}  // namespace rl::cli
