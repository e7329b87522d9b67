#pragma once
// --trace-filter: which valid lines a trace keeps. "path=/api/login" keeps
// that path exactly (query ignored), "path=/api/*" a path prefix; anything
// else is an ECMAScript regex searched in the request line. The regex runs
// only when asked for; the path forms are plain string compares.

#include <memory>
#include <regex>
#include <string>
#include <string_view>

#include "common/result.hpp"
#include "trace/line_parser.hpp"

namespace rl {

/// A compiled --trace-filter; see the file comment.
class TraceFilter {
 public:
  /// Compiles `text` ("" keeps every line). `hasRequest`: the format carries request lines.
  static Result<TraceFilter> compile(std::string_view text, bool hasRequest);
  /// True when `line` is kept.
  bool keep(const ParsedLine& line) const;

 private:
  enum class Kind { All, Path, PathPrefix, Regex };
  Kind kind_ = Kind::All;               ///< which test
  std::string path_;                    ///< Path / PathPrefix
  std::shared_ptr<const std::regex> regex_;  ///< Regex
};

}  // namespace rl
