// ratelab-cli script NAME: prints the Lua script Redis runs for an algorithm.
// ratelab-cli script --acl-user NAME [--prefix P]: prints the ACL SETUSER that
// confines a user (and every script it runs) to the prefix; with --redis URL
// and --acl-password-file FILE it creates that user (acl_user.hpp).
#include <cstdio>

#include "cli_flags.hpp"
#include "commands.hpp"
#include "common/file_read.hpp"
#include "redis/acl_user.hpp"
#include "redis/lua_scripts.hpp"
#include "redis/redis_url.hpp"

namespace rl::cli {

namespace {
constexpr const char* kHelp =
    "usage: ratelab-cli script NAME   (NAME: fixed_window, sliding_log, sliding_counter, token_bucket,\n"
    "                                  leaky_bucket or gcra): prints its Lua\n"
    "       ratelab-cli script --acl-user NAME [--prefix P] [--redis URL --acl-password-file FILE]\n"
    "  --acl-user NAME          an ACL user (Redis 6+) limited to keys ~<prefix>*, every command but\n"
    "                           @dangerous (FLUSHALL, FLUSHDB, CONFIG, KEYS, ...), no Pub/Sub channels:\n"
    "                           prints its ACL SETUSER (password shown as PASSWORD)\n"
    "  --prefix P               the key prefix (default ratelab:)\n"
    "  --redis URL              with --acl-password-file: create (or reset) the user there; the URL's\n"
    "                           user must be allowed ACL SETUSER. One server: on a Cluster, run the\n"
    "                           printed command on every node\n"
    "  --acl-password-file FILE the new user's password (first line); never printed\n";

int aclUser(const Flags& flags) {
  const std::string name = *flags.get("acl-user");
  const std::string prefix = flags.get("prefix").value_or("ratelab:");
  if (auto ok = checkAclUserName(name); !ok) return badInput("script", ok.error());
  const auto url = flags.get("redis");
  const auto passwordFile = flags.get("acl-password-file");
  if (url.has_value() != passwordFile.has_value())
    return badInput("script", invalidArgument("--acl-user: --redis and --acl-password-file go together (create the "
                                              "user there with that password); allowed both or neither"));
  if (!url) {
    std::printf("%s\n", aclSetUserLine(name, prefix).c_str());
    std::fprintf(stderr, "ratelab-cli script: replace PASSWORD; then connect as it: --redis redis://%s@HOST:PORT "
                         "with --redis-password-file FILE\n", name.c_str());
    return kExitOk;
  }
  auto endpoint = resolveRedisUrl(*url);
  if (!endpoint) return badInput("script", invalidArgument("--redis: " + endpoint.error().message));
  if (endpoint->cluster || endpoint->viaSentinel())
    return badInput("script", invalidArgument("--acl-user --redis: one server only (ACLs are per node): allowed "
                                              "redis://; for a Cluster or Sentinel set, run the printed command on every node"));
  auto text = readWholeFile(*passwordFile, "--acl-password-file");
  if (!text) return badInput("script", text.error());
  const std::string password = text->substr(0, text->find_first_of("\r\n"));
  if (password.empty())
    return badInput("script", invalidArgument("--acl-password-file '" + *passwordFile +
                                              "' is empty: allowed a file whose first line is the password"));
  auto conn = RedisConnection::connect(*endpoint);
  if (!conn) {
    std::fprintf(stderr, "ratelab-cli script: cannot reach Redis at %s: %s\n", endpoint->address().c_str(),
                 conn.error().message.c_str());
    return kExitNoRedis;
  }
  if (auto ok = createAclUser(*conn, name, prefix, password); !ok) {
    if (ok.error().code == ErrorCode::InvalidArgument) return badInput("script", ok.error());
    std::fprintf(stderr, "ratelab-cli script: %s\n", ok.error().message.c_str());
    return kExitNoRedis;
  }
  std::printf("created ACL user %s on %s: keys %s* only, no @dangerous commands; connect as it with --redis "
              "redis://%s@%s --redis-password-file %s\n",
              name.c_str(), endpoint->address().c_str(), prefix.c_str(), name.c_str(), endpoint->address().c_str(),
              passwordFile->c_str());
  return kExitOk;
}
}  // namespace

int cmdScript(const Args& args) {
  static constexpr FlagSpec kAllowed[] = {{"help", false},  {"acl-user", true}, {"prefix", true},
                                          {"redis", true},  {"acl-password-file", true}};
  std::vector<std::string> names;
  auto flags = Flags::parse(args, kAllowed, &names);
  if (!flags) return badInput("script", flags.error());
  const char* allowed = "fixed_window, sliding_log, sliding_counter, token_bucket, leaky_bucket or gcra";
  if (flags->has("help")) {
    std::fputs(kHelp, stdout);
    return kExitOk;
  }
  if (flags->has("acl-user")) {
    if (!names.empty())
      return badInput("script", invalidArgument("--acl-user takes no NAME of an algorithm: allowed one of them"));
    return aclUser(*flags);
  }
  for (const char* f : {"prefix", "redis", "acl-password-file"})
    if (flags->has(f)) return badInput("script", invalidArgument(std::string("--") + f + " goes with --acl-user"));
  if (names.size() != 1)
    return badInput("script", invalidArgument(std::string("NAME: give exactly one algorithm: allowed ") + allowed));
  const auto algorithm = parseAlgorithm(names[0]);
  if (!algorithm)
    return badInput("script", invalidArgument("NAME: '" + names[0] + "' is not an algorithm: allowed " + allowed));
  std::fputs(luaScript(*algorithm).c_str(), stdout);
  return kExitOk;
}

}  // namespace rl::cli
