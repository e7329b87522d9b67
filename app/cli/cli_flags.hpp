#pragma once
// Command-line flags of ratelab-cli: `--name value`, `--name=value` and bare
// switches, checked against the command's list. Bad input is one line on
// stderr naming the flag and what is allowed, and exit code 2.

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "commands.hpp"
#include "common/result.hpp"
#include "redis/script_store.hpp"
#include "storm/storm_spec.hpp"

namespace rl::cli {

/// One flag a command accepts.
struct FlagSpec {
  std::string_view name;  ///< without dashes: "window-ms"
  bool hasValue = true;   ///< false: a switch (--json)
};

/// Parsed flags, in command-line order.
class Flags {
 public:
  /// Parses `args`; positional arguments go to `positional` (error if null and present).
  static Result<Flags> parse(const Args& args, std::span<const FlagSpec> allowed,
                             std::vector<std::string>* positional = nullptr);
  /// True when --name was given.
  bool has(std::string_view name) const;
  /// The last value of --name, if given.
  std::optional<std::string> get(std::string_view name) const;
  /// Every (name, value), in order.
  const std::vector<std::pair<std::string, std::string>>& all() const { return values_; }

 private:
  std::vector<std::pair<std::string, std::string>> values_;  ///< name (no dashes), value ("" for switches)
};

/// The flags shared by run (and, in part, race and bench): every storm setting.
std::vector<FlagSpec> stormFlags();

/// Builds the spec: the --scenario file first, then every storm flag over it.
Result<StormSpec> specFromFlags(const Flags& flags, StormSpec base = {});

/// The flags of the team's own script (--script, --script-keys, --script-argv, --script-reply).
/// Their rows of the settings table.
std::vector<FlagSpec> scriptFlags();

/// The script settings the flags give (defaults for the ones not given), read by the settings table.
Result<ScriptSettings> scriptSettingsFrom(const Flags& flags);

/// Prints scriptWarnings() of `script`'s file on stderr, one line each (nothing when there is no
/// file or it cannot be read: the store names that error).
void printScriptWarnings(const ScriptSettings& script);

/// Prints "ratelab-cli <command>: <message>" on stderr; returns kExitBadInput.
int badInput(std::string_view command, const Error& error);

/// Parses an integer flag value within [lo, hi]; the error names the flag.
Result<std::int64_t> intFlag(const Flags& flags, std::string_view name, std::int64_t fallback,
                             std::int64_t lo, std::int64_t hi);

}  // namespace rl::cli
