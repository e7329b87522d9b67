#include "redis/redis_link.hpp"

namespace rl {

Result<RedisLink> RedisLink::connect(const RedisEndpoint& endpoint) {
  RedisLink link;
  if (endpoint.cluster) {
    auto r = ClusterRouter::connect(endpoint);
    if (!r) return r.error();
    link.router_ = std::move(r).value();
  } else {
    auto c = RedisConnection::connect(endpoint);
    if (!c) return c.error();
    link.conn_.emplace(std::move(c).value());
  }
  return link;
}

}  // namespace rl
