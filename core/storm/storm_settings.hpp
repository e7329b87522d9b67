#pragma once
// Storm settings by name: the one place where a flag (`--window-ms 1000`) or a
// scenario key (`"window_ms": 1000`) becomes a StormSpec field. Flags and
// scenario files share these names (dashes in flags, underscores in JSON), so
// a scenario can say anything a command line can.

#include <span>
#include <string>
#include <string_view>

#include "common/json.hpp"
#include "common/result.hpp"
#include "storm/storm_spec.hpp"

namespace rl {

/// Every setting name, underscore form ("window_ms", ...).
std::span<const std::string_view> stormSettingNames();

/// True when `key` (underscore form) is a storm setting.
bool isStormSetting(std::string_view key);

/// True when `key` is a switch on the command line (`--strict`, `--trace-burst`; true/false in scenarios).
bool isSwitchSetting(std::string_view key);

/// Sets one field from its text (`key` in underscore form). `shownAs` names the
/// setting in the error ("--window-ms" or "scenario key 'window_ms'"); the
/// error says what is allowed. Values are checked for form here, ranges by validate().
Result<void> applyStormSetting(StormSpec& spec, std::string_view key, std::string_view text,
                               const std::string& shownAs);

/// Reads a scenario document: every key must be a storm setting (or "name",
/// "description", or "window": what only the window uses, read by ui/presets);
/// the error names the first unknown key or bad value.
Result<StormSpec> specFromJson(const Json& doc, StormSpec base = {});

/// Reads a scenario file (see specFromJson); the error names the file.
Result<StormSpec> loadScenario(const std::string& path, StormSpec base = {});

/// A scenario document with every setting of `spec` (round-trips through specFromJson).
Json specToJson(const StormSpec& spec);

}  // namespace rl
