#pragma once
// Dialects: the team's limiter config (nginx, Envoy, Traefik, express-rate-limit,
// rate-limiter-flexible, Python limits, go-redis/redis_rate) read as RateLab
// quotas, and RateLab quotas written back in each one's syntax.
//
// One table (allDialects()) drives the CLI (`explain --from/--to`, `tune
// --emit`), the window's "From config" box and the tune panel's copy menu.
// Parsing never drops a setting silently: what RateLab can't model is named
// in `unmodeled`; what it reads but that does not change a decision is named
// in `notes`. A parse error is one line naming the token and what was expected.

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"
#include "limiter/algorithm.hpp"
#include "limiter/quota.hpp"

namespace rl {

/// One limit a config declares, as a RateLab quota.
struct DialectQuota {
  std::string name;                    ///< what the config calls it: zone, descriptor path, middleware
  Algorithm algorithm = Algorithm::FixedWindow;  ///< the algorithm that decides like the tool
  Quota quota;                         ///< limit, window, refill rate (valid for `algorithm`)
  std::vector<std::string> unmodeled;  ///< settings that change decisions but RateLab can't model
  std::vector<std::string> notes;      ///< what the tool does differently or read but not decision-changing
};

/// A quota written in a dialect's syntax.
struct Emitted {
  std::string text;                      ///< paste-ready config
  std::vector<std::string> differences;  ///< empty when exact: what the closest setting does differently
};

/// One dialect: its name and both directions.
struct Dialect {
  std::string_view name;     ///< stable name for --from / --to ("nginx")
  std::string_view summary;  ///< what text it reads, in one line
  /// Every limit in `text`; the error names the token and what was expected.
  Result<std::vector<DialectQuota>> (*parse)(std::string_view text);
  /// `quota` (valid for `algorithm`) in this dialect, or the closest it can say.
  Emitted (*emitConfig)(Algorithm algorithm, const Quota& quota);
};

/// Every dialect, in display order.
std::span<const Dialect> allDialects();
/// The dialect called `name`, or nullptr.
const Dialect* findDialect(std::string_view name);
/// "nginx, envoy, traefik, ..." for error messages and help.
std::string dialectNames();
/// Parses `text` as dialect `name`; the error names an unknown dialect and the allowed ones.
Result<std::vector<DialectQuota>> parseDialect(std::string_view name, std::string_view text);

}  // namespace rl
