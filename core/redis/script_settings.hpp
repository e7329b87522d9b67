#pragma once
// ScriptSettings: the user's Lua limiter and how it is called (--script,
// --script-keys, --script-argv, --script-reply), as a StormSpec holds it and a
// ScriptStore runs it (redis/script_store.hpp).

#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "common/result.hpp"

namespace rl {

/// A run's verdict on its user script, shared by its stores: set once the script looped.
struct RunawayScript {
  std::mutex mutex;             ///< guards verdict
  std::optional<Error> verdict;  ///< the sentence every later decision returns
};

/// The user's script and how it is called (--script, --script-keys, --script-argv, --script-reply).
struct ScriptSettings {
  std::string file;            ///< the Lua file
  std::string keys = "{prefix}{client}";                  ///< KEYS template
  std::string argv = "{limit} {refill_rate} {now_s} {cost}";  ///< ARGV template
  std::string reply = "allowed";  ///< names of the reply's elements (more may follow unnamed)
  bool keysOutsidePrefix = false;  ///< --script-keys-outside-prefix: allow KEYS that do not start with {prefix}
  std::shared_ptr<RunawayScript> runaway{};  ///< shared by one run's stores (null: each store its own)
};

}  // namespace rl
