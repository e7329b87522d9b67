#include "redis/acl_user.hpp"

namespace rl {

namespace {
// The prefix as an ACL glob that matches it literally.
std::string keyPattern(std::string_view prefix) {
  std::string out = "~";
  for (char c : prefix) {
    if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  return out + "*";
}
}  // namespace

Result<void> checkAclUserName(std::string_view name) {
  if (name.empty() || name.size() > 64 ||
      name.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") != std::string_view::npos)
    return invalidArgument("--acl-user '" + std::string(name.substr(0, 64)) + "' is not valid: allowed 1 to 64 of A-Z a-z 0-9 . _ -");
  return {};
}

std::vector<std::string> aclSetUserArgv(std::string_view name, std::string_view prefix, std::string_view password) {
  return {"ACL", "SETUSER", std::string(name), "reset", "on", ">" + std::string(password), "resetchannels",
          keyPattern(prefix), "+@all", "-@dangerous"};
}

std::string aclSetUserLine(std::string_view name, std::string_view prefix) {
  std::string line;
  for (const std::string& w : aclSetUserArgv(name, prefix, "PASSWORD")) {
    const bool quote = w.find_first_of(" \"'\\") != std::string::npos;
    std::string q;
    for (char c : w) q += (c == '"' || c == '\\') ? std::string("\\") + c : std::string(1, c);
    line += (line.empty() ? "" : " ") + (quote ? "\"" + q + "\"" : w);
  }
  return line;
}

Result<void> createAclUser(RedisConnection& conn, std::string_view name, std::string_view prefix,
                           std::string_view password) {
  if (auto ok = checkAclUserName(name); !ok) return ok;
  if (auto who = conn.command({"ACL", "WHOAMI"}); !who) {
    if (who.error().code == ErrorCode::Protocol && who.error().message.find("unknown command") != std::string::npos)
      return invalidArgument("the Redis at " + conn.endpoint().address() +
                             " has no ACLs (Redis 6 or later needed): run user scripts only on a server you can lose");
    return who.error();
  }
  if (auto r = conn.command(aclSetUserArgv(name, prefix, password)); !r) {
    if (r.error().code != ErrorCode::Protocol) return r.error();
    return invalidArgument("the Redis at " + conn.endpoint().address() + " refused ACL SETUSER " + std::string(name) +
                           " (connect as a user allowed to run it): " + r.error().message.substr(0, r.error().message.find('>')));
  }
  return {};
}

}  // namespace rl
