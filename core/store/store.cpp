#include "store/store.hpp"

namespace rl {

std::string limiterKey(std::string_view prefix, Algorithm a, std::string_view client) {
  std::string key;
  const auto name = algorithmName(a);
  key.reserve(prefix.size() + name.size() + client.size() + 3);
  key.append(prefix).append("{").append(name).append(":").append(client).append("}");
  return key;
}

}  // namespace rl
