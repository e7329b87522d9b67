// ratelab-cli serve: placeholder until core/http lands (owned by the HTTP mode work).
#include <cstdio>

#include "commands.hpp"

namespace rl::cli {
int cmdServe(const Args&) {
  std::fputs("ratelab-cli serve: HTTP mode is not built yet\n", stderr);
  return kExitFailed;
}
}  // namespace rl::cli
