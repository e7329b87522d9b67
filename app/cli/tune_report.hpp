#pragma once
// How `ratelab-cli tune` shows a sweep: a readable table (distribution,
// recommendation and Pareto front per algorithm) and a CSV with every grid
// point. The JSON document is core's (tune/tune_document.hpp).

#include <cstdio>
#include <string>

#include "common/json.hpp"
#include "tune/tune_sweep.hpp"

namespace rl::cli {

/// The readable summary; `readTime` is how long reading the trace took.
void printTuneTable(std::FILE* out, const Trace& trace, const TuneSpec& spec, const TuneResult& result, Micros readTime);

/// One row per computed grid point; the error names --csv.
Result<void> writeTuneCsv(const std::string& path, const TuneResult& result);

}  // namespace rl::cli
