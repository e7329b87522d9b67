#pragma once
// redis-script: the user's own Lua limiter as a store (`--backend redis-script
// --script FILE`). KEYS and ARGV come from templates (script_template.hpp);
// one EVALSHA per decision (NOSCRIPT -> EVAL, then reload).
//
// The reply: an integer, or an array whose first element is an integer;
// non-zero = allowed. `--script-reply 'allowed,remaining'` names the array's
// elements; known names fill the Decision: allowed, remaining, tokens (remaining
// and level), retry_after_ms, retry_after_us, reset_after_ms, reset_after_us;
// `_` skips an element. Numbers may be integers or numeric strings (Lua floats
// leave Redis as strings only via tostring: Redis truncates Lua numbers).
// Anything else (a string where an integer is needed, a Lua error, fewer
// elements than named) is a Protocol error naming the script and the reply it
// gave: counted as an error, never a silent denial, never the failure policy.
//
// A script that does not answer within the command timeout: SCRIPT KILL on a
// fresh connection (script_kill.hpp), so the shared Redis does not stay BUSY.
// Killed (it looped) or UNKILLABLE (it looped after writing) is the script's
// fault, said in one sentence: that decision and every later one of the run
// (the stores share `ScriptSettings::runaway`) are errors with it, never the
// failure policy's, and the script is not run again. A script that had ended
// by then (NOTBUSY) or a server that did not answer the kill is an outage,
// as before. The kill waits up to the server's busy-reply-threshold + 1 s (5 s by
// default): a script is only killable once it has run that long.
//
// Cluster: the call goes to the master of KEYS[1] (slot 0 without keys); the
// script is loaded on every master, NOSCRIPT reloads it on the node that said so.
//
// Threading: one connection (cluster: one per master), one thread (like every Redis store).

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "redis/redis_store.hpp"
#include "redis/script_settings.hpp"
#include "redis/script_reply.hpp"
#include "redis/script_template.hpp"

namespace rl {

/// What runs and how its reply is read.
struct ScriptStoreOptions : ScriptSettings {
  RedisStoreOptions redis;     ///< server, prefix (the clock setting is not used: {now_*} is the caller's)
};

/// redis-script; see the file comment.
class RedisScriptStore final : public RedisStoreBase {
 public:
  /// Reads the file, checks the templates and reply names (InvalidArgument
  /// naming the flag), connects and loads the script (a syntax error is named).
  static Result<std::unique_ptr<RedisScriptStore>> make(const ScriptStoreOptions& options);
  std::string_view name() const override { return "redis-script"; }
  Result<Decision> decide(const DecisionRequest& request) override;
  /// The script's file name, for reports ("seed_token_bucket.lua").
  const std::string& scriptName() const { return scriptName_; }

 private:
  RedisScriptStore(RedisLink link, RedisStoreOptions options) : RedisStoreBase(std::move(link), std::move(options)) {}
  Error afterTimeout(const RedisEndpoint& node, const Error& timeout);

  std::string source_;              ///< the script text
  std::string sha_;                 ///< its SHA1 on the server
  std::string scriptName_;          ///< the file's name
  std::string file_;                ///< the file's path, for errors
  std::optional<ScriptTemplate> keys_;  ///< KEYS template
  std::optional<ScriptTemplate> argv_;  ///< ARGV template
  ScriptReply reply_;               ///< how the reply is read (--script-reply)
  Micros busyThreshold_{5'000'000};  ///< the server's busy-reply-threshold: how long a kill may wait
  std::shared_ptr<RunawayScript> runaway_;  ///< the run's verdict on the script
};

/// The store of a Redis `backend` for one thread: redis-lua, redis-naive,
/// redis-watch (makeRedisStore) or redis-script (with `script`). Storms, the
/// race lab, bench and serve all make their Redis stores here.
Result<std::unique_ptr<Store>> makeRedisBackendStore(Backend backend, const RedisStoreOptions& options,
                                                     const ScriptSettings& script);

/// Reads a script file: its text, or InvalidArgument naming the file.
Result<std::string> readScriptFile(const std::string& path);

/// Ok when every word of the KEYS template `keys` starts with {prefix}, or
/// `outsideAllowed`; else InvalidArgument naming the word and --script-keys-outside-prefix.
Result<void> checkKeysInPrefix(const ScriptTemplate& keys, const std::string& text, bool outsideAllowed);

/// One line per server-wide command the script text names (FLUSHALL, FLUSHDB,
/// CONFIG; any case, as a whole word in code or a string, not in a Lua
/// comment), with its line number: what a limiter script should never send.
std::vector<std::string> scriptWarnings(std::string_view source, const std::string& scriptName);

}  // namespace rl
