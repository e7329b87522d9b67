#pragma once
// --trace-filter: which valid lines a trace keeps. "path=/api/login" keeps
// that path exactly (query ignored), "path=/api/*" a path prefix; anything
// else is an RE2 regex searched in the request line. The regex runs only when
// asked for; the path forms are plain string compares.
//
// Bounds: RE2 matches in time linear in the text (no backtracking, so no
// pattern can hang or overflow the stack), the text is the request line of
// one trace line (at most LineSource::kBufferBytes, 1 MiB), the pattern is at
// most kMaxPatternBytes and its compiled program at most kMaxProgramMemory.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "common/result.hpp"
#include "trace/line_parser.hpp"

namespace re2 {
class RE2;
}

namespace rl {

/// A compiled --trace-filter; see the file comment.
class TraceFilter {
 public:
  /// The longest --trace-filter text accepted.
  static constexpr std::size_t kMaxPatternBytes = 4096;
  /// The memory RE2 may use for one compiled filter (program and DFA cache).
  static constexpr std::int64_t kMaxProgramMemory = 8 << 20;

  /// Compiles `text` ("" keeps every line). `hasRequest`: the format carries request lines.
  static Result<TraceFilter> compile(std::string_view text, bool hasRequest);
  /// True when `line` is kept.
  bool keep(const ParsedLine& line) const;

 private:
  enum class Kind { All, Path, PathPrefix, Regex };
  Kind kind_ = Kind::All;                    ///< which test
  std::string path_;                         ///< Path / PathPrefix
  std::shared_ptr<const re2::RE2> regex_;    ///< Regex
};

}  // namespace rl
