#pragma once
// The scenario files of resources/scenarios, embedded into rl_storm at build
// time: the window's presets are built from them, so a preset and its file
// are the same storm.

#include <optional>
#include <span>

#include "common/embedded_file.hpp"

namespace rl {

/// Every embedded scenario (name e.g. "boundary", source the JSON), sorted by name.
std::span<const EmbeddedFile> embeddedScenarios();
/// The scenario named `name` (e.g. "outage"), or nullopt.
std::optional<std::string_view> embeddedScenario(std::string_view name);

}  // namespace rl
