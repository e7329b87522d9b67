#include "trace/trace_options.hpp"

#include <cctype>

namespace rl {

namespace {
bool validName(std::string_view n) {
  if (n.empty()) return false;
  for (char c : n)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.')) return false;
  return true;
}
}  // namespace

Result<TraceFormat> parseTraceFormat(std::string_view t) {
  if (t == "auto") return TraceFormat{};
  if (t == "combined") return TraceFormat{TraceFormatKind::Combined, {}};
  if (t == "common") return TraceFormat{TraceFormatKind::Common, {}};
  if (t == "jsonl") return TraceFormat{TraceFormatKind::Jsonl, {}};
  if (t == "csv") return TraceFormat{TraceFormatKind::Csv, {}};
  if (t.rfind("nginx:", 0) == 0) {
    std::string_view f = t.substr(6);
    if (f.size() >= 2 && f.front() == '\'' && f.back() == '\'') f = f.substr(1, f.size() - 2);
    if (f.find('$') == std::string_view::npos)
      return invalidArgument("--trace-format nginx: the log_format '" + std::string(f) +
                             "' has no $variable: allowed nginx:'<log_format string>'");
    return TraceFormat{TraceFormatKind::Nginx, std::string(f)};
  }
  return invalidArgument("--trace-format: '" + std::string(t) +
                         "' is not valid: allowed combined, common, nginx:'<log_format>', jsonl, csv or auto");
}

std::string traceFormatText(const TraceFormat& f) {
  switch (f.kind) {
    case TraceFormatKind::Auto: return "auto";
    case TraceFormatKind::Combined: return "combined";
    case TraceFormatKind::Common: return "common";
    case TraceFormatKind::Nginx: return "nginx:'" + f.logFormat + "'";
    case TraceFormatKind::Jsonl: return "jsonl";
    case TraceFormatKind::Csv: return "csv";
  }
  return "auto";
}

Result<TraceKey> parseTraceKey(std::string_view t) {
  if (t == "addr") return TraceKey{};
  const auto colon = t.find(':');
  const std::string_view kind = t.substr(0, colon);
  const std::string_view name = colon == std::string_view::npos ? std::string_view{} : t.substr(colon + 1);
  if ((kind == "header" || kind == "field") && validName(name))
    return TraceKey{kind == "header" ? TraceKeySource::Header : TraceKeySource::Field, std::string(name)};
  return invalidArgument("--trace-key: '" + std::string(t) +
                         "' is not valid: allowed addr, header:NAME (e.g. header:x-api-key) or field:NAME");
}

std::string traceKeyText(const TraceKey& k) {
  switch (k.source) {
    case TraceKeySource::Addr: return "addr";
    case TraceKeySource::Header: return "header:" + k.name;
    case TraceKeySource::Field: return "field:" + k.name;
  }
  return "addr";
}

Result<void> parseTraceTime(std::string_view t, TraceOptions& o) {
  const auto colon = t.rfind(':');
  std::string_view field = t;
  TimeUnit unit = TimeUnit::Seconds;
  if (colon != std::string_view::npos) {
    const std::string_view u = t.substr(colon + 1);
    field = t.substr(0, colon);
    if (u == "s") unit = TimeUnit::Seconds;
    else if (u == "ms") unit = TimeUnit::Milliseconds;
    else if (u == "us") unit = TimeUnit::Microseconds;
    else field = {};
  }
  if (!validName(field))
    return invalidArgument("--trace-time: '" + std::string(t) +
                           "' is not valid: allowed FIELD or FIELD:s|ms|us (a JSONL field; numbers in that unit, "
                           "strings in ISO 8601)");
  o.timeField = std::string(field);
  o.timeUnit = unit;
  return {};
}

std::string traceTimeText(const TraceOptions& o) {
  switch (o.timeUnit) {
    case TimeUnit::Seconds: return o.timeField;
    case TimeUnit::Milliseconds: return o.timeField + ":ms";
    case TimeUnit::Microseconds: return o.timeField + ":us";
  }
  return o.timeField;
}

}  // namespace rl
