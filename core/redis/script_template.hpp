#pragma once
// Argument templates of a user's Lua limiter (`--script-keys`, `--script-argv`):
// space-separated words, each literal text with placeholders, e.g.
// '{prefix}{client}' or '{limit} {refill_rate} {now_s} {cost}'.
//
//   {client}       the client key (run tag included)   {prefix}     the key prefix
//   {limit}        Quota::limit                          {cost}       the request's cost
//   {window_ms}    window in ms      {window_s}   window in seconds (decimal)
//   {refill_rate}  tokens per second (explicit refill, else limit / window; decimal)
//   {now_us} {now_ms} {now_s}  the storm's clock (virtual, client or skewed):
//                  integer us, integer ms (floor), seconds with 6 decimals

#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"
#include "store/store.hpp"

namespace rl {

/// A parsed template: words of literal and placeholder parts.
class ScriptTemplate {
 public:
  /// Parses `text`; InvalidArgument names the unknown placeholder or the
  /// unclosed brace and lists the allowed placeholders. `shownAs` names the flag.
  static Result<ScriptTemplate> parse(std::string_view text, const std::string& shownAs);
  /// The words with every placeholder replaced for `request` under `prefix`.
  std::vector<std::string> expand(const DecisionRequest& request, std::string_view prefix) const;
  /// Number of words.
  std::size_t size() const { return words_.size(); }
  /// The index of the first word that does not start with {prefix}, or -1 when every word does.
  int firstWordOutsidePrefix() const;

 private:
  enum class Part { Literal, Client, Prefix, Limit, WindowMs, WindowS, RefillRate, NowUs, NowMs, NowS, Cost };
  struct Piece {
    Part part = Part::Literal;  ///< what this piece becomes
    std::string text;           ///< Literal: the text
  };
  std::vector<std::vector<Piece>> words_;  ///< one list of pieces per word
};

}  // namespace rl
