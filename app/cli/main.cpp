// ratelab-cli: the headless face of the RateLab engine. Wiring only: each
// subcommand lives in its own cmd_*.cpp.

#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

#include "cli_flags.hpp"
#include "commands.hpp"
#include "common/file_read.hpp"
#include "redis/redis_url.hpp"

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
    "  tune     sweep a quota grid over an access log, recommend a quota\n"
    "  explain  a config as a quota (--from nginx|envoy|traefik|...), or a quota as config (--to)\n"
    "  audit    probe an HTTP limiter: declared policy, probes, fingerprint, verdict\n"
    "\n"
    "`ratelab-cli <command> --help` lists a command's options.\n"
    "\n"
    "every command also takes:\n"
    "  --max-file-mb N             the largest file read whole (scenario, password\n"
    "                              file): 1 to 1024 MB, default 4\n"
    "  --redis-password-file FILE  the Redis password (first line), when the URL\n"
    "                              has none; else $REDISCLI_AUTH. Passwords are\n"
    "                              never printed: URLs show redis://user:***@host\n"
    "  --cluster-any-node          Redis Cluster: connect, and send the password, to\n"
    "                              any node the cluster names (CLUSTER SLOTS, MOVED,\n"
    "                              ASK); by default only to nodes announced by IP in\n"
    "                              the seeds' network (loopback, private or public)\n";

// Takes every global `--NAME VALUE` (or `--NAME=VALUE`) out of `args` into `value`
// (the last one wins); false when one has no value.
bool takeGlobal(rl::cli::Args& args, const std::string& name, std::optional<std::string>& value) {
  const std::string flag = "--" + name;
  for (std::size_t i = 0; i < args.size();) {
    if (args[i] == flag) {
      if (i + 1 >= args.size()) return false;
      value = args[i + 1];
      args.erase(args.begin() + static_cast<std::ptrdiff_t>(i), args.begin() + static_cast<std::ptrdiff_t>(i + 2));
    } else if (args[i].rfind(flag + "=", 0) == 0) {
      value = args[i].substr(flag.size() + 1);
      args.erase(args.begin() + static_cast<std::ptrdiff_t>(i));
    } else {
      ++i;
    }
  }
  return true;
}

// Takes every global switch `--NAME` out of `args`; true when there was one.
bool takeGlobalSwitch(rl::cli::Args& args, std::string_view name) {
  const std::string flag = "--" + std::string(name);
  const auto before = args.size();
  std::erase(args, flag);
  return args.size() != before;
}

// The options every command takes: --max-file-mb, --redis-password-file, --cluster-any-node.
// Exit code on bad input, else -1.
int takeGlobalOptions(rl::cli::Args& args, std::string_view command) {
  if (takeGlobalSwitch(args, "cluster-any-node")) rl::setClusterAnyNode(true);
  for (const char* name : {"max-file-mb", "redis-password-file"}) {
    std::optional<std::string> value;
    if (!takeGlobal(args, name, value))
      return rl::cli::badInput(command, rl::invalidArgument("--" + std::string(name) + " needs a value"));
    if (!value) continue;
    if (std::string_view(name) == "redis-password-file") {
      rl::setRedisPasswordFile(*value);
    } else if (auto ok = rl::setMaxFileMbText(*value); !ok) {
      return rl::cli::badInput(command, ok.error());
    }
  }
  return -1;
}
}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0) {
    std::fputs(kUsage, argc < 2 ? stderr : stdout);
    return argc < 2 ? rl::cli::kExitBadInput : rl::cli::kExitOk;
  }
  const std::string_view command = argv[1];
  rl::cli::Args args(argv + 2, argv + argc);
  if (const int rc = takeGlobalOptions(args, command); rc >= 0) return rc;
  if (command == "run") return rl::cli::cmdRun(args);
  if (command == "race") return rl::cli::cmdRace(args);
  if (command == "bench") return rl::cli::cmdBench(args);
  if (command == "keys") return rl::cli::cmdKeys(args);
  if (command == "script") return rl::cli::cmdScript(args);
  if (command == "serve") return rl::cli::cmdServe(args);
  if (command == "cluster") return rl::cli::cmdCluster(args);
  if (command == "tune") return rl::cli::cmdTune(args);
  if (command == "explain") return rl::cli::cmdExplain(args);
  if (command == "audit") return rl::cli::cmdAudit(args);
  std::fprintf(stderr,
               "ratelab-cli: unknown command '%s': allowed run, race, bench, keys, script, serve, cluster, tune, explain, audit\n",
               argv[1]);
  return rl::cli::kExitBadInput;
}
