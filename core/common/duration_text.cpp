#include "common/duration_text.hpp"

#include <cstdio>

namespace rl {

namespace {
// "<big> <bigUnit> <small> <smallUnit>" with `small` rounded; "<big> <bigUnit>" when it is 0.
std::string twoUnits(std::int64_t ms, std::int64_t bigMs, const char* bigUnit, std::int64_t smallMs, const char* smallUnit) {
  const std::int64_t smalls = (ms + smallMs / 2) / smallMs;  // rounded to the small unit
  const std::int64_t perBig = bigMs / smallMs;
  const std::int64_t big = smalls / perBig, small = smalls % perBig;
  char buf[64];
  if (small == 0) std::snprintf(buf, sizeof buf, "%lld %s", static_cast<long long>(big), bigUnit);
  else std::snprintf(buf, sizeof buf, "%lld %s %lld %s", static_cast<long long>(big), bigUnit, static_cast<long long>(small), smallUnit);
  return buf;
}
}  // namespace

std::string durationText(std::int64_t ms) {
  constexpr std::int64_t kS = 1000, kMin = 60 * kS, kH = 60 * kMin, kD = 24 * kH;
  if (ms < 0) ms = 0;
  char buf[48];
  if (ms < kS) {
    std::snprintf(buf, sizeof buf, "%lld ms", static_cast<long long>(ms));
    return buf;
  }
  if (ms < kMin - 50) {  // 59.95 s and above print as 1 min
    std::snprintf(buf, sizeof buf, "%.1f s", static_cast<double>(ms) / 1000.0);
    return buf;
  }
  if (ms < kH - kS / 2) return twoUnits(ms, kMin, "min", kS, "s");
  if (ms < kD - kMin / 2) return twoUnits(ms, kH, "h", kMin, "min");
  return twoUnits(ms, kD, "d", kH, "h");
}

}  // namespace rl
