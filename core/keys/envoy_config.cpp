#include "keys/envoy_config.hpp"

#include <cctype>

#include <yaml-cpp/yaml.h>

namespace rl {

std::int64_t envoyUnitSeconds(std::string_view unit) {
  if (unit == "second") return 1;
  if (unit == "minute") return 60;
  if (unit == "hour") return 3600;
  if (unit == "day") return 86400;
  if (unit == "week") return 604'800;
  if (unit == "month") return 2'592'000;
  if (unit == "year") return 31'536'000;
  return 0;
}

namespace {
Error badField(const std::string& where, std::string_view what) {
  return invalidArgument(where + ": " + std::string(what));
}

Result<EnvoyLimit> limitOf(const YAML::Node& node, const std::string& where) {
  if (!node.IsMap()) return badField(where, "rate_limit must be a map with unit and requests_per_unit");
  EnvoyLimit l;
  l.unit = node["unit"] ? node["unit"].as<std::string>() : "";
  for (char& c : l.unit) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  l.unitSeconds = envoyUnitSeconds(l.unit);
  if (l.unitSeconds == 0)
    return badField(where, "rate_limit.unit '" + l.unit + "' is not allowed: allowed second, minute, hour, day, week, month, year");
  l.requestsPerUnit = node["requests_per_unit"] ? node["requests_per_unit"].as<std::int64_t>(-1) : -1;
  if (l.requestsPerUnit < 0) return badField(where, "rate_limit.requests_per_unit must be a whole number >= 0");
  return l;
}

Result<std::vector<EnvoyDescriptor>> descriptorsOf(const YAML::Node& list, const std::string& where) {
  std::vector<EnvoyDescriptor> out;
  if (!list) return out;
  if (!list.IsSequence()) return badField(where, "descriptors must be a list");
  for (std::size_t i = 0; i < list.size(); ++i) {
    const YAML::Node d = list[i];
    const std::string here = where + ", descriptor " + std::to_string(i + 1);
    if (!d.IsMap() || !d["key"] || !d["key"].IsScalar()) return badField(here, "each descriptor needs a key");
    EnvoyDescriptor e;
    e.key = d["key"].as<std::string>();
    if (d["value"]) e.value = d["value"].as<std::string>();
    if (d["rate_limit"]) {
      auto l = limitOf(d["rate_limit"], here + " (" + e.key + ")");
      if (!l) return l.error();
      e.limit = *l;
    }
    auto children = descriptorsOf(d["descriptors"], here + " (" + e.key + ")");
    if (!children) return children.error();
    e.children = std::move(*children);
    out.push_back(std::move(e));
  }
  return out;
}
}  // namespace

Result<EnvoyConfig> parseEnvoyConfig(std::string_view yaml) {
  EnvoyConfig config;
  try {
    const std::vector<YAML::Node> docs = YAML::LoadAll(std::string(yaml));
    for (std::size_t i = 0; i < docs.size(); ++i) {
      const std::string where = "document " + std::to_string(i + 1);
      if (docs[i].IsNull()) continue;
      if (!docs[i].IsMap() || !docs[i]["domain"] || !docs[i]["domain"].IsScalar())
        return badField(where, "needs a domain (domain: NAME, descriptors: [...])");
      EnvoyDomain d;
      d.domain = docs[i]["domain"].as<std::string>();
      auto list = descriptorsOf(docs[i]["descriptors"], where + " (domain " + d.domain + ")");
      if (!list) return list.error();
      d.descriptors = std::move(*list);
      config.domains.push_back(std::move(d));
    }
  } catch (const YAML::Exception& e) {
    return invalidArgument(std::string("not valid YAML: ") + e.what());
  }
  if (config.domains.empty()) return invalidArgument("no domain: allowed one document per domain (domain: NAME, descriptors: [...])");
  return config;
}

}  // namespace rl
