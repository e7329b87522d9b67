#pragma once
// Storm settings by name: the one table where a flag (`--window-ms 1000`) or a
// scenario key (`"window_ms": 1000`) becomes a StormSpec field, and where the
// field is written back out. Flags and scenario files share these names (dashes
// in flags, underscores in JSON), so a scenario can say anything a command line
// can. Each row also says what its value allows, once: the form errors here,
// the range errors of validate() and `ratelab-cli run --settings` all print it.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "common/json.hpp"
#include "common/result.hpp"
#include "storm/storm_spec.hpp"

namespace rl {

/// How a setting is given.
enum class SettingForm {
  Value,     ///< `--name VALUE`; `"name": value` (arrays join with commas)
  Switch,    ///< `--name` alone; `"name": true|false`
  Repeated,  ///< `--name VALUE` again and again, each adding one; `"name": [..]`, one per element
};

/// The range validate() checks a numeric setting against; `unit` follows the numbers in messages.
struct SettingRange {
  double lo = 0;
  double hi = 0;
  std::string_view unit;  ///< "ms", "requests/s", or empty
};

/// One row of the table.
struct StormSetting {
  std::string_view name;         ///< underscore form: "window_ms"
  std::string flag;              ///< "window-ms" (given as --window-ms)
  std::string scenarioKey;       ///< "window_ms" (the key of a scenario document; "quota_changes" for quota_change)
  SettingForm form = SettingForm::Value;
  std::string allowed;           ///< what the value may be: "an integer 1 to 64"
  std::optional<SettingRange> range;  ///< numeric settings: checked by validate()
  /// Sets the field from its text; `shownAs` names the setting in the error ("--window-ms" or
  /// "scenario key 'window_ms'"). Values are checked for form here, ranges by validate().
  Result<void> (*apply)(StormSpec& spec, std::string_view text, const std::string& shownAs, const StormSetting& self);
  /// The setting's value in a scenario document, or nullopt when it says nothing (null: never written).
  std::optional<Json> (*print)(const StormSpec& spec);
};

/// Every setting, in the order a scenario document lists them.
std::span<const StormSetting> stormSettings();

/// The row named `name` (underscore form), or null.
const StormSetting* findStormSetting(std::string_view name);

/// True when `key` (underscore form) is a storm setting.
bool isStormSetting(std::string_view key);

/// "1 to 64", "1 to 60000 ms": the row's range as messages print it ("" without one).
std::string rangeText(const StormSetting& setting);

/// Ok when `value` is inside the range of setting `name`; else "--replicas 65 is out of range: allowed
/// 1 to 64". `scale` divides the stored value to the setting's unit (1000 for ms kept as Micros).
Result<void> checkRange(std::string_view name, double value, double scale = 1);

/// Sets one field from its text (`key` in underscore form); see StormSetting::apply.
Result<void> applyStormSetting(StormSpec& spec, std::string_view key, std::string_view text,
                               const std::string& shownAs);

/// Reads a scenario document: every key must be a storm setting's scenario key (or "name",
/// "description", or "window": what only the window uses, read by ui/presets);
/// the error names the first unknown key or bad value.
Result<StormSpec> specFromJson(const Json& doc, StormSpec base = {});

/// Reads a scenario file (see specFromJson); the error names the file.
Result<StormSpec> loadScenario(const std::string& path, StormSpec base = {});

/// A scenario document with every setting of `spec` (round-trips through specFromJson).
Json specToJson(const StormSpec& spec);

/// The table as text, one setting a line: flag, scenario key, what it allows (`run --settings`).
std::string stormSettingsTable();

}  // namespace rl
