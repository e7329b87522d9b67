// libFuzzer: the one limit-header codec (core/http/limit_headers), every dialect
// it reads (draft-8 RateLimit/RateLimit-Policy, draft-6, X-RateLimit-*, GitHub's,
// Retry-After as seconds and as an HTTP-date, nginx's status, Envoy's). Any
// bytes as "Name: value" lines: never a crash, a leak or undefined behaviour
// (ASan, UBSan), and what it reads stays inside its own bounds. The values
// themselves are asserted by tests/core/http/test_limit_headers.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "http/limit_headers.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::int64_t now = 1'700'000'000;  // the first 8 bytes, when there are more, pick "now"
  std::string_view text(reinterpret_cast<const char*>(data), size);
  if (size > 8) {
    std::memcpy(&now, data, sizeof now);
    text.remove_prefix(8);
  }
  rl::HttpHeaders headers;
  while (!text.empty() && headers.size() < 64) {
    const auto end = text.find('\n');
    const std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view{} : text.substr(end + 1);
    const auto colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string_view value = line.substr(colon + 1);
    while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
    headers.push_back({std::string(line.substr(0, colon)), std::string(value)});
  }
  const rl::LimitHeaders read = rl::readLimitHeaders(headers, now);
  // Durations come back saturated, never negative beyond the "absent" -1.
  if (read.resetMs < -1 || read.retryAfterMs < -1) __builtin_trap();
  (void)rl::limitDialectName(read.dialect);
  (void)rl::resetUnitName(read.resetUnit);
  return 0;
}
