#include "store/backend.hpp"

#include "common/enum_names.hpp"

namespace rl {
namespace {
constexpr EnumNames<Backend, 6> kBackends{{{Backend::Memory, "memory"},
                                           {Backend::RedisLua, "redis-lua"},
                                           {Backend::RedisNaive, "redis-naive"},
                                           {Backend::RedisWatch, "redis-watch"},
                                           {Backend::RedisScript, "redis-script"},
                                           {Backend::Http, "http"}}};
}  // namespace

std::string_view backendName(Backend b) { return enumName(kBackends, b); }
std::optional<Backend> parseBackend(std::string_view s) { return enumFromName(kBackends, s); }
std::string backendChoices() { return enumChoices(kBackends); }
bool isRedisBackend(Backend b) {
  return b == Backend::RedisLua || b == Backend::RedisNaive || b == Backend::RedisWatch || b == Backend::RedisScript;
}

}  // namespace rl
