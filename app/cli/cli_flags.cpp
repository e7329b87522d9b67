#include "cli_flags.hpp"

#include <charconv>
#include <cstdio>

#include "common/printable_text.hpp"
#include "storm/storm_settings.hpp"

namespace rl::cli {

Result<Flags> Flags::parse(const Args& args, std::span<const FlagSpec> allowed, std::vector<std::string>* positional) {
  Flags out;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a.rfind("--", 0) != 0 || a.size() == 2) {
      if (!positional) return invalidArgument("unexpected argument '" + a + "': allowed only --flags (see --help)");
      positional->push_back(a);
      continue;
    }
    std::string name = a.substr(2);
    std::optional<std::string> value;
    if (const auto eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name.resize(eq);
    }
    const FlagSpec* spec = nullptr;
    for (const FlagSpec& f : allowed)
      if (f.name == name) spec = &f;
    if (!spec) {
      std::string list;
      for (const FlagSpec& f : allowed) list += (list.empty() ? "--" : ", --") + std::string(f.name);
      return invalidArgument("unknown flag --" + name + ": allowed " + list);
    }
    if (spec->hasValue && !value) {
      if (i + 1 >= args.size()) return invalidArgument("--" + name + " needs a value");
      value = args[++i];
    }
    if (!spec->hasValue && value) return invalidArgument("--" + name + " takes no value");
    out.values_.emplace_back(name, value.value_or(""));
  }
  return out;
}

bool Flags::has(std::string_view name) const { return get(name).has_value(); }

std::optional<std::string> Flags::get(std::string_view name) const {
  std::optional<std::string> v;
  for (const auto& [n, value] : values_)
    if (n == name) v = value;
  return v;
}

std::vector<FlagSpec> stormFlags() {
  std::vector<FlagSpec> out;
  for (const StormSetting& s : stormSettings()) out.push_back({s.flag, s.form != SettingForm::Switch});
  out.push_back({"scenario", true});
  return out;
}

Result<StormSpec> specFromFlags(const Flags& flags, StormSpec spec) {
  if (auto file = flags.get("scenario")) {
    auto loaded = loadScenario(*file, spec);
    if (!loaded) return loaded.error();
    spec = std::move(loaded.value());
  }
  for (const auto& [name, value] : flags.all()) {
    std::string key = name;
    for (char& c : key)
      if (c == '-') c = '_';
    if (!isStormSetting(key)) continue;
    if (auto ok = applyStormSetting(spec, key, value, "--" + name); !ok) return ok.error();
  }
  return spec;
}

namespace {
bool isScriptSetting(const StormSetting& s) { return s.name == "script" || s.name.starts_with("script_"); }
}  // namespace

std::vector<FlagSpec> scriptFlags() {
  std::vector<FlagSpec> out;
  for (const StormSetting& s : stormSettings())
    if (isScriptSetting(s)) out.push_back({s.flag, s.form != SettingForm::Switch});
  return out;
}

Result<ScriptSettings> scriptSettingsFrom(const Flags& flags) {
  StormSpec spec;
  for (const StormSetting& s : stormSettings())
    if (auto value = flags.get(s.flag); value && isScriptSetting(s))
      if (auto ok = s.apply(spec, *value, "--" + s.flag, s); !ok) return ok.error();
  return spec.script;
}

void printScriptWarnings(const ScriptSettings& script) {
  if (script.file.empty()) return;
  auto text = readScriptFile(script.file);
  if (!text) return;
  const std::string name = script.file.substr(script.file.rfind('/') == std::string::npos ? 0 : script.file.rfind('/') + 1);
  for (const std::string& line : scriptWarnings(*text, name)) std::fprintf(stderr, "%s\n", printableText(line).c_str());
}

int badInput(std::string_view command, const Error& error) {
  std::fprintf(stderr, "ratelab-cli %.*s: %s\n", static_cast<int>(command.size()), command.data(),
               printableText(error.message).c_str());  // may quote trace keys, Redis names and values
  return kExitBadInput;
}

Result<std::int64_t> intFlag(const Flags& flags, std::string_view name, std::int64_t fallback, std::int64_t lo,
                             std::int64_t hi) {
  const auto text = flags.get(name);
  if (!text) return fallback;
  std::int64_t v = 0;
  auto [p, ec] = std::from_chars(text->data(), text->data() + text->size(), v);
  if (ec != std::errc{} || p != text->data() + text->size() || v < lo || v > hi)
    return invalidArgument("--" + std::string(name) + ": '" + *text + "' is not valid: allowed an integer " +
                           std::to_string(lo) + " to " + std::to_string(hi));
  return v;
}

}  // namespace rl::cli
