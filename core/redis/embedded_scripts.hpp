#pragma once
// The Lua scripts of resources/lua, embedded into rl_redis at build time.

#include <optional>
#include <span>

#include "common/embedded_file.hpp"

namespace rl {

/// An embedded Lua script: name (e.g. "token_bucket") and source.
using EmbeddedScript = EmbeddedFile;

/// Every embedded script, sorted by name.
std::span<const EmbeddedScript> embeddedScripts();
/// The script named `name` (e.g. "gcra"), or nullopt.
std::optional<std::string_view> embeddedScript(std::string_view name);

}  // namespace rl
