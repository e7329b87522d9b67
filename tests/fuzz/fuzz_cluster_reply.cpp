// libFuzzer: any bytes as a cluster node's answer. Read by hiredis's own reply
// reader; an array goes to the CLUSTER SLOTS reader (core/redis/cluster/slot_map),
// the bytes as text to the MOVED/ASK reader (cluster_router). Never a crash, a
// leak or undefined behaviour (ASan, UBSan); the bounds themselves are asserted by
// tests/core/redis/test_cluster_replies.
#include <hiredis/hiredis.h>

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "hiredis_input.hpp"
#include "redis/cluster/cluster_router.hpp"
#include "redis/cluster/slot_map.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)rl::parseClusterRedirect(text);
  if (!rl::fuzz::declaresAtMostItsSize(text)) return 0;
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
