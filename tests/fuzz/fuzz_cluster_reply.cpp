// libFuzzer: any bytes as a cluster node's answer. Read by hiredis's own reply
// reader; an array goes to the CLUSTER SLOTS reader (core/redis/cluster/slot_map),
// the bytes as text to the MOVED/ASK reader (cluster_router). Never a crash, a
// leak or undefined behaviour (ASan, UBSan); the bounds themselves are asserted by
// tests/core/redis/test_cluster_replies.
#include <hiredis/hiredis.h>

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "redis/cluster/cluster_router.hpp"
#include "redis/cluster/slot_map.hpp"

namespace {
// hiredis 0.14 allocates an array's element table when it reads the header
// ("*961639383" asks calloc for 7.7 GB of address space; Linux gives untouched
// zero pages, the reader then waits for elements that never come, and a
// connection's command timeout ends it). That is hiredis's, not ours: inputs
// declaring more elements than they have bytes are left out.
bool declaresAtMostItsSize(std::string_view text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '*' || (i > 0 && text[i - 1] != '\n')) continue;
    std::size_t n = 0, j = i + 1;
    for (; j < text.size() && text[j] >= '0' && text[j] <= '9' && n <= text.size(); ++j) n = n * 10 + (text[j] - '0');
    if (n > text.size()) return false;
  }
  return true;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)rl::parseClusterRedirect(text);
  if (!declaresAtMostItsSize(text)) return 0;
  redisReader* reader = redisReaderCreate();
  if (redisReaderFeed(reader, text.data(), text.size()) == REDIS_OK) {
    void* reply = nullptr;
    if (redisReaderGetReply(reader, &reply) == REDIS_OK && reply != nullptr) {
      rl::RedisReply owned(static_cast<redisReply*>(reply));
      (void)rl::SlotMap::fromClusterSlots(owned);
    }
  }
  redisReaderFree(reader);
  return 0;
}
