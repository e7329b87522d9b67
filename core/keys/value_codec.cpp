#include "keys/value_codec.hpp"

#include <charconv>
#include <cstdio>

namespace rl {

namespace {
bool parseDigits(std::string_view s, std::int64_t& out) {
  if (s.empty() || s.front() < '0' || s.front() > '9') return false;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc{} && end == s.data() + s.size();
}

std::string shown(std::string_view v) {
  return v.size() <= 60 ? std::string(v) : std::string(v.substr(0, 60)) + "...";
}
}  // namespace

std::string encodeSlidingLog(const std::deque<std::int64_t>& entries) {
  std::string out(entries.size() * kSlidingLogEntryBytes, ' ');
  char* p = out.data();
  for (std::int64_t e : entries) {
    std::snprintf(p, kSlidingLogEntryBytes + 1, "%016lld ", static_cast<long long>(e));
    p += kSlidingLogEntryBytes;
  }
  return out;
}

Result<std::deque<std::int64_t>> decodeSlidingLog(std::string_view value) {
  if (value.size() % kSlidingLogEntryBytes != 0)
    return protocolError("sliding_log value of " + std::to_string(value.size()) +
                         " bytes is not a list of 17-byte entries ('<16 digits> ')");
  std::deque<std::int64_t> out;
  for (std::size_t i = 0; i < value.size(); i += kSlidingLogEntryBytes) {
    std::int64_t ts = 0;
    if (value[i + 16] != ' ' || !parseDigits(value.substr(i, 16), ts))
      return protocolError("sliding_log entry '" + shown(value.substr(i, kSlidingLogEntryBytes)) +
                           "' is not 16 digits and a space");
    out.push_back(ts);
  }
  return out;
}

std::string encodeBucketValue(const BucketValue& v) {
  std::string out = std::to_string(v.time) + ":" + std::to_string(v.interval);
  if (v.limit > 0) out += ":" + std::to_string(v.limit);
  return out;
}

Result<BucketValue> decodeBucketValue(std::string_view value, std::string_view what) {
  BucketValue out;
  std::int64_t* fields[] = {&out.time, &out.interval, &out.limit};
  std::size_t n = 0;
  std::string_view rest = value;
  bool ok = true;
  while (ok) {
    const auto colon = rest.find(':');
    ok = n < 3 && parseDigits(rest.substr(0, colon), *fields[n++]);
    if (colon == std::string_view::npos) break;
    rest.remove_prefix(colon + 1);
  }
  if (!ok || (n > 1 && out.interval <= 0))
    return protocolError(std::string(what) + " value '" + shown(value) +
                         "' is not '<time us>[:<interval us>[:<limit>]]'");
  return out;
}

}  // namespace rl
