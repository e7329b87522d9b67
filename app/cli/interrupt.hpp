#pragma once
// Ctrl-C for long commands (run, tune): SIGINT sets a flag the command polls,
// so it stops cleanly and prints what it computed, then exits 130.

#include <atomic>

namespace rl::cli {

/// Installs the SIGINT handler that sets interruptFlag().
void catchInterrupt();

/// True once Ctrl-C was pressed (after catchInterrupt()).
const std::atomic<bool>& interruptFlag();

/// The exit code after an interrupt: 128 + SIGINT.
int interruptedExitCode();

}  // namespace rl::cli
