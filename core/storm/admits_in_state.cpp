#include "storm/admits_in_state.hpp"

#include "keys/value_codec.hpp"

namespace rl {

namespace {
// `s` with KEYS' glob characters escaped.
std::string globLiteral(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  return out;
}
}  // namespace

std::string whyNotCountable(Algorithm a) {
  switch (a) {
    case Algorithm::SlidingLog:
    case Algorithm::FixedWindow:
    case Algorithm::SlidingCounter: return {};
    case Algorithm::TokenBucket: return "its state is the time the bucket is full again, which refills with time";
    case Algorithm::LeakyBucket: return "its state is the time the queue is drained, which drains with time";
    case Algorithm::Gcra: return "its state is the theoretical arrival time, which moves back with time";
  }
  return "unknown algorithm";
}

Result<std::int64_t> admitsInState(RedisConnection& conn, Algorithm a, const std::string& base) {
  if (!whyNotCountable(a).empty())
    return invalidArgument(std::string(algorithmName(a)) + " cannot be counted: " + whyNotCountable(a));
  if (a == Algorithm::SlidingLog) {
    auto log = conn.command({"GET", base});
    if (!log) return log.error();
    if (log->isNil()) return std::int64_t{0};
    auto entries = decodeSlidingLog(log->str());
    if (!entries) return entries.error();
    return static_cast<std::int64_t>(entries->size());
  }
  auto keys = conn.command({"KEYS", globLiteral(base) + ":*"});
  if (!keys) return keys.error();
  std::int64_t sum = 0;
  for (std::size_t i = 0; i < keys->size(); ++i) {
    auto v = conn.command({"GET", (*keys)[i].str()});
    if (!v) return v.error();
    if (v->isNil()) continue;  // expired between KEYS and GET
    if (!v->toInt()) return protocolError("window key " + std::string((*keys)[i].str()) + " holds " + v->describe());
    sum += *v->toInt();
  }
  return sum;
}

}  // namespace rl
