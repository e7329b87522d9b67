#pragma once
// The one-line progress indicator of long runs: on stderr, only when stderr
// is a terminal, only once a run has taken more than a second.

#include <functional>

#include "storm/storm_runner.hpp"

namespace rl::cli {

/// A progress callback for runStorm (empty when stderr is not a terminal).
std::function<void(const StormProgress&)> progressLine();

/// Draws `text` as the progress line (only when stderr is a terminal).
void drawProgressLine(const char* text);

/// Clears the line if one was drawn.
void endProgressLine();

}  // namespace rl::cli
