#pragma once
// A tune sweep's document (`ratelab-cli tune --json`, embedded in the tune
// report the CLI and the window write): the trace, who counts as legitimate,
// the per-client peaks, every computed point, and per algorithm the
// recommendation and the Pareto front.

#include "common/json.hpp"
#include "trace/trace.hpp"
#include "tune/tune_sweep.hpp"

namespace rl {

/// The sweep's document; `readTime` is how long reading the trace took (its "read_ms").
Json tuneDocument(const Trace& trace, const TuneSpec& spec, const TuneResult& result, Micros readTime);

}  // namespace rl
