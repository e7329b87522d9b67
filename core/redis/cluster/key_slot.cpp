#include "redis/cluster/key_slot.hpp"

#include <array>

#include "store/store.hpp"

namespace rl {

namespace {
constexpr std::array<std::uint16_t, 256> makeTable() {
  std::array<std::uint16_t, 256> t{};
  for (unsigned i = 0; i < 256; ++i) {
    std::uint16_t c = static_cast<std::uint16_t>(i << 8);
    for (int b = 0; b < 8; ++b) c = static_cast<std::uint16_t>((c & 0x8000) ? (c << 1) ^ 0x1021 : (c << 1));
    t[i] = c;
  }
  return t;
}
constexpr auto kTable = makeTable();
}  // namespace

std::uint16_t crc16(std::string_view data) {
  std::uint16_t crc = 0;
  for (unsigned char ch : data)
    crc = static_cast<std::uint16_t>((crc << 8) ^ kTable[((crc >> 8) ^ ch) & 0xff]);
  return crc;
}

std::string_view hashTag(std::string_view key) {
  const auto open = key.find('{');
  if (open == std::string_view::npos) return key;
  const auto close = key.find('}', open + 1);
  if (close == std::string_view::npos || close == open + 1) return key;
  return key.substr(open + 1, close - open - 1);
}

int keySlot(std::string_view key) { return crc16(hashTag(key)) & (kClusterSlots - 1); }

Result<std::string> clusterLimiterKey(std::string_view prefix, Algorithm a, std::string_view client) {
  std::string base = limiterKey(prefix, a, client);
  // The scripts derive `<base>:<window start>` keys: they must share the base's tag.
  const std::string_view tag = hashTag(base);
  if (tag.size() == base.size() || hashTag(base + ":0") != tag)
    return invalidArgument("keys of client '" + std::string(client) + "' with prefix '" + std::string(prefix) +
                           "' would not share one Redis Cluster slot (the first {...} of '" + base +
                           "' must be a non-empty hash tag): use a prefix without '{' or '}'");
  return base;
}

}  // namespace rl
