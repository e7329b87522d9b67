#pragma once
// The limiter Lua scripts as Redis runs them: resources/lua/prelude.lua (time,
// arguments, exact integer helpers) followed by resources/lua/<algorithm>.lua.

#include <string>

#include "limiter/algorithm.hpp"

namespace rl {

/// The full script Redis runs for `a` (prelude + algorithm body), as SCRIPT LOAD / EVAL get it.
const std::string& luaScript(Algorithm a);

}  // namespace rl
