#include "trace/trace_filter.hpp"

#include <re2/re2.h>

namespace rl {

namespace {
const char* kAllowed = "allowed path=/exact, path=/prefix* or an RE2 regex on the request line";
}

Result<TraceFilter> TraceFilter::compile(std::string_view text, bool hasRequest) {
  TraceFilter f;
  if (text.empty()) return f;
  if (!hasRequest)
    return invalidArgument("--trace-filter: this trace format has no request line or path (csv, or a log_format "
                           "without $request / $request_uri): allowed only without --trace-filter");
  if (text.size() > kMaxPatternBytes)
    return invalidArgument("--trace-filter: " + std::to_string(text.size()) + " bytes is too long: " + kAllowed +
                           " of at most " + std::to_string(kMaxPatternBytes) + " bytes");
  if (text.rfind("path=", 0) == 0) {
    f.path_ = std::string(text.substr(5));
    f.kind_ = Kind::Path;
    if (!f.path_.empty() && f.path_.back() == '*') {
      f.path_.pop_back();
      f.kind_ = Kind::PathPrefix;
    }
    if (f.path_.empty() || f.path_.front() != '/')
      return invalidArgument("--trace-filter: '" + std::string(text) + "' is not valid: " + kAllowed);
    return f;
  }
  RE2::Options options;
  options.set_log_errors(false);
  options.set_max_mem(kMaxProgramMemory);
  auto re = std::make_shared<const RE2>(re2::StringPiece(text.data(), text.size()), options);
  if (!re->ok())
    return invalidArgument("--trace-filter: '" + std::string(text) + "' is not a valid regex (" + re->error() +
                           "): " + kAllowed + " (RE2 syntax: no backreferences or lookaround)");
  f.regex_ = std::move(re);
  f.kind_ = Kind::Regex;
  return f;
}

bool TraceFilter::keep(const ParsedLine& line) const {
  switch (kind_) {
    case Kind::All: return true;
    case Kind::Path: return line.path == path_;
    case Kind::PathPrefix: return line.path.substr(0, path_.size()) == path_;
    case Kind::Regex:
      return RE2::PartialMatch(re2::StringPiece(line.request.data(), line.request.size()), *regex_);
  }
  return true;
}

}  // namespace rl
