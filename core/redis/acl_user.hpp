#pragma once
// An ACL user that confines scripts to RateLab's key prefix (Redis 6+):
//   ACL SETUSER NAME reset on >PASSWORD resetchannels ~<prefix>* +@all -@dangerous
// `reset` first, so an existing user keeps no older rights; `~<prefix>*` is
// the only key pattern (glob characters of the prefix escaped), and Redis
// checks it for every key a script touches, KEYS or not; -@dangerous refuses
// FLUSHALL, FLUSHDB, CONFIG, KEYS, DEBUG, SHUTDOWN and the like (so RateLab
// reads busy-reply-threshold as its 5 s default and the server version as "?");
// no Pub/Sub channels. `ratelab-cli script --acl-user NAME` prints it (the
// password as PASSWORD) or, with --redis and --acl-password-file, creates it.

#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"
#include "redis/redis_connection.hpp"

namespace rl {

/// Ok when `name` is 1 to 64 of A-Z a-z 0-9 . _ - ; else InvalidArgument naming --acl-user.
Result<void> checkAclUserName(std::string_view name);

/// The ACL SETUSER words for `name` limited to `prefix` (password `password`).
std::vector<std::string> aclSetUserArgv(std::string_view name, std::string_view prefix, std::string_view password);

/// The command as one line to paste into redis-cli, with PASSWORD in place of the password.
std::string aclSetUserLine(std::string_view name, std::string_view prefix);

/// Creates (or resets) the user on the server `conn` talks to. InvalidArgument when
/// the server has no ACLs (before Redis 6) or refuses (the connection's user may not
/// run ACL SETUSER); the message never holds the password.
Result<void> createAclUser(RedisConnection& conn, std::string_view name, std::string_view prefix,
                           std::string_view password);

}  // namespace rl
