// libFuzzer: the Redis URL parser and the password helpers (core/redis/redis_url).
// Any text: never a crash; a parsed password never appears in the redacted URL
// nor in toString().
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "redis/redis_url.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view url(reinterpret_cast<const char*>(data), size);
  const std::string redacted = rl::redactRedisUrl(url);
  const std::string saved = rl::withoutPassword(url);
  (void)rl::percentDecode(url);
  auto ep = rl::parseRedisUrl(url);
  if (ep) {
    (void)ep->toString();
    (void)ep->address();
    const std::string& pw = ep->password;
    // The password as it stood in the URL must be gone from the redacted form and from toString().
    if (!pw.empty() && (redacted.find(":" + pw + "@") != std::string::npos ||
                        ep->toString().find(":" + pw + "@") != std::string::npos))
      __builtin_trap();
  }
  return 0;
}
