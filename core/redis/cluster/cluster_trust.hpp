#pragma once
// ClusterTrust: which nodes a Redis Cluster may send RateLab to. A node names
// its peers' addresses (CLUSTER SLOTS, MOVED, ASK), and RateLab connects there
// and sends AUTH with the endpoint's password, so by default it only follows
// names in the seeds' own network:
//  - an announced node must be an IP address (IPv4, or IPv6 without a zone);
//    a host name is refused (it can resolve anywhere);
//  - its kind must be the kind of a seed: loopback (127.0.0.0/8, ::1),
//    private (10/8, 172.16/12, 192.168/16, 100.64/10, 169.254/16, fc00::/7,
//    fe80::/10) or public (every other unicast address); 0.0.0.0/8, ::,
//    multicast and 240/4 are never accepted; an IPv4-mapped IPv6 address
//    (::ffff:a.b.c.d) counts as its IPv4 address;
//  - a seed given as a host name counts as the kinds of the addresses it
//    resolves to ("localhost" is loopback without a lookup).
// Any port is accepted. `RedisEndpoint::clusterAnyNode` (`--cluster-any-node`)
// accepts every node, host names included. A refused node is one
// InvalidArgument naming the address, who named it, the rule and the flag.

#include <set>
#include <string>
#include <string_view>

#include "common/result.hpp"
#include "redis/redis_url.hpp"

namespace rl {

/// The network an address is in, as ClusterTrust compares them.
enum class AddressKind { Loopback, Private, Public, Never, HostName };

/// The kind of `host` (an IP literal or a name; no lookup).
AddressKind addressKind(std::string_view host);

/// "loopback", "private", "public", "unusable", "a host name".
std::string_view addressKindName(AddressKind kind);

/// The announced nodes a cluster client may connect to; see the file comment.
class ClusterTrust {
 public:
  /// The rule for `cluster`'s seeds (host:port and moreSeeds) and its clusterAnyNode.
  static ClusterTrust of(const RedisEndpoint& cluster);
  /// Accepts every node (tests of the parsers, and --cluster-any-node).
  static ClusterTrust anyNode();

  /// Ok when host:port may be connected to; else InvalidArgument naming it,
  /// `namedBy` (e.g. "CLUSTER SLOTS from 127.0.0.1:7000", "MOVED"), the rule and the flag.
  Result<void> admit(std::string_view host, int port, std::string_view namedBy) const;

 private:
  bool any_ = false;                ///< --cluster-any-node: accept everything
  std::set<AddressKind> kinds_;     ///< the seeds' kinds
  std::string seeds_;               ///< the seeds, for the error ("127.0.0.1:7000, ...")
};

}  // namespace rl
