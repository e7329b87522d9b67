#pragma once
// Envoy's ratelimit service configuration (envoyproxy/ratelimit): the
// descriptor YAML that says, per domain, which descriptor entries are limited
// and how. The key reader needs it because the service writes keys as
// <domain>_<key>_<value>_..._<window start> without escaping '_' in keys or
// values, so a key can only be split against the descriptors it came from.
//
//   domain: api
//   descriptors:
//     - key: remote_address          # no value: any value
//       rate_limit: {unit: minute, requests_per_unit: 10}
//     - key: path
//       value: /login
//       descriptors:                 # nested: the key holds every entry on the way
//         - key: user
//           rate_limit: {unit: second, requests_per_unit: 2}

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"

namespace rl {

/// One rate_limit of a descriptor.
struct EnvoyLimit {
  std::string unit;                  ///< second, minute, hour, day, week, month, year
  std::int64_t unitSeconds = 0;      ///< the window: 1, 60, 3600, 86400, 604800, 2592000, 31536000
  std::int64_t requestsPerUnit = 0;  ///< the limit per window
};

/// One descriptor entry, with the descriptors nested under it.
struct EnvoyDescriptor {
  std::string key;                     ///< the entry's key
  std::optional<std::string> value;    ///< the entry's value; none: any value
  std::optional<EnvoyLimit> limit;     ///< its rate_limit, when it has one
  std::vector<EnvoyDescriptor> children;  ///< nested descriptors
};

/// One domain's descriptors (one YAML document).
struct EnvoyDomain {
  std::string domain;                       ///< the domain
  std::vector<EnvoyDescriptor> descriptors;  ///< its top-level descriptors
};

/// Every domain of one or more YAML documents.
struct EnvoyConfig {
  std::vector<EnvoyDomain> domains;  ///< in file order
};

/// Parses the descriptor YAML (one domain per document, `---` between them);
/// InvalidArgument names the document, descriptor and field that is wrong and what is allowed.
Result<EnvoyConfig> parseEnvoyConfig(std::string_view yaml);

/// The window of an Envoy unit name in seconds, 0 for an unknown one.
std::int64_t envoyUnitSeconds(std::string_view unit);

}  // namespace rl
