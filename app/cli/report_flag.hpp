#pragma once
// --report FILE.html, the same for run, race and tune: the path checked before
// the work starts, the report written after it, and the command line it names.

#include <string>
#include <string_view>

#include "cli_flags.hpp"
#include "commands.hpp"

namespace rl::cli {

/// kExitOk, or (bad --report path) the one-line error and kExitBadInput, before any work.
int checkReportFlag(std::string_view command, const Flags& flags);

/// "ratelab-cli <command> <args...>", printable, for the report's "made by".
std::string commandLine(std::string_view command, const Args& args);

/// Writes `html` to --report's path and says so on stderr; kExitBadInput with the error when it can't.
int writeReportFlag(std::string_view command, const Flags& flags, const std::string& html);

}  // namespace rl::cli
