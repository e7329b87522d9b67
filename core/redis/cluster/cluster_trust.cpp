#include "redis/cluster/cluster_trust.hpp"

#include <arpa/inet.h>
#include <netdb.h>
#include <sys/socket.h>

#include <array>
#include <cstdint>
#include <cstring>

namespace rl {

namespace {
AddressKind kindOfV4(const std::array<std::uint8_t, 4>& a) {
  if (a[0] == 127) return AddressKind::Loopback;
  if (a[0] == 10 || (a[0] == 172 && (a[1] & 0xF0) == 16) || (a[0] == 192 && a[1] == 168) ||
      (a[0] == 100 && (a[1] & 0xC0) == 64) || (a[0] == 169 && a[1] == 254))
    return AddressKind::Private;
  if (a[0] == 0 || a[0] >= 224) return AddressKind::Never;  // this network, multicast, reserved, broadcast
  return AddressKind::Public;
}

AddressKind kindOfV6(const std::array<std::uint8_t, 16>& a) {
  static constexpr std::array<std::uint8_t, 12> kMapped{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF};
  if (std::memcmp(a.data(), kMapped.data(), kMapped.size()) == 0) return kindOfV4({a[12], a[13], a[14], a[15]});
  bool zeroHead = true;
  for (std::size_t i = 0; i < 15; ++i) zeroHead = zeroHead && a[i] == 0;
  if (zeroHead && a[15] == 1) return AddressKind::Loopback;  // ::1
  if (zeroHead && a[15] == 0) return AddressKind::Never;     // ::
  if ((a[0] & 0xFE) == 0xFC || (a[0] == 0xFE && (a[1] & 0xC0) == 0x80)) return AddressKind::Private;
  if (a[0] == 0xFF) return AddressKind::Never;  // multicast
  return AddressKind::Public;
}

// The kinds of the addresses `host` resolves to (none when it does not resolve).
void addResolvedKinds(const std::string& host, std::set<AddressKind>& kinds) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (::getaddrinfo(host.c_str(), nullptr, &hints, &found) != 0) return;
  for (const addrinfo* p = found; p; p = p->ai_next) {
    if (p->ai_family == AF_INET) {
      std::array<std::uint8_t, 4> a{};
      std::memcpy(a.data(), &reinterpret_cast<const sockaddr_in*>(p->ai_addr)->sin_addr, a.size());
      kinds.insert(kindOfV4(a));
    } else if (p->ai_family == AF_INET6) {
      std::array<std::uint8_t, 16> a{};
      std::memcpy(a.data(), &reinterpret_cast<const sockaddr_in6*>(p->ai_addr)->sin6_addr, a.size());
      kinds.insert(kindOfV6(a));
    }
  }
  ::freeaddrinfo(found);
}
}  // namespace

AddressKind addressKind(std::string_view host) {
  const std::string h(host);
  std::array<std::uint8_t, 4> v4{};
  if (::inet_pton(AF_INET, h.c_str(), v4.data()) == 1) return kindOfV4(v4);
  std::array<std::uint8_t, 16> v6{};
  if (::inet_pton(AF_INET6, h.c_str(), v6.data()) == 1) return kindOfV6(v6);
  return AddressKind::HostName;
}

std::string_view addressKindName(AddressKind kind) {
  switch (kind) {
    case AddressKind::Loopback: return "loopback";
    case AddressKind::Private: return "private";
    case AddressKind::Public: return "public";
    case AddressKind::Never: return "unusable";
    case AddressKind::HostName: return "a host name";
  }
  return "?";
}

ClusterTrust ClusterTrust::of(const RedisEndpoint& cluster) {
  ClusterTrust t;
  t.any_ = cluster.clusterAnyNode;
  std::vector<std::pair<std::string, int>> seeds{{cluster.host, cluster.port}};
  seeds.insert(seeds.end(), cluster.moreSeeds.begin(), cluster.moreSeeds.end());
  for (const auto& [host, port] : seeds) {
    t.seeds_ += (t.seeds_.empty() ? "" : ", ") + hostPortText(host, port);
    const AddressKind k = addressKind(host);
    if (k != AddressKind::HostName) t.kinds_.insert(k);
    else if (host == "localhost") t.kinds_.insert(AddressKind::Loopback);
    else if (!t.any_) addResolvedKinds(host, t.kinds_);
  }
  t.kinds_.erase(AddressKind::Never);
  return t;
}

ClusterTrust ClusterTrust::anyNode() {
  ClusterTrust t;
  t.any_ = true;
  return t;
}

Result<void> ClusterTrust::admit(std::string_view host, int port, std::string_view namedBy) const {
  if (any_) return {};
  const AddressKind k = addressKind(host);
  if (k != AddressKind::HostName && k != AddressKind::Never && kinds_.contains(k)) return {};
  std::string seedKinds;
  for (AddressKind s : kinds_) seedKinds += (seedKinds.empty() ? "" : " or ") + std::string(addressKindName(s));
  const std::string what = k == AddressKind::HostName ? "a host name"
                                                      : "a " + std::string(addressKindName(k)) + " address";
  return invalidArgument(
      "the cluster names node " + hostPortText(host, port) + " (" + std::string(namedBy) + "), " + what +
      ", but the seeds (" + seeds_ + ") are " + (seedKinds.empty() ? "of no usable kind" : seedKinds) +
      ": RateLab connects, and sends the password, only to nodes announced by IP address in the seeds' network "
      "(loopback, private or public, as the seeds are); --cluster-any-node allows any node");
}

}  // namespace rl
