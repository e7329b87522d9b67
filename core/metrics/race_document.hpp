#pragma once
// The race lab's document (`ratelab-cli race --json`, embedded in the race
// report the CLI and the window write): what raced, and per variant the
// admitted range and mean, rounds over the limit, retries, errors and the
// distribution of admitted per round.

#include <vector>

#include "common/json.hpp"
#include "storm/race_lab.hpp"

namespace rl {

/// The race's document; see the file comment.
Json raceDocument(const RaceSpec& spec, const std::vector<RaceVariantResult>& results);

}  // namespace rl
