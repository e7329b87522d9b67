// libFuzzer: the Redis URL parser and the password helpers (core/redis/redis_url),
// and the same bytes as a Sentinel's reply (core/redis/sentinel/sentinel_discovery)
// and as a +switch-master announcement (sentinel_switches).
// Any text: never a crash, a leak or undefined behaviour (ASan, UBSan). Redaction
// itself is asserted by tests/core/redis/test_redis_connection (neverShowsPassword).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "redis/redis_url.hpp"
#include "redis/sentinel/sentinel_discovery.hpp"
#include "redis/sentinel/sentinel_switches.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view url(reinterpret_cast<const char*>(data), size);
  (void)rl::redactRedisUrl(url);
  (void)rl::withoutPassword(url);
  (void)rl::percentDecode(url);
  (void)rl::parseSentinelReply(url);
  (void)rl::parseSwitchAnnouncement(url);
  auto ep = rl::parseRedisUrl(url);
  if (ep) {
    (void)ep->toString();
    (void)ep->address();
  }
  return 0;
}
