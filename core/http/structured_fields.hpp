#pragma once
// A small reader of RFC 8941 Structured Field Values: Lists and Dictionaries of
// Items (integer, decimal, string, token, byte sequence, boolean) with
// parameters, and inner lists. Strict as the RFC asks: a field that does not
// parse is refused whole (the caller treats it as absent), never half-read.
// No library for this is packaged for Debian 12; the grammar is small.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/result.hpp"

namespace rl {

/// One bare item.
struct SfBare {
  enum class Kind { Integer, Decimal, String, Token, Bytes, Boolean };
  Kind kind = Kind::Boolean;  ///< which alternative is set
  std::int64_t integer = 0;   ///< Integer (also Boolean: 0 or 1)
  double decimal = 0;         ///< Decimal
  std::string text;           ///< String, Token, Bytes (the base64 text as sent)

  /// The integer of an Integer, the truncated value of a Decimal; nullopt otherwise.
  std::optional<std::int64_t> asInteger() const;
};

/// A parameter: `;key=value` (a bare key is Boolean true).
struct SfParam {
  std::string key;  ///< lowercase key
  SfBare value;     ///< its value
};

/// An item or an inner list, with its parameters.
struct SfItem {
  SfBare value;                 ///< the item (unset for an inner list)
  std::vector<SfItem> inner;    ///< the members of an inner list
  bool innerList = false;       ///< true for `( ... )`
  std::vector<SfParam> params;  ///< parameters in order

  /// The parameter named `key`, or nullptr.
  const SfBare* param(std::string_view key) const;
};

using SfList = std::vector<SfItem>;
using SfDictionary = std::vector<std::pair<std::string, SfItem>>;

/// Parses a List field value; InvalidArgument says where it stopped parsing.
Result<SfList> parseSfList(std::string_view field);
/// Parses a Dictionary field value (a key given twice keeps the last value).
Result<SfDictionary> parseSfDictionary(std::string_view field);

}  // namespace rl
