#pragma once
// How ratelab-cli shows dialects: a config read as quotas and explained
// (`explain --from`), and a quota written as config (`explain --to`,
// `tune --emit`). One printer for both commands.

#include <cstdio>
#include <string>
#include <vector>

#include "common/json.hpp"
#include "dialects/dialect.hpp"
#include "dialects/quota_explanation.hpp"

namespace rl::cli {

/// One quota of a config with its explanation.
struct ExplainedQuota {
  DialectQuota quota;             ///< as parsed
  QuotaExplanation explanation;   ///< what the limiter did with it
};

/// The readable form: name, quota, sentences, what is not modeled, notes, the `run` flags.
void printExplained(std::FILE* out, const Dialect& dialect, const std::vector<ExplainedQuota>& quotas);
/// {"dialect", "quotas":[{name, algorithm, limit, window_ms, refill_rate, emission_interval_us, simultaneous{...},
///  max_admitted_in_second, max_admitted_in_minute, capped, unmodeled, notes, explanation}]}.
Json explainedJson(const Dialect& dialect, const std::vector<ExplainedQuota>& quotas);

/// The emitted text on `out`; each difference as "differs: ..." on `notes`.
void printEmitted(std::FILE* out, std::FILE* notes, const Emitted& emitted);
/// {"dialect", "algorithm", "text", "differences":[...]}.
Json emittedJson(const Dialect& dialect, Algorithm algorithm, const Emitted& emitted);

}  // namespace rl::cli
