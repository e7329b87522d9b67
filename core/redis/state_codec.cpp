#include "redis/state_codec.hpp"

#include "keys/value_codec.hpp"

#include <algorithm>
#include <string_view>

namespace rl::detail {

bool keysNeedTime(Algorithm a) {
  return a == Algorithm::FixedWindow || a == Algorithm::SlidingCounter;
}

std::int64_t windowStart(std::int64_t now, const Quota& q) {
  const std::int64_t w = q.window.count();
  return floorDiv(now, w) * w;
}

std::vector<std::string> keysAt(Algorithm a, const std::string& base, std::int64_t now, const Quota& q) {
  if (a == Algorithm::FixedWindow) return {base + ":" + std::to_string(windowStart(now, q))};
  if (a == Algorithm::SlidingCounter) {
    const std::int64_t s = windowStart(now, q);
    return {base + ":" + std::to_string(s), base + ":" + std::to_string(s - q.window.count())};
  }
  return {base};
}

namespace {
Result<std::int64_t> timeOf(ReplyView r) {
  if (r.size() != 2) return protocolError("TIME returned " + r.describe());
  auto s = r[0].toInt();
  auto us = r[1].toInt();
  if (!s || !us) return protocolError("TIME returned non-numbers");
  return *s * 1'000'000 + *us;
}

Result<std::int64_t> intOr(ReplyView r, std::int64_t fallback, std::string_view what) {
  if (r.isNil()) return fallback;
  if (auto v = r.toInt()) return *v;
  return protocolError(std::string(what) + " is not an integer: " + r.describe());
}

void appendRead(std::vector<std::vector<std::string>>& cmds, Algorithm a,
                const std::vector<std::string>& keys) {
  switch (a) {
    case Algorithm::SlidingCounter:
      cmds.push_back({"GET", keys[0]});
      cmds.push_back({"GET", keys[1]});
      break;
    default: cmds.push_back({"GET", keys[0]}); break;  // every other state is one string
  }
}

// Decodes the replies of appendRead (starting at `r[i]`).
Result<LimiterState> decode(Algorithm a, std::span<const RedisReply> r, std::int64_t now, const Quota& q) {
  switch (a) {
    case Algorithm::FixedWindow: {
      auto c = intOr(r[0], 0, "fixed_window count");
      if (!c) return c.error();
      return LimiterState{FixedWindowState{windowStart(now, q), *c}};
    }
    case Algorithm::SlidingCounter: {
      auto curr = intOr(r[0], 0, "sliding_counter count");
      auto prev = intOr(r[1], 0, "sliding_counter count");
      if (!curr || !prev) return (!curr ? curr : prev).error();
      return LimiterState{SlidingCounterState{windowStart(now, q), *prev, *curr}};
    }
    case Algorithm::SlidingLog: {
      if (r[0].isNil()) return LimiterState{SlidingLogState{}};
      auto log = decodeSlidingLog(r[0].str());
      if (!log) return log.error();
      return LimiterState{SlidingLogState{std::move(log).value()}};
    }
    case Algorithm::TokenBucket:
    case Algorithm::LeakyBucket: {
      if (r[0].isNil()) return freshState(a);
      const bool tb = a == Algorithm::TokenBucket;
      auto v = decodeBucketValue(r[0].str(), tb ? "token_bucket" : "leaky_bucket");
      if (!v) return v.error();
      if (tb) return LimiterState{TokenBucketState{v->time, v->interval, v->limit}};
      return LimiterState{LeakyBucketState{false, v->time, v->interval}};
    }
    case Algorithm::Gcra: {
      if (r[0].isNil()) return freshState(a);
      auto t = intOr(r[0], 0, "theoretical arrival time");
      if (!t) return t.error();
      return LimiterState{GcraState{false, *t}};
    }
  }
  return Error{ErrorCode::Internal, "unknown algorithm"};
}
}  // namespace

Result<std::vector<RedisReply>> runPipeline(RedisConnection& conn,
                                            const std::vector<std::vector<std::string>>& commands) {
  for (const auto& c : commands) {
    std::vector<std::string_view> v(c.begin(), c.end());
    if (auto ok = conn.append(std::span<const std::string_view>(v)); !ok) return ok.error();
  }
  std::vector<RedisReply> replies;
  replies.reserve(commands.size());
  std::optional<Error> firstError;
  for (std::size_t i = 0; i < commands.size(); ++i) {
    auto r = conn.getReply();
    if (!r) return r.error();
    if (r->isError() && !firstError)
      firstError = redisReplyError(r->str(), commands[i][0]);
    replies.push_back(std::move(r).value());
  }
  if (firstError) return *firstError;
  return replies;
}

Result<ReadState> readState(RedisConnection& conn, const std::string& base,
                            const DecisionRequest& request, bool serverClock, bool watch) {
  ReadState out;
  out.now = request.now.count();
  const Algorithm a = request.algorithm;
  bool timeInPipeline = serverClock;
  if (serverClock && keysNeedTime(a)) {  // the window key depends on the time: read it first
    auto t = conn.command({"TIME"});
    if (!t) return t.error();
    auto now = timeOf(*t);
    if (!now) return now.error();
    out.now = *now;
    timeInPipeline = false;
  }
  out.keys = keysAt(a, base, out.now, request.quota);
  std::vector<std::vector<std::string>> cmds;
  if (watch) {
    cmds.push_back({"WATCH"});
    cmds.back().insert(cmds.back().end(), out.keys.begin(), out.keys.end());
  }
  if (timeInPipeline) cmds.push_back({"TIME"});
  const std::size_t first = cmds.size();
  appendRead(cmds, a, out.keys);
  auto replies = runPipeline(conn, cmds);
  if (!replies) return replies.error();
  if (timeInPipeline) {
    auto now = timeOf((*replies)[first - 1]);
    if (!now) return now.error();
    out.now = *now;
  }
  auto state = decode(a, std::span<const RedisReply>(*replies).subspan(first), out.now, request.quota);
  if (!state) return state.error();
  out.state = std::move(state).value();
  return out;
}

std::vector<std::vector<std::string>> writeCommands(Algorithm a, const ReadState& read,
                                                    const LimiterState& state, Micros ttl) {
  const std::string px = std::to_string(ceilMillis(ttl));
  const std::string& key = read.keys[0];
  switch (a) {
    case Algorithm::FixedWindow:
      return {{"SET", key, std::to_string(std::get<FixedWindowState>(state).count), "PX", px}};
    case Algorithm::SlidingCounter:
      return {{"SET", key, std::to_string(std::get<SlidingCounterState>(state).current), "PX", px}};
    case Algorithm::Gcra:
      return {{"SET", key, std::to_string(std::get<GcraState>(state).tat), "PX", px}};
    case Algorithm::LeakyBucket: {
      const auto& lb = std::get<LeakyBucketState>(state);
      return {{"SET", key, encodeBucketValue({lb.drainAt, lb.interval, 0}), "PX", px}};
    }
    case Algorithm::TokenBucket: {
      const auto& tb = std::get<TokenBucketState>(state);
      return {{"SET", key, encodeBucketValue({tb.fullAt, tb.interval, tb.limit}), "PX", px}};
    }
    case Algorithm::SlidingLog: {
      const auto& e = std::get<SlidingLogState>(state).entries;
      return {{"SET", key, encodeSlidingLog(e), "PX", px}};
    }
  }
  return {};
}

}  // namespace rl::detail
