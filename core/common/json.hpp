#pragma once
// Json: a small Qt-free JSON value, parser and writer, for scenario files and
// the CLI's --json output (ratelab-cli must not need Qt for run/race/bench).
// Objects keep their keys in insertion order, so output is stable.

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/result.hpp"

namespace rl {

/// One JSON value; see the file comment.
class Json {
 public:
  /// The kind of value held.
  enum class Type { Null, Bool, Number, String, Array, Object };
  using Array = std::vector<Json>;                          ///< a JSON array
  using Object = std::vector<std::pair<std::string, Json>>; ///< a JSON object, in key order

  Json() = default;                      ///< null
  Json(std::nullptr_t) {}                ///< null
  Json(bool b) : type_(Type::Bool), bool_(b) {}                                 ///< true / false
  Json(int v) : Json(static_cast<std::int64_t>(v)) {}                          ///< an integer
  Json(std::int64_t v) : type_(Type::Number), int_(v), num_(static_cast<double>(v)), isInt_(true) {}  ///< an integer
  Json(double v) : type_(Type::Number), num_(v) {}                              ///< a number
  Json(const char* s) : type_(Type::String), str_(s) {}                         ///< a string
  Json(std::string s) : type_(Type::String), str_(std::move(s)) {}             ///< a string
  Json(std::string_view s) : type_(Type::String), str_(s) {}                    ///< a string
  Json(Array a) : type_(Type::Array), arr_(std::move(a)) {}                     ///< an array
  Json(Object o) : type_(Type::Object), obj_(std::move(o)) {}                   ///< an object

  Type type() const { return type_; }               ///< the kind of value
  bool isNull() const { return type_ == Type::Null; }       ///< null
  bool isBool() const { return type_ == Type::Bool; }       ///< true / false
  bool isNumber() const { return type_ == Type::Number; }   ///< any number
  bool isInteger() const;                                   ///< a number with no fraction that fits int64
  bool isString() const { return type_ == Type::String; }   ///< a string
  bool isArray() const { return type_ == Type::Array; }     ///< an array
  bool isObject() const { return type_ == Type::Object; }   ///< an object

  bool asBool() const { return bool_; }                 ///< the bool (false unless isBool)
  double asDouble() const { return num_; }              ///< the number (0 unless isNumber)
  std::int64_t asInt() const;                           ///< the integer (isInteger only)
  const std::string& asString() const { return str_; }  ///< the string (empty unless isString)
  const Array& asArray() const { return arr_; }         ///< the elements (empty unless isArray)
  const Object& asObject() const { return obj_; }       ///< the members (empty unless isObject)

  /// The member `key` of an object, or nullptr.
  const Json* find(std::string_view key) const;
  /// Object: sets `key` (replacing an existing member); makes a null an object first.
  Json& set(std::string key, Json value);
  /// Array: appends; makes a null an array first.
  Json& push(Json value);

  /// Serialises; indent < 0 = compact on one line, else pretty with that many spaces.
  std::string dump(int indent = -1) const;
  /// A string with JSON escapes, without the quotes.
  static std::string escape(std::string_view s);
  /// Parses a whole document; the error names the line and column.
  static Result<Json> parse(std::string_view text);

 private:
  void dumpTo(std::string& out, int indent, int depth) const;

  Type type_ = Type::Null;  ///< which member below is meaningful
  bool bool_ = false;       ///< Bool
  std::int64_t int_ = 0;    ///< Number, exact when isInt_
  double num_ = 0;          ///< Number
  bool isInt_ = false;      ///< Number: written and read as an exact integer
  std::string str_;         ///< String
  Array arr_;               ///< Array
  Object obj_;              ///< Object
};

}  // namespace rl
