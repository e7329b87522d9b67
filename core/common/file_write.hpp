#pragma once
// Whole-file writes that a reader never sees half done: the data goes to
// PATH.part, which is renamed to PATH only when complete. For the run CSV,
// the HTML report and other files the CLI and the window export.

#include <cstdio>
#include <functional>
#include <string>

#include "common/result.hpp"

namespace rl {

/// Writes `path` through `write` (which returns false on its own failure); the partial
/// file is removed on any error. The error names the file and the cause.
Result<void> writeFileAtomically(const std::string& path, const std::function<bool(std::FILE*)>& write);

}  // namespace rl
