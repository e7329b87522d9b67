// ratelab-cli cluster up: a private local Redis Cluster (3 masters + 3
// replicas on free loopback ports) that lives until Ctrl-C, for the window,
// curl experiments and tests. Prints the seed URL on stdout.
#include <unistd.h>

#include <cstdio>

#include "cli_flags.hpp"
#include "commands.hpp"
#include "redis/cluster/managed_redis_cluster.hpp"

namespace rl::cli {

namespace {
constexpr const char* kClusterHelp =
    "usage: ratelab-cli cluster up [--masters N] [--replicas-per-master R]\n"
    "  starts a private Redis Cluster on free loopback ports (default 3 masters + 1 replica each),\n"
    "  prints its redis+cluster:// URL and keeps it until Ctrl-C (then stops it and removes its dirs)\n";
}  // namespace

int cmdCluster(const Args& args) {
  std::vector<std::string> positional;
  const FlagSpec allowed[] = {{"masters", true}, {"replicas-per-master", true}, {"help", false}};
  auto flags = Flags::parse(args, allowed, &positional);
  if (!flags) return badInput("cluster", flags.error());
  if (flags->has("help")) {
    std::fputs(kClusterHelp, stdout);
    return kExitOk;
  }
  if (positional.size() != 1 || positional[0] != "up")
    return badInput("cluster", invalidArgument("expected the action 'up': allowed `ratelab-cli cluster up`"));
  auto masters = intFlag(flags.value(), "masters", 3, 3, 16);
  if (!masters) return badInput("cluster", masters.error());
  auto replicas = intFlag(flags.value(), "replicas-per-master", 1, 0, 4);
  if (!replicas) return badInput("cluster", replicas.error());
  installServerSignalCleanup();  // Ctrl-C / SIGTERM: stop every node, remove the dirs, exit 130 / 143
  ManagedClusterOptions o;
  o.masters = static_cast<int>(*masters);
  o.replicasPerMaster = static_cast<int>(*replicas);
  auto cluster = ManagedRedisCluster::start(o);
  if (!cluster) {
    std::fprintf(stderr, "ratelab-cli cluster: cannot start a Redis Cluster: %s\n", cluster.error().message.c_str());
    return kExitNoRedis;
  }
  std::printf("%s\n", cluster->endpoint().toString().c_str());
  std::fflush(stdout);
  std::fprintf(stderr, "ratelab-cli cluster: %d masters + %d replicas each, up until Ctrl-C\n", o.masters,
               o.replicasPerMaster);
  for (;;) ::pause();
}

}  // namespace rl::cli
