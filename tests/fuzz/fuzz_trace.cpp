// libFuzzer: the trace readers (core/trace): format detection, the combined,
// common and nginx log_format parsers, JSONL and CSV, the line splitter, the
// time parsers and --trace-filter. Any bytes: never a crash, a hang or UB; a
// trace that loads is sorted by time and every request names a known key.
//
// Input layout: byte 0 picks the format (combined, common, nginx:<first line>,
// jsonl, csv, auto) and, with its top bit, the whole reader (a temp file through
// loadTrace: detection, splitting, filter, stats; slow) instead of the line
// parser on each line in memory (fast); byte 1 the key source, the JSONL time
// unit and burst / strict / filter; the rest is the file (for nginx its first
// line is the log_format).
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include "trace/line_parser.hpp"
#include "trace/trace.hpp"

namespace {
const std::string& tracePath() {
  static const std::string path = "/tmp/ratelab-fuzz-trace-" + std::to_string(::getpid()) + ".log";
  return path;
}

bool writeFile(std::string_view body) {
  std::FILE* f = std::fopen(tracePath().c_str(), "wb");
  if (!f) return false;
  const bool ok = std::fwrite(body.data(), 1, body.size(), f) == body.size();
  return std::fclose(f) == 0 && ok;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  const std::uint8_t mode = data[0], flags = data[1];
  std::string_view body(reinterpret_cast<const char*>(data + 2), size - 2);
  rl::TraceOptions o;
  o.path = tracePath();
  std::string formatText;
  switch (mode % 6) {
    case 0: formatText = "combined"; break;
    case 1: formatText = "common"; break;
    case 2: {
      const auto nl = body.find('\n');
      formatText = "nginx:" + std::string(body.substr(0, nl));
      body = nl == std::string_view::npos ? std::string_view{} : body.substr(nl + 1);
      break;
    }
    case 3: formatText = "jsonl"; break;
    case 4: formatText = "csv"; break;
    default: formatText = "auto"; break;
  }
  auto format = rl::parseTraceFormat(formatText);
  if (!format) return 0;
  o.format = *format;
  const char* keys[] = {"addr", "header:x-api-key", "field:user", "field:remote_user"};
  auto key = rl::parseTraceKey(keys[flags & 3]);
  if (!key) __builtin_trap();  // fixed, valid texts
  o.key = *key;
  const char* times[] = {"time", "ts:ms", "t:us", "time:s"};
  if (!rl::parseTraceTime(times[(flags >> 2) & 3], o)) __builtin_trap();
  o.burst = (flags & 16) != 0;
  o.strict = (flags & 32) != 0;
  if (flags & 64) o.filter = (flags & 128) ? "path=/api*" : "^GET /x";
  if ((mode & 0x80) == 0) {  // each line through the format's parser, in memory
    if (o.format.kind == rl::TraceFormatKind::Auto) return 0;
    auto parser = rl::makeLineParser(o.format, o);
    if (!parser) return 0;
    rl::ParsedLine line;
    std::string why;
    while (!body.empty()) {
      const auto nl = body.find('\n');
      (void)(*parser)->parse(body.substr(0, nl), line, why);
      if (nl == std::string_view::npos) break;
      body.remove_prefix(nl + 1);
    }
    return 0;
  }
  if (!writeFile(body)) return 0;
  auto trace = rl::loadTrace(o);
  if (!trace) return 0;
  (void)trace->summary();
  std::int64_t last = INT64_MIN;
  for (const rl::TraceRequest& r : trace->requests) {
    if (r.timeUs < last || r.client >= trace->keys.size() || r.cost < 1) __builtin_trap();
    last = r.timeUs;
  }
  return 0;
}
