// ratelab-cli script NAME: prints the Lua script Redis runs for an algorithm.
#include <cstdio>

#include "cli_flags.hpp"
#include "commands.hpp"
#include "redis/lua_scripts.hpp"

namespace rl::cli {

int cmdScript(const Args& args) {
  static constexpr FlagSpec kAllowed[] = {{"help", false}};
  std::vector<std::string> names;
  auto flags = Flags::parse(args, kAllowed, &names);
  if (!flags) return badInput("script", flags.error());
  const char* allowed = "fixed_window, sliding_log, sliding_counter, token_bucket, leaky_bucket or gcra";
  if (flags->has("help")) {
    std::printf("usage: ratelab-cli script NAME   (NAME: %s)\n", allowed);
    return kExitOk;
  }
  if (names.size() != 1)
    return badInput("script", invalidArgument(std::string("NAME: give exactly one algorithm: allowed ") + allowed));
  const auto algorithm = parseAlgorithm(names[0]);
  if (!algorithm)
    return badInput("script", invalidArgument("NAME: '" + names[0] + "' is not an algorithm: allowed " + allowed));
  std::fputs(luaScript(*algorithm).c_str(), stdout);
  return kExitOk;
}

}  // namespace rl::cli
