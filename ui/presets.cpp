#include "ui/presets.hpp"

#include <QtGlobal>
#include <algorithm>

#include "common/json.hpp"
#include "storm/embedded_scenarios.hpp"
#include "storm/storm_settings.hpp"
#include "ui/qt_text.hpp"

namespace rl::ui {

namespace {
// The "window" object of a scenario: what only the window needs.
Result<void> readWindowKeys(const Json& w, Preset& p, const std::string& where) {
  auto text = [&](const char* key, QString& out) -> Result<void> {
    const auto v = w.find(key);
    if (v == w.end() || !v->is_string() || v->get<std::string>().empty())
      return invalidArgument(where + " 'window." + key + "' is missing: allowed a non-empty string");
    out = qs(v->get<std::string>());
    return {};
  };
  if (auto ok = text("title", p.title); !ok) return ok;
  if (auto ok = text("explanation", p.explanation); !ok) return ok;
  p.order = w.value("order", 0);
  p.runRace = w.value("race", false);
  p.show = qs(w.value("show", std::string()));
  for (const char* moved : {"outage", "compare_policies", "compare_wait_replicas"})
    if (w.contains(moved))
      return invalidArgument(where + " 'window." + moved + "' is no longer read: the experiment's keys are top-level "
                             "(\"fault\": \"kill@A,restart@B\", \"compare_policies\", \"compare_wait_replicas\")");
  return {};
}
}  // namespace

Result<Preset> presetFromScenario(const QString& id, std::string_view json) {
  const std::string where = "scenario '" + id.toStdString() + "'";
  auto doc = parseJson(json);
  if (!doc) return invalidArgument(where + ": " + doc.error().message);
  const auto w = doc->find("window");
  if (w == doc->end() || !w->is_object()) return invalidArgument(where + " has no 'window' object: it is not a preset");
  Preset p;
  p.id = id;
  try {
    if (auto ok = readWindowKeys(*w, p, where); !ok) return ok.error();
  } catch (const Json::exception& e) {  // a key of the wrong type
    return invalidArgument(where + " 'window': " + e.what());
  }
  auto spec = specFromJson(*doc);
  if (!spec) return invalidArgument(where + ": " + spec.error().message);
  p.spec = std::move(*spec);
  if (doc->contains("on_redis_error")) p.policy = p.spec.resilience.onRedisError;
  return p;
}

std::optional<FailurePolicy> Preset::policyFor(const StormSpec& form) const {
  if (!policy) return std::nullopt;
  StormSpec mine = form;
  mine.redisUrl = spec.redisUrl;  // the connection is the machine's
  mine.resilience.onRedisError = spec.resilience.onRedisError;
  if (dumpJson(specToJson(mine)) != dumpJson(specToJson(spec))) return std::nullopt;
  return policy;
}

const std::vector<Preset>& presets() {
  static const std::vector<Preset> all = [] {
    std::vector<Preset> out;
    for (const EmbeddedFile& s : embeddedScenarios()) {
      const QString id = QString::fromLatin1(s.name.data(), static_cast<qsizetype>(s.name.size()));
      auto p = presetFromScenario(id, s.source);
      if (p) out.push_back(std::move(*p));
      else if (!s.source.empty() && s.source.find("\"window\"") != std::string_view::npos)
        qWarning("%s", p.error().message.c_str());  // a broken preset file; test_ui_panels fails on it
    }
    std::stable_sort(out.begin(), out.end(), [](const Preset& a, const Preset& b) { return a.order < b.order; });
    return out;
  }();
  return all;
}

const Preset* findPreset(const QString& id) {
  for (const Preset& p : presets())
    if (p.id == id) return &p;
  return nullptr;
}

QStringList presetIds() {
  QStringList ids;
  for (const Preset& p : presets()) ids << p.id;
  return ids;
}

}  // namespace rl::ui
