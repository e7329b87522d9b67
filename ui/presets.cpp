#include "ui/presets.hpp"

#include <QtGlobal>
#include <algorithm>

#include "common/json.hpp"
#include "storm/embedded_scenarios.hpp"
#include "storm/storm_settings.hpp"

namespace rl::ui {

namespace {
QString qs(const std::string& s) { return QString::fromStdString(s); }

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
  if (const auto o = w.find("outage"); o != w.end()) {
    const int stop = o->value("stop_at_ms", -1), restart = o->value("restart_at_ms", -1);
    if (stop < 0 || restart <= stop)
      return invalidArgument(where + " 'window.outage': allowed {\"stop_at_ms\": A, \"restart_at_ms\": B} with 0 <= A < B");
    p.outage = OutagePlan{stop, restart};
  }
  if (const auto c = w.find("compare_policies"); c != w.end()) {
    const std::string allowed = " 'window.compare_policies': allowed an array of " + failurePolicyChoices();
    if (!c->is_array() || c->empty()) return invalidArgument(where + allowed);
    for (const Json& v : *c) {
      const auto policy = v.is_string() ? parseFailurePolicy(v.get<std::string>()) : std::nullopt;
      if (!policy) return invalidArgument(where + allowed);
      p.policies.push_back(*policy);
    }
  }
  if (const auto c = w.find("compare_wait_replicas"); c != w.end()) {
    const std::string allowed =
        " 'window.compare_wait_replicas': allowed an array of replica counts 0 to " + std::to_string(kMaxWaitReplicas);
    if (!c->is_array() || c->empty()) return invalidArgument(where + allowed);
    for (const Json& v : *c) {
      if (!v.is_number_integer() || v.get<int>() < 0 || v.get<int>() > kMaxWaitReplicas) return invalidArgument(where + allowed);
      p.waitReplicas.push_back(v.get<int>());
    }
  }
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
  if (doc->contains("on_redis_error")) p.policy = p.spec.onRedisError;
  return p;
}

std::optional<FailurePolicy> Preset::policyFor(const StormSpec& form) const {
  if (!policy) return std::nullopt;
  StormSpec mine = form;
  mine.redisUrl = spec.redisUrl;  // the connection is the machine's
  mine.onRedisError = spec.onRedisError;
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
