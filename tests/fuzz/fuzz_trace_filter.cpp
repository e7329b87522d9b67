// libFuzzer: --trace-filter (core/trace/trace_filter). Any pattern on any
// request line: compiles or is refused with a --trace-filter error, and a
// compiled filter answers in bounded time (RE2: linear; -timeout catches a
// regression to a backtracking engine). Input: the pattern up to the first
// NUL byte, then the request line.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "trace/line_parser.hpp"
#include "trace/trace_filter.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  const auto nul = in.find('\0');
  const std::string_view pattern = in.substr(0, nul);
  const std::string_view request = nul == std::string_view::npos ? std::string_view() : in.substr(nul + 1);
  auto filter = rl::TraceFilter::compile(pattern, true);
  if (!filter) {
    if (filter.error().message.rfind("--trace-filter:", 0) != 0) std::abort();
    return 0;
  }
  rl::ParsedLine line;
  line.request = request;
  line.path = rl::requestPath(request);
  (void)filter->keep(line);
  return 0;
}
