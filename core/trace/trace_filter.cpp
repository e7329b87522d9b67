#include "trace/trace_filter.hpp"

namespace rl {

Result<TraceFilter> TraceFilter::compile(std::string_view text, bool hasRequest) {
  TraceFilter f;
  if (text.empty()) return f;
  if (!hasRequest)
    return invalidArgument("--trace-filter: this trace format has no request line or path (csv, or a log_format "
                           "without $request / $request_uri): allowed only without --trace-filter");
  if (text.rfind("path=", 0) == 0) {
    f.path_ = std::string(text.substr(5));
    f.kind_ = Kind::Path;
    if (!f.path_.empty() && f.path_.back() == '*') {
      f.path_.pop_back();
      f.kind_ = Kind::PathPrefix;
    }
    if (f.path_.empty() || f.path_.front() != '/')
      return invalidArgument("--trace-filter: '" + std::string(text) +
                             "' is not valid: allowed path=/exact, path=/prefix* or a regex on the request line");
    return f;
  }
  try {
    f.regex_ = std::make_shared<const std::regex>(std::string(text), std::regex::ECMAScript | std::regex::optimize);
  } catch (const std::regex_error& e) {
    return invalidArgument("--trace-filter: '" + std::string(text) + "' is not a valid regex (" + e.what() +
                           "): allowed path=/exact, path=/prefix* or an ECMAScript regex");
  }
  f.kind_ = Kind::Regex;
  return f;
}

bool TraceFilter::keep(const ParsedLine& line) const {
  switch (kind_) {
    case Kind::All: return true;
    case Kind::Path: return line.path == path_;
    case Kind::PathPrefix: return line.path.substr(0, path_.size()) == path_;
    case Kind::Regex: return std::regex_search(line.request.begin(), line.request.end(), *regex_);
  }
  return true;
}

}  // namespace rl
