#include "trace/log_time.hpp"

#include <array>
#include <charconv>

namespace rl {

namespace {

constexpr std::int64_t kUsPerSecond = 1'000'000;

bool digits(std::string_view s, std::size_t at, std::size_t n, unsigned& out) {
  if (at + n > s.size()) return false;
  unsigned v = 0;
  for (std::size_t i = at; i < at + n; ++i) {
    const char c = s[i];
    if (c < '0' || c > '9') return false;
    v = v * 10 + static_cast<unsigned>(c - '0');
  }
  out = v;
  return true;
}

std::optional<unsigned> monthFromName(std::string_view m) {
  static constexpr std::array<std::string_view, 12> kNames = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                              "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  for (unsigned i = 0; i < 12; ++i)
    if (kNames[i] == m) return i + 1;
  return std::nullopt;
}

bool validClock(unsigned mo, unsigned d, unsigned h, unsigned mi, unsigned sec) {
  return mo >= 1 && mo <= 12 && d >= 1 && d <= 31 && h <= 23 && mi <= 59 && sec <= 60;
}

std::int64_t toUs(std::int64_t days, unsigned h, unsigned mi, unsigned sec, std::int64_t offsetSec) {
  return ((days * 86400 + h * 3600 + mi * 60 + sec) - offsetSec) * kUsPerSecond;
}

// "+hhmm", "-hh:mm" or "Z" at s[at..]: the offset in seconds (local = UTC + offset).
std::optional<std::int64_t> zoneOffset(std::string_view s, std::size_t at) {
  if (at == s.size()) return std::nullopt;
  if (s[at] == 'Z' && at + 1 == s.size()) return 0;
  if (s[at] != '+' && s[at] != '-') return std::nullopt;
  unsigned hh = 0, mm = 0;
  const bool colon = at + 3 < s.size() && s[at + 3] == ':';
  if (!digits(s, at + 1, 2, hh) || !digits(s, at + (colon ? 4 : 3), 2, mm)) return std::nullopt;
  if (at + (colon ? 6 : 5) != s.size() || hh > 23 || mm > 59) return std::nullopt;
  const std::int64_t off = hh * 3600 + mm * 60;
  return s[at] == '-' ? -off : off;
}

}  // namespace

std::int64_t daysFromCivil(std::int64_t y, unsigned m, unsigned d) {
  // Era-based day count (proleptic Gregorian): years start in March so leap days come last.
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

std::optional<std::int64_t> parseTimeLocal(std::string_view s) {
  // 10/Oct/2000:13:55:36 -0700
  unsigned d = 0, y = 0, h = 0, mi = 0, sec = 0;
  if (s.size() != 26 || s[2] != '/' || s[6] != '/' || s[11] != ':' || s[14] != ':' || s[17] != ':' || s[20] != ' ')
    return std::nullopt;
  const auto mo = monthFromName(s.substr(3, 3));
  if (!mo || !digits(s, 0, 2, d) || !digits(s, 7, 4, y) || !digits(s, 12, 2, h) || !digits(s, 15, 2, mi) ||
      !digits(s, 18, 2, sec) || !validClock(*mo, d, h, mi, sec))
    return std::nullopt;
  const auto off = zoneOffset(s, 21);
  if (!off) return std::nullopt;
  return toUs(daysFromCivil(y, *mo, d), h, mi, sec, *off);
}

std::optional<IsoTime> parseIso8601(std::string_view s) {
  // 2000-10-10T13:55:36[.ffffff](Z|+hh:mm|+hhmm)
  unsigned y = 0, mo = 0, d = 0, h = 0, mi = 0, sec = 0;
  if (s.size() < 20 || s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != ' ') || s[13] != ':' || s[16] != ':')
    return std::nullopt;
  if (!digits(s, 0, 4, y) || !digits(s, 5, 2, mo) || !digits(s, 8, 2, d) || !digits(s, 11, 2, h) ||
      !digits(s, 14, 2, mi) || !digits(s, 17, 2, sec) || !validClock(mo, d, h, mi, sec))
    return std::nullopt;
  std::size_t at = 19;
  IsoTime out;
  std::int64_t fracUs = 0;
  if (s[at] == '.') {
    std::int64_t scale = 100'000;
    std::size_t n = 0;
    for (++at; at < s.size() && s[at] >= '0' && s[at] <= '9'; ++at, ++n) {
      fracUs += (s[at] - '0') * scale;
      scale /= 10;
    }
    if (n == 0 || n > 9) return std::nullopt;
    out.fraction = true;
  }
  const auto off = zoneOffset(s, at);
  if (!off) return std::nullopt;
  out.us = toUs(daysFromCivil(y, mo, d), h, mi, sec, *off) + fracUs;
  return out;
}

std::optional<std::int64_t> parseDecimalTime(std::string_view s, std::int64_t unitUs) {
  const auto dot = s.find('.');
  const std::string_view whole = s.substr(0, dot);
  std::int64_t w = 0;
  auto [p, ec] = std::from_chars(whole.data(), whole.data() + whole.size(), w);
  if (whole.empty() || ec != std::errc{} || p != whole.data() + whole.size() || w < 0) return std::nullopt;
  if (w > kMaxTraceTimeUs / unitUs) return std::nullopt;
  const std::int64_t us = w * unitUs;  // <= 2^52: the fraction (< one unit) cannot wrap it
  if (dot == std::string_view::npos) return us;
  const std::string_view frac = s.substr(dot + 1);
  if (frac.empty() || frac.size() > 9) return std::nullopt;
  // The fraction in nanoseconds of one unit, then scaled: exact for $msec's 3 digits.
  std::int64_t nanos = 0, scale = 100'000'000;
  for (char c : frac) {
    if (c < '0' || c > '9') return std::nullopt;
    nanos += (c - '0') * scale;
    scale /= 10;
  }
  const std::int64_t total = us + nanos * unitUs / 1'000'000'000;
  if (total > kMaxTraceTimeUs) return std::nullopt;
  return total;
}

}  // namespace rl
