#include "redis/script_store.hpp"

#include <algorithm>
#include <cmath>
#include <cctype>
#include <cstdlib>

#include "common/file_read.hpp"
#include "redis/script_kill.hpp"
#include "store/failure_policy.hpp"

namespace rl {

Result<std::string> readScriptFile(const std::string& path) {
  auto text = readWholeFile(path, "--script");  // capped: /dev/zero is refused, not read
  if (!text) return text.error();
  if (text->empty()) return invalidArgument("--script: '" + path + "' is empty: allowed a Lua limiter script");
  return text;
}

Result<void> checkKeysInPrefix(const ScriptTemplate& keys, const std::string& text, bool outsideAllowed) {
  const int outside = keys.firstWordOutsidePrefix();
  if (outside < 0 || outsideAllowed) return {};
  std::size_t begin = 0;  // the word's text, for the message
  for (int w = 0; w <= outside; ++w) {
    begin = text.find_first_not_of(' ', begin);
    if (w < outside) begin = text.find(' ', begin);
  }
  const std::string word = text.substr(begin, text.find(' ', begin) - begin);
  return invalidArgument("--script-keys '" + text + "': key " + std::to_string(outside + 1) + " '" + word +
                         "' does not start with {prefix}, so the script could write outside RateLab's key prefix: "
                         "allowed keys that start with {prefix} (e.g. '{prefix}{client}'), or "
                         "--script-keys-outside-prefix to allow it");
}

namespace {
bool wordChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// `source` with Lua comments (`-- ...` to the end of the line, `--[[ ... ]]`) blanked, newlines kept;
// quotes are followed so that "--" inside a string is not a comment.
std::string withoutComments(std::string_view source) {
  std::string out(source);
  char quote = 0;
  for (std::size_t i = 0; i < out.size(); ++i) {
    const char c = out[i];
    if (quote) {
      if (c == '\\') ++i;
      else if (c == quote || c == '\n') quote = 0;
      continue;
    }
    if (c == '"' || c == '\'') { quote = c; continue; }
    if (c != '-' || i + 1 >= out.size() || out[i + 1] != '-') continue;
    const bool block = out.compare(i + 2, 2, "[[") == 0;
    const std::size_t end = block ? out.find("]]", i + 4) : out.find('\n', i);
    const std::size_t stop = end == std::string::npos ? out.size() : (block ? end + 2 : end);
    for (std::size_t j = i; j < stop; ++j)
      if (out[j] != '\n') out[j] = ' ';
    i = stop - 1;
  }
  return out;
}
}  // namespace

std::vector<std::string> scriptWarnings(std::string_view source, const std::string& scriptName) {
  static constexpr std::pair<std::string_view, std::string_view> kCommands[] = {
      {"FLUSHALL", "deletes every key of every database, not only RateLab's prefix"},
      {"FLUSHDB", "deletes every key of the database, not only RateLab's prefix"},
      {"CONFIG", "reads or changes the server's configuration"}};
  const std::string code = withoutComments(source);
  std::string upper(code.size(), ' ');
  std::transform(code.begin(), code.end(), upper.begin(), [](char c) { return static_cast<char>(std::toupper(static_cast<unsigned char>(c))); });
  std::vector<std::string> out;
  for (const auto& [word, why] : kCommands) {
    for (std::size_t at = upper.find(word); at != std::string::npos; at = upper.find(word, at + 1)) {
      if ((at > 0 && wordChar(upper[at - 1])) || (at + word.size() < upper.size() && wordChar(upper[at + word.size()])))
        continue;
      const auto line = 1 + std::count(upper.begin(), upper.begin() + static_cast<std::ptrdiff_t>(at), '\n');
      out.push_back("warning: script " + scriptName + " line " + std::to_string(line) + " names " + std::string(word) +
                    ", which " + std::string(why) + ": a limiter script should not send it (an ACL user limited to "
                    "the prefix refuses it: ratelab-cli script --acl-user NAME)");
      break;  // one line per command
    }
  }
  return out;
}

Result<std::unique_ptr<RedisScriptStore>> RedisScriptStore::make(const ScriptStoreOptions& o) {
  auto source = readScriptFile(o.file);
  if (!source) return source.error();
  auto keys = ScriptTemplate::parse(o.keys, "--script-keys");
  if (!keys) return keys.error();
  if (keys->size() == 0) return invalidArgument("--script-keys is empty: allowed at least one key, e.g. '{prefix}{client}'");
  if (auto ok = checkKeysInPrefix(*keys, o.keys, o.keysOutsidePrefix); !ok) return ok.error();
  auto argv = ScriptTemplate::parse(o.argv, "--script-argv");
  if (!argv) return argv.error();
  auto reply = ScriptReply::parse(o.reply);
  if (!reply) return reply.error();
  auto link = connectFor(o.redis);
  if (!link) return link.error();
  std::unique_ptr<RedisScriptStore> s(new RedisScriptStore(std::move(link).value(), o.redis));
  s->source_ = std::move(source).value();
  s->file_ = o.file;
  s->scriptName_ = o.file.substr(o.file.rfind('/') == std::string::npos ? 0 : o.file.rfind('/') + 1);
  s->keys_ = std::move(keys).value();
  s->argv_ = std::move(argv).value();
  s->reply_ = std::move(reply).value();
  s->runaway_ = o.runaway ? o.runaway : std::make_shared<RunawayScript>();
  auto loaded = s->link_.forEachMaster([&](RedisConnection& conn) -> Result<void> {
    auto sha = conn.command({"SCRIPT", "LOAD", s->source_});
    if (!sha) {
      if (sha.error().code == ErrorCode::Unavailable) return sha.error();
      return invalidArgument("--script '" + o.file + "' does not load: " + sha.error().message);
    }
    s->sha_ = std::string(sha->str());
    s->busyThreshold_ = busyReplyThreshold(conn);
    return {};
  });
  if (!loaded) return loaded.error();
  return s;
}

Result<std::unique_ptr<Store>> makeRedisBackendStore(Backend backend, const RedisStoreOptions& options,
                                                     const ScriptSettings& script) {
  if (backend != Backend::RedisScript) return makeRedisStore(backend, options);
  ScriptStoreOptions o;
  static_cast<ScriptSettings&>(o) = script;
  o.redis = options;
  auto s = RedisScriptStore::make(o);
  if (!s) return s.error();
  return std::unique_ptr<Store>(std::move(s).value());
}

Error RedisScriptStore::afterTimeout(const RedisEndpoint& node, const Error& timeout) {
  const std::string ms = std::to_string(node.commandTimeout.count() / 1000);
  // Redis reads the kill once the script has run its busy-reply-threshold; a second of slack for a busy machine.
  const ScriptKillOutcome kill = killBusyScript(node, busyThreshold_ + node.commandTimeout + Micros{1'000'000});
  std::string sentence;
  if (kill.result == ScriptKillResult::Killed) {
    sentence = "script " + scriptName_ + " looped: no answer within the " + ms + " ms command timeout, and it was still "
               "running after the server's busy-reply-threshold (" + std::to_string(busyThreshold_.count() / 1000) +
               " ms; other clients got BUSY meanwhile); RateLab sent SCRIPT KILL on a new connection and Redis killed "
               "it; it is not run again in this run (a limiter script must return: fix the loop)";
  } else if (kill.result == ScriptKillResult::Unkillable) {
    sentence = "script " + scriptName_ + " looped after writing: no answer within the " + ms + " ms command timeout, "
               "and Redis refused SCRIPT KILL (UNKILLABLE: a script that wrote cannot be killed), so " + node.address() +
               " answers BUSY to every client until the script ends; only SHUTDOWN NOSAVE stops it, losing the data "
               "not saved, and RateLab does not send that (fix the loop)";
  } else {  // it ended meanwhile, or the server does not answer at all (stopped): an outage, as before
    return Error{timeout.code, "script " + scriptName_ + " failed: " + timeout.message + " (SCRIPT KILL: " +
                                   (kill.result == ScriptKillResult::NotBusy ? "no script was running any more"
                                                                             : kill.detail) + ")"};
  }
  std::lock_guard lock(runaway_->mutex);
  if (!runaway_->verdict) runaway_->verdict = protocolError(sentence);
  return *runaway_->verdict;
}

Result<Decision> RedisScriptStore::decide(const DecisionRequest& req) {
  if (auto ok = req.quota.validate(req.algorithm); !ok) return ok.error();
  if (auto ok = validateCost(req.cost, req.quota); !ok) return ok.error();
  {
    std::lock_guard lock(runaway_->mutex);
    if (runaway_->verdict) return *runaway_->verdict;  // it looped: not run again on the shared Redis
  }
  const auto keys = keys_->expand(req, options_.prefix);
  const auto argv = argv_->expand(req, options_.prefix);
  std::vector<std::string> cmd{"EVALSHA", sha_, std::to_string(keys.size())};
  cmd.insert(cmd.end(), keys.begin(), keys.end());
  cmd.insert(cmd.end(), argv.begin(), argv.end());
  std::optional<RedisEndpoint> node;  // where the script ran (a Cluster master): where SCRIPT KILL goes
  auto r = link_.onKey(keys.empty() ? std::string_view() : std::string_view(keys.front()), [&](RedisConnection& conn) {
    node = conn.endpoint();
    auto reply = conn.command(cmd);
    if (!reply && reply.error().code == ErrorCode::Protocol && reply.error().message.starts_with("NOSCRIPT")) {
      std::vector<std::string> eval = cmd;  // this node lost the script: run the source, load it again
      eval[0] = "EVAL";
      eval[1] = source_;
      reply = conn.command(eval);
      if (auto sha = conn.command({"SCRIPT", "LOAD", source_}); sha) sha_ = std::string(sha->str());
    }
    return reply;
  });
  if (!r && r.error().code == ErrorCode::Timeout && node) return afterTimeout(*node, r.error());
  if (!r) {
    // The one classifier decides: an outage (down, timeout, OOM, READONLY, BUSY) keeps its code and goes
    // through the failure policy; anything else (a Lua error, an unreadable reply) is this script's fault.
    const std::string why = "script " + scriptName_ + " failed: " + r.error().message;
    if (classifyStoreError(r.error()) == StoreErrorClass::Outage) return Error{r.error().code, why};
    return protocolError(why);
  }
  return reply_.read(*r, req.quota, scriptName_);
}

}  // namespace rl
