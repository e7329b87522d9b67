#pragma once
// How to read a trace: format, which field is the client, which is the time,
// which lines count. Parsed from `--trace-*` flags and scenario keys.

#include <cstdint>
#include <string>
#include <string_view>

#include "common/result.hpp"

namespace rl {

/// The file format of a trace (`--trace-format`).
enum class TraceFormatKind {
  Auto,      ///< detected from the first lines; an error when not unambiguous
  Combined,  ///< nginx / Apache "combined" access log
  Common,    ///< nginx / Apache "common" access log (combined without referer and agent)
  Nginx,     ///< a custom nginx log_format string
  Jsonl,     ///< one JSON object per line
  Csv,       ///< time,key[,cost] (an optional header line)
};

/// A trace format; `logFormat` holds the nginx log_format for Nginx.
struct TraceFormat {
  TraceFormatKind kind = TraceFormatKind::Auto;  ///< which reader
  std::string logFormat;                         ///< Nginx: the log_format string
  bool operator==(const TraceFormat&) const = default;
};

/// Where the client key comes from (`--trace-key`).
enum class TraceKeySource {
  Addr,    ///< the client address ($remote_addr, JSON field remote_addr)
  Header,  ///< a request header ($http_<name>, JSON field http_<name>)
  Field,   ///< a named log variable (without $) or JSON field
};

/// The client key's source and, for Header and Field, its name.
struct TraceKey {
  TraceKeySource source = TraceKeySource::Addr;  ///< see TraceKeySource
  std::string name;                              ///< header or field name
  bool operator==(const TraceKey&) const = default;
};

/// The requests one trace read keeps at most unless told otherwise (16 B each: 320 MB).
inline constexpr std::int64_t kDefaultMaxTraceRequests = 20'000'000;

/// Units of a numeric JSONL time field (`--trace-time FIELD[:s|ms|us]`).
enum class TimeUnit { Seconds, Milliseconds, Microseconds };

/// Everything that says how a trace file is read.
struct TraceOptions {
  std::string path;                       ///< the file; empty = no trace
  TraceFormat format;                     ///< --trace-format
  TraceKey key;                           ///< --trace-key
  std::string timeField = "time";         ///< --trace-time: JSONL field holding the time
  TimeUnit timeUnit = TimeUnit::Seconds;  ///< --trace-time FIELD:ms|us
  std::string filter;                     ///< --trace-filter: "path=/x" (x* = prefix) or a regex on the request line
  bool burst = false;                     ///< --trace-burst: keep one-second times as same-instant bursts
  bool strict = false;                    ///< --strict: any bad line is an error
  std::int64_t maxRequests = kDefaultMaxTraceRequests;  ///< reading stops with an error past this many requests
  std::string maxRequestsRule;            ///< what sets maxRequests, for that error ("--max-requests 1 to ...")
  bool operator==(const TraceOptions&) const = default;
};

/// "combined", "common", "nginx:'<format>'", "jsonl", "csv" or "auto".
Result<TraceFormat> parseTraceFormat(std::string_view text);
/// The form parseTraceFormat reads back.
std::string traceFormatText(const TraceFormat& f);
/// "addr", "header:NAME" or "field:NAME".
Result<TraceKey> parseTraceKey(std::string_view text);
/// The form parseTraceKey reads back.
std::string traceKeyText(const TraceKey& k);
/// "FIELD", "FIELD:s", "FIELD:ms" or "FIELD:us" into `o.timeField` and `o.timeUnit`.
Result<void> parseTraceTime(std::string_view text, TraceOptions& o);
/// The form parseTraceTime reads back.
std::string traceTimeText(const TraceOptions& o);

}  // namespace rl
