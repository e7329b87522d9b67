#include "storm/storm_settings.hpp"

#include <algorithm>
#include <cmath>

#include "common/file_read.hpp"
#include "common/number_text.hpp"

namespace rl {

namespace {
// A range bound as messages print it: whole numbers without an exponent (20000000, not 2e+07).
std::string boundText(double v) {
  if (std::floor(v) == v && std::fabs(v) < 1e15) return std::to_string(static_cast<std::int64_t>(v));
  return numberText(v);
}
}  // namespace

const StormSetting* findStormSetting(std::string_view name) {
  for (const StormSetting& s : stormSettings())
    if (s.name == name) return &s;
  return nullptr;
}

bool isStormSetting(std::string_view key) { return findStormSetting(key) != nullptr; }

std::string rangeText(const StormSetting& setting) {
  if (!setting.range) return {};
  const SettingRange& r = *setting.range;
  return boundText(r.lo) + " to " + boundText(r.hi) + (r.unit.empty() ? "" : " " + std::string(r.unit));
}

Result<void> checkRange(std::string_view name, double value, double scale) {
  const StormSetting* s = findStormSetting(name);
  if (!s || !s->range) return invalidArgument("checkRange: '" + std::string(name) + "' has no range");
  const double v = value / scale;
  if (std::isfinite(v) && v >= s->range->lo && v <= s->range->hi) return {};
  return invalidArgument("--" + s->flag + " " + boundText(v) + " is out of range: allowed " + rangeText(*s));
}

Result<void> applyStormSetting(StormSpec& spec, std::string_view key, std::string_view text, const std::string& shownAs) {
  const StormSetting* s = findStormSetting(key);
  if (!s) return invalidArgument(shownAs + " is not a storm setting");
  return s->apply(spec, text, shownAs, *s);
}

namespace {
// A scenario value as the text a flag would carry (arrays: comma-separated).
Result<std::string> valueText(const Json& v, const std::string& shownAs) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number() || v.is_boolean()) return dumpJson(v);
  if (v.is_array()) {
    std::string out;
    for (const Json& e : v) {
      if (!e.is_string() && !e.is_number()) return invalidArgument(shownAs + ": arrays hold strings or numbers only");
      out += (out.empty() ? "" : ",") + (e.is_string() ? e.get<std::string>() : dumpJson(e));
    }
    return out;
  }
  return invalidArgument(shownAs + ": allowed a string, a number or an array");
}
}  // namespace

Result<StormSpec> specFromJson(const Json& doc, StormSpec spec) {
  if (!doc.is_object()) return invalidArgument("scenario: the document must be a JSON object");
  for (const auto& [docKey, value] : doc.items()) {
    if (docKey == "name" || docKey == "description" || docKey == "window") continue;
    const std::string shownAs = "scenario key '" + docKey + "'";
    const StormSetting* setting = nullptr;
    for (const StormSetting& s : stormSettings())
      if (s.scenarioKey == docKey) setting = &s;
    if (!setting) {
      std::string allowed = "name, description, window";
      for (const StormSetting& s : stormSettings()) allowed += ", " + s.scenarioKey;
      return invalidArgument(shownAs + " is unknown: allowed " + allowed);
    }
    if (setting->form == SettingForm::Repeated && value.is_array()) {  // one per element (they hold commas)
      for (const Json& e : value) {
        if (!e.is_string()) return invalidArgument(shownAs + ": allowed an array of strings, each " + setting->allowed);
        if (auto ok = setting->apply(spec, e.get<std::string>(), shownAs, *setting); !ok) return ok.error();
      }
      continue;
    }
    auto text = valueText(value, shownAs);
    if (!text) return text.error();
    if (auto ok = setting->apply(spec, text.value(), shownAs, *setting); !ok) return ok.error();
  }
  return spec;
}

Result<StormSpec> loadScenario(const std::string& path, StormSpec base) {
  auto text = readWholeFile(path, "--scenario");
  if (!text) return text.error();
  auto doc = parseJson(text.value());
  if (!doc) return invalidArgument("--scenario '" + path + "': " + doc.error().message);
  const std::string scriptBefore = base.script.file;
  auto spec = specFromJson(doc.value(), std::move(base));
  if (!spec) return invalidArgument("--scenario '" + path + "': " + spec.error().message);
  // A script named by the scenario is found next to the scenario file.
  if (spec->script.file != scriptBefore && !spec->script.file.empty() && spec->script.file.front() != '/') {
    const auto slash = path.rfind('/');
    if (slash != std::string::npos) spec->script.file = path.substr(0, slash + 1) + spec->script.file;
  }
  return spec;
}

Json specToJson(const StormSpec& spec) {
  Json doc = Json::object();
  for (const StormSetting& s : stormSettings())
    if (s.print)
      if (auto value = s.print(spec)) doc[s.scenarioKey] = std::move(*value);
  return doc;
}

std::string stormSettingsTable() {
  std::size_t flagWidth = 0;
  for (const StormSetting& s : stormSettings()) flagWidth = std::max(flagWidth, s.flag.size() + 2);
  std::string out = "Every storm setting: its flag, its scenario key, and what it allows.\n";
  for (const StormSetting& s : stormSettings()) {
    std::string flag = "--" + s.flag;
    flag.resize(flagWidth + 2, ' ');
    std::string key = s.scenarioKey + (s.form == SettingForm::Repeated ? " [..]" : "");
    key.resize(std::max<std::size_t>(key.size() + 2, 30), ' ');
    out += flag + key + s.allowed + "\n";
  }
  return out;
}

}  // namespace rl
