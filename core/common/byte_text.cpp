#include "common/byte_text.hpp"

#include <cstdio>

namespace rl {

std::string bytesText(std::int64_t b) {
  char t[32];
  if (b < 10'000) std::snprintf(t, sizeof t, "%lld B", static_cast<long long>(b));
  else if (b < 10'000'000) std::snprintf(t, sizeof t, "%.1f KiB", static_cast<double>(b) / 1024);
  else std::snprintf(t, sizeof t, "%.1f MiB", static_cast<double>(b) / 1048576);
  return t;
}

}  // namespace rl
