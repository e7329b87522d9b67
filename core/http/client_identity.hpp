#pragma once
// Who a request comes from: the client key a replica limits by.
//
//   x-api-key: K            -> "key:K"   (must be valid UTF-8, at most 256 bytes)
//   otherwise               -> "ip:A"    A = the peer address, or the client address
//                                        an explicitly trusted proxy forwarded
//
// The two namespaces never meet: a client sending `x-api-key: 127.0.0.9` does
// not use up the limit of the client at 127.0.0.9.
//
// X-Forwarded-For is trusted only from (like nginx's set_real_ip_from):
//   - the cluster's own front, which proves itself with a per-run secret
//     header (X-RateLab-Front) that only the front (builtin or nginx) knows;
//   - peers inside a `--trusted-proxy CIDR[,CIDR]` list.
// From a trusted peer the client is the rightmost address of the list that is
// not itself a trusted proxy (nginx's real_ip_recursive). From anyone else the
// header is ignored, so a local process talking to a replica directly cannot
// pick its identity.

#include <QHostAddress>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/result.hpp"
#include "http/http_message.hpp"

namespace rl {

/// The header by which the cluster's front proves itself to the replicas.
inline constexpr std::string_view kFrontSecretHeader = "X-RateLab-Front";
/// Longest x-api-key accepted (longer ones are refused, never truncated into another key).
inline constexpr std::size_t kMaxApiKeyBytes = 256;

/// Whose X-Forwarded-For a replica believes; see the file comment.
struct ForwardTrust {
  std::string frontSecret;                          ///< the front's secret; empty = no front
  std::vector<std::pair<QHostAddress, int>> proxies;  ///< trusted proxy subnets (address, prefix)
};

/// Parses `CIDR[,CIDR]` ("10.0.0.0/8,::1", a bare address means one host).
/// InvalidArgument names the bad item and the expected form.
Result<std::vector<std::pair<QHostAddress, int>>> parseTrustedProxies(std::string_view list);

/// `a` equals `b`, compared in time that does not depend on where they differ (secrets).
bool sameSecret(std::string_view a, std::string_view b);

/// `peer` ("10.0.0.5") is in one of `trust`'s proxy subnets.
bool isTrustedProxy(std::string_view peer, const ForwardTrust& trust);

/// A fresh random secret for one run (32 hex digits).
std::string makeFrontSecret();

/// The client key of `request` from `peer`, or InvalidArgument (-> 400) for an
/// x-api-key that is too long or not UTF-8 (the message never echoes the key).
Result<std::string> clientKeyOf(const HttpRequest& request, const std::string& peer, const ForwardTrust& trust);

/// True when `s` is well-formed UTF-8 (no overlongs, no surrogates).
bool isValidUtf8(std::string_view s);

/// "127.0.0.1" for IPv4 (also IPv4-mapped IPv6), else the IPv6 text.
std::string addressText(const QHostAddress& a);

}  // namespace rl
