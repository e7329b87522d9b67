// ratelab-cli: the headless face of the RateLab engine. Wiring only: each
// subcommand lives in its own cmd_*.cpp.

#include <cstdio>
#include <cstring>
#include <string_view>

#include "commands.hpp"

namespace {
constexpr const char* kUsage =
    "usage: ratelab-cli <command> [options]\n"
    "\n"
    "commands:\n"
    "  run      one storm; prints a summary table, or --json\n"
    "  race     naive vs watch vs lua on one key, repeated rounds\n"
    "  bench    max decisions/s per backend and algorithm\n"
    "  keys     limiter keys under the prefix: type, PTTL, fields\n"
    "  script   print the Lua script of an algorithm\n"
    "  serve    HTTP limiter replicas on loopback (curl, wrk)\n"
    "  cluster  `cluster up`: a private Redis Cluster until Ctrl-C\n"
    "\n"
    "`ratelab-cli <command> --help` lists a command's options.\n";
}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0) {
    std::fputs(kUsage, argc < 2 ? stderr : stdout);
    return argc < 2 ? rl::cli::kExitBadInput : rl::cli::kExitOk;
  }
  const std::string_view command = argv[1];
  const rl::cli::Args args(argv + 2, argv + argc);
  if (command == "run") return rl::cli::cmdRun(args);
  if (command == "race") return rl::cli::cmdRace(args);
  if (command == "bench") return rl::cli::cmdBench(args);
  if (command == "keys") return rl::cli::cmdKeys(args);
  if (command == "script") return rl::cli::cmdScript(args);
  if (command == "serve") return rl::cli::cmdServe(args);
  if (command == "cluster") return rl::cli::cmdCluster(args);
  std::fprintf(stderr,
               "ratelab-cli: unknown command '%s': allowed run, race, bench, keys, script, serve, cluster\n",
               argv[1]);
  return rl::cli::kExitBadInput;
}
