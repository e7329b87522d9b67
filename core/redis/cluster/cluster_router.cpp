#include "redis/cluster/cluster_router.hpp"

#include <algorithm>
#include <charconv>

namespace rl {

namespace {
// The position of `word` at the start of `s` or right after a ": " prefix; npos otherwise.
std::size_t findWord(std::string_view s, std::string_view word) {
  if (s.starts_with(word)) return 0;
  const auto p = s.find(std::string(": ") + std::string(word));
  return p == std::string_view::npos ? p : p + 2;
}

// "<slot> <host>:<port>" after MOVED / ASK.
bool parseTarget(std::string_view rest, ClusterRedirect& r) {
  const auto space = rest.find(' ');
  if (space == std::string_view::npos) return false;
  const auto slot = rest.substr(0, space);
  auto addr = rest.substr(space + 1);
  if (auto end = addr.find_first_of(" \r\n"); end != std::string_view::npos) addr = addr.substr(0, end);
  const auto colon = addr.rfind(':');
  if (colon == std::string_view::npos) return false;
  auto host = addr.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  const auto port = addr.substr(colon + 1);
  if (std::from_chars(slot.data(), slot.data() + slot.size(), r.slot).ec != std::errc{} ||
      std::from_chars(port.data(), port.data() + port.size(), r.port).ec != std::errc{})
    return false;
  r.host = host.empty() ? "127.0.0.1" : std::string(host);  // an empty host means "the one you asked"
  return r.slot >= 0 && r.slot < kClusterSlots && r.port > 0 && r.port <= 65535;
}
}  // namespace

ClusterRedirect parseClusterRedirect(std::string_view message) {
  ClusterRedirect r;
  if (auto p = findWord(message, "MOVED "); p != std::string_view::npos) {
    if (parseTarget(message.substr(p + 6), r)) r.kind = ClusterRedirect::Moved;
  } else if (auto q = findWord(message, "ASK "); q != std::string_view::npos) {
    if (parseTarget(message.substr(q + 4), r)) r.kind = ClusterRedirect::Ask;
  } else if (findWord(message, "TRYAGAIN") != std::string_view::npos) {
    r.kind = ClusterRedirect::TryAgain;
  } else if (findWord(message, "CLUSTERDOWN") != std::string_view::npos) {
    r.kind = ClusterRedirect::Down;
  }
  return r;
}

Result<std::unique_ptr<ClusterRouter>> ClusterRouter::connect(const RedisEndpoint& endpoint) {
  if (!endpoint.cluster) return invalidArgument("ClusterRouter needs a redis+cluster:// endpoint");
  auto map = fetchSlotMap(endpoint);
  if (!map) return map.error();
  std::unique_ptr<ClusterRouter> r(new ClusterRouter(endpoint, std::move(map).value()));
  r->lastRefresh_ = std::chrono::steady_clock::now();
  return r;
}

Result<RedisConnection*> ClusterRouter::connectionTo(const std::string& host, int port, std::string_view namedBy) {
  const std::string key = host + ":" + std::to_string(port);
  if (auto it = conns_.find(key); it != conns_.end()) return &it->second;
  if (auto ok = trust_.admit(host, port, namedBy); !ok) return ok.error();
  auto c = RedisConnection::connect(endpoint_.node(host, port));
  if (!c) return c.error();
  return &conns_.emplace(key, std::move(c).value()).first->second;
}

Result<RedisConnection*> ClusterRouter::connectionForSlot(int slot) {
  const int m = map_.masterOf(slot);
  if (m < 0) {
    (void)refreshAfterFailure(slot);
    if (map_.masterOf(slot) < 0)
      return unavailable("slot " + std::to_string(slot) + " is served by no master of the cluster");
    return connectionForSlot(slot);
  }
  const ClusterNode& n = map_.masters()[static_cast<std::size_t>(m)];
  return connectionTo(n.host, n.port);
}

Result<RedisConnection*> ClusterRouter::master(int index) {
  if (index < 0 || static_cast<std::size_t>(index) >= map_.masters().size())
    return invalidArgument("master " + std::to_string(index) + " does not exist");
  const ClusterNode& n = map_.masters()[static_cast<std::size_t>(index)];
  return connectionTo(n.host, n.port);
}

Result<void> ClusterRouter::refresh() {
  // Ask the masters we know first (the failed one last), then their replicas, then the seeds.
  std::vector<RedisEndpoint> candidates;
  for (const auto& m : map_.masters()) candidates.push_back(endpoint_.node(m.host, m.port));
  for (std::size_t i = 0; i < map_.masters().size(); ++i)
    for (const auto& r : map_.replicasOf(static_cast<int>(i))) candidates.push_back(endpoint_.node(r.host, r.port));
  for (auto& s : clusterSeeds(endpoint_)) candidates.push_back(std::move(s));
  // A node that does not answer costs the connect timeout: try the ones we can reach fast first.
  std::stable_partition(candidates.begin(), candidates.end(), [&](const RedisEndpoint& e) {
    auto it = conns_.find(e.address());
    return it != conns_.end() && it->second.connected();
  });
  lastRefresh_ = std::chrono::steady_clock::now();
  ++refreshes_;
  auto map = fetchSlotMap(candidates, trust_);
  if (!map) return map.error();
  map_ = std::move(map).value();
  return {};
}

bool ClusterRouter::refreshAfterFailure(int slot) {
  if (std::chrono::steady_clock::now() - lastRefresh_ < kRefreshGap) return false;
  const int before = map_.masterOf(slot);
  const std::string was = before >= 0 ? map_.masters()[static_cast<std::size_t>(before)].address() : "";
  if (!refresh()) return false;
  const int after = map_.masterOf(slot);
  return after >= 0 && map_.masters()[static_cast<std::size_t>(after)].address() != was;
}

void ClusterRouter::followMoved(const ClusterRedirect& r) {
  ++moved_;
  if (std::chrono::steady_clock::now() - lastRefresh_ >= kRefreshGap) (void)refresh();
  const int m = map_.masterOf(r.slot);
  if (m < 0 || map_.masters()[static_cast<std::size_t>(m)].host != r.host ||
      map_.masters()[static_cast<std::size_t>(m)].port != r.port)
    map_.assign(r.slot, map_.addMaster(r.host, r.port));
}

Result<RedisReply> ClusterRouter::command(std::string_view key, std::span<const std::string_view> argv) {
  return onSlot(keySlot(key), [&](RedisConnection& c) { return c.command(argv); });
}

std::int64_t ClusterRouter::reconnects() const {
  std::int64_t n = 0;
  for (const auto& [k, c] : conns_) n += c.reconnects();
  return n;
}

}  // namespace rl
