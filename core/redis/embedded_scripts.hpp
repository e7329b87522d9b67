#pragma once
// The Lua scripts of resources/lua, embedded into rl_core at build time.

#include <optional>
#include <span>
#include <string_view>

namespace rl {

/// One embedded Lua script: its file name without extension and its text.
struct EmbeddedScript {
  std::string_view name;    ///< e.g. "token_bucket"
  std::string_view source;  ///< the script text, byte for byte
};

/// Every embedded script, sorted by name.
std::span<const EmbeddedScript> embeddedScripts();

/// The script named `name` (e.g. "gcra"), or nullopt.
std::optional<std::string_view> embeddedScript(std::string_view name);

}  // namespace rl
