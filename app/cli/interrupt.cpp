#include "interrupt.hpp"

#include <csignal>

namespace rl::cli {

namespace {
std::atomic<bool> gInterrupted{false};
extern "C" void onInterrupt(int) { gInterrupted.store(true); }
}  // namespace

void catchInterrupt() {
  struct sigaction sa {};
  sa.sa_handler = onInterrupt;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
}

const std::atomic<bool>& interruptFlag() { return gInterrupted; }

int interruptedExitCode() { return 128 + SIGINT; }

}  // namespace rl::cli
