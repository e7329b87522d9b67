#pragma once
// ScriptReply: how a team's limiter script's reply is read (`--script-reply`).
// The reply is an integer, or an array whose first element is an integer
// (non-zero = allowed); `--script-reply 'allowed,remaining,retry_after_ms'`
// names the array's elements in order (`_` skips one). Any other shape, a
// named element that is not a number, or a number outside +-2^52 is a
// Protocol error naming the script and quoting the reply, never a decision.
// Hiredis-free apart from the reply view, so the fuzz target reads it directly.

#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"
#include "limiter/decision.hpp"
#include "limiter/quota.hpp"
#include "redis/redis_connection.hpp"

namespace rl {

/// The names --script-reply allows, for messages.
inline constexpr std::string_view kScriptReplyNames =
    "allowed, remaining, tokens, retry_after_ms, retry_after_us, reset_after_ms, reset_after_us, _ (skip)";

class ScriptReply {
 public:
  /// Parses `names` ("allowed,remaining"); InvalidArgument naming --script-reply and the
  /// allowed names, or when the first is not `allowed`.
  static Result<ScriptReply> parse(std::string_view names);
  /// Reads `reply` of script `scriptName` under `quota`; see the file comment.
  Result<Decision> read(ReplyView reply, const Quota& quota, const std::string& scriptName) const;
  /// Elements named.
  std::size_t size() const { return fields_.size(); }

 private:
  enum class Field { Allowed, Remaining, Tokens, RetryMs, RetryUs, ResetMs, ResetUs, Skip };
  std::vector<Field> fields_;
};

/// A reply as a user would read it: 3, "OK", nil, [1, "many"] (long values cut).
std::string scriptReplyText(ReplyView v);

}  // namespace rl
