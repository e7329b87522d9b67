#include "progress_line.hpp"

#include <unistd.h>

#include <atomic>
#include <cstdio>

namespace rl::cli {

namespace {
std::atomic<bool> drawn{false};
}  // namespace

void drawProgressLine(const char* text) {
  if (!isatty(STDERR_FILENO)) return;
  std::fprintf(stderr, "\r\033[K  %s", text);
  std::fflush(stderr);
  drawn = true;
}

std::function<void(const StormProgress&)> progressLine() {
  if (!isatty(STDERR_FILENO)) return {};
  return [](const StormProgress& p) {
    if (p.elapsed < kSecond) return;
    char text[256];
    std::snprintf(text, sizeof text, "%lld/%lld decisions, late %lld, dropped %lld, errors %lld, %.1f s elapsed, ~%.1f s left",
                  static_cast<long long>(p.sent), static_cast<long long>(p.planned), static_cast<long long>(p.late),
                  static_cast<long long>(p.dropped), static_cast<long long>(p.errors),
                  static_cast<double>(p.elapsed.count()) / 1e6, static_cast<double>(p.remaining.count()) / 1e6);
    drawProgressLine(text);
  };
}

void endProgressLine() {
  if (drawn.exchange(false)) std::fputs("\r\033[K", stderr);
}

}  // namespace rl::cli
