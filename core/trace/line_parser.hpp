#pragma once
// LineParser: one line of a trace file to (time, client key, cost) and the
// request line for --trace-filter. One implementation per format family:
// text access logs (a compiled LogFormat), JSONL (nlohmann-json), CSV.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "common/result.hpp"
#include "trace/trace_options.hpp"

namespace rl {

/// What one line says. Views are valid until the parser's next call.
struct ParsedLine {
  std::int64_t timeUs = 0;      ///< us since the epoch
  bool wholeSecond = false;     ///< the time has one-second resolution ($time_local)
  std::string_view key;         ///< client key
  std::uint32_t cost = 1;       ///< weight
  std::string_view request;     ///< request line ("GET /x HTTP/1.1"), empty if unknown
  std::string_view path;        ///< path without the query, empty if unknown
};

/// Parses lines of one format; see the file comment.
class LineParser {
 public:
  virtual ~LineParser() = default;
  /// What parse() found.
  enum class Outcome { Ok, Bad, Header };
  /// Parses `line`: Ok, Bad (with `why` set), or Header (a column header line, skipped).
  virtual Outcome parse(std::string_view line, ParsedLine& out, std::string& why) = 0;
  /// True when the format carries the request line or path (needed by --trace-filter).
  virtual bool hasRequest() const = 0;
};

/// The parser for a concrete (not Auto) format and the options' key and time
/// fields. The error names the flag that asks for something the format lacks.
Result<std::unique_ptr<LineParser>> makeLineParser(const TraceFormat& format, const TraceOptions& options);

/// The nginx variable of a header: "X-Api-Key" -> "http_x_api_key".
std::string headerVariable(std::string_view header);

/// The path of a request line ("GET /a/b?x=1 HTTP/1.1" -> "/a/b"); a bare URI works too.
std::string_view requestPath(std::string_view requestLine);

}  // namespace rl
