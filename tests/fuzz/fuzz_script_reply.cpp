// libFuzzer: a team's limiter script's reply (core/redis/script_reply). The first
// line is the --script-reply names ("allowed,remaining,retry_after_ms"), the rest
// the server's reply bytes, read by hiredis's own reader. Never a crash, a leak or
// undefined behaviour (ASan, UBSan); a decision read has its durations in range.
// The shapes themselves are asserted by tests/core/redis/test_script_store.
#include <hiredis/hiredis.h>

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "hiredis_input.hpp"
#include "redis/script_reply.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view all(reinterpret_cast<const char*>(data), size);
  const auto newline = all.find('\n');
  if (newline == std::string_view::npos) return 0;
  auto shape = rl::ScriptReply::parse(all.substr(0, newline));
  const std::string_view bytes = all.substr(newline + 1);
  if (!shape || !rl::fuzz::declaresAtMostItsSize(bytes)) return 0;
  redisReader* reader = redisReaderCreate();
  if (redisReaderFeed(reader, bytes.data(), bytes.size()) == REDIS_OK) {
    void* reply = nullptr;
    if (redisReaderGetReply(reader, &reply) == REDIS_OK && reply != nullptr) {
      rl::RedisReply owned(static_cast<redisReply*>(reply));
      const auto d = shape->read(owned, rl::Quota::perSecond(10), "fuzz.lua");
      constexpr std::int64_t kLargest = std::int64_t{1} << 52;
      if (d && (d->retryAfter.count() > kLargest || d->retryAfter.count() < -kLargest)) __builtin_trap();
    }
  }
  redisReaderFree(reader);
  return 0;
}
