// Envoy's ratelimit service (envoyproxy/ratelimit): a domain and a tree of
// descriptors, each with an optional rate_limit {unit, requests_per_unit} and
// shadow_mode. The service counts per unit of clock time (unix time / unit),
// which is RateLab's aligned fixed_window. Read with yaml-cpp.
#include <cmath>
#include <yaml-cpp/yaml.h>

#include "dialects/dialect_detail.hpp"
#include "dialects/dialect_text.hpp"

namespace rl::dialect {

namespace {
constexpr std::string_view kName = "envoy";

struct Unit {
  std::string_view name;
  std::int64_t seconds;
};
constexpr Unit kUnits[] = {{"second", 1},      {"minute", 60},        {"hour", 3600},       {"day", 86400},
                           {"week", 604800}, {"month", 2'592'000}, {"year", 31'536'000}};
constexpr std::string_view kUnitNames = "second, minute, hour, day, week, month or year";

struct Walk {
  std::vector<DialectQuota> out;
  std::vector<std::string> unlimited;
};

std::string scalarText(const YAML::Node& n) { return n.IsScalar() ? n.Scalar() : std::string("(not a value)"); }

Result<void> readRateLimit(const YAML::Node& rl, const std::string& path, bool shadow, Walk& walk) {
  if (!rl.IsMap()) return tokenError(kName, path + ".rate_limit", "a map with unit and requests_per_unit");
  if (rl["unlimited"] && scalarText(rl["unlimited"]) == "true") {
    walk.unlimited.push_back("descriptor " + path + " is unlimited: never limited");
    return {};
  }
  const std::string unit = rl["unit"] ? lower(scalarText(rl["unit"])) : "";
  const Unit* u = nullptr;
  for (const Unit& c : kUnits)
    if (c.name == unit) u = &c;
  if (!u) return tokenError(kName, "unit: " + (rl["unit"] ? scalarText(rl["unit"]) : std::string("(missing)")), kUnitNames);
  const auto n = rl["requests_per_unit"] ? wholeNumber(scalarText(rl["requests_per_unit"])) : std::nullopt;
  if (!n || *n < 1)
    return tokenError(kName, "requests_per_unit: " + (rl["requests_per_unit"] ? scalarText(rl["requests_per_unit"]) : std::string("(missing)")),
                      "a whole number >= 1");
  DialectQuota d;
  d.name = path;
  d.algorithm = Algorithm::FixedWindow;
  d.quota = Quota::perWindow(*n, u->seconds * kSecond);
  if (shadow) d.unmodeled.push_back("shadow_mode: true: over-limit requests are counted but allowed (only metrics)");
  for (const auto& kv : rl) {
    const std::string k = kv.first.Scalar();
    if (k == "replaces")
      d.unmodeled.push_back("rate_limit.replaces: this limit replaces others by name; RateLab applies each alone");
    else if (k != "unit" && k != "requests_per_unit" && k != "unlimited")
      d.notes.push_back("rate_limit." + k + ": read, not a decision setting");
  }
  if (auto ok = checkQuota(kName, path, d.algorithm, d.quota); !ok) return ok;
  walk.out.push_back(std::move(d));
  return {};
}

Result<void> readDescriptors(const YAML::Node& list, const std::string& prefix, Walk& walk, int depth) {
  if (!list.IsSequence()) return tokenError(kName, prefix + "descriptors", "a list of descriptors (- key: ...)");
  if (depth > 16) return tokenError(kName, prefix, "descriptors nested at most 16 deep");
  for (const auto& d : list) {
    if (!d.IsMap() || !d["key"] || !d["key"].IsScalar())
      return tokenError(kName, prefix + "descriptors", "each descriptor a map with key: NAME");
    std::string path = prefix + d["key"].Scalar();
    if (d["value"]) path += "=" + scalarText(d["value"]);
    const bool shadow = d["shadow_mode"] && scalarText(d["shadow_mode"]) == "true";
    if (d["rate_limit"])
      if (auto ok = readRateLimit(d["rate_limit"], path, shadow, walk); !ok) return ok;
    if (d["descriptors"])
      if (auto ok = readDescriptors(d["descriptors"], path + " / ", walk, depth + 1); !ok) return ok;
    for (const auto& kv : d) {
      const std::string k = kv.first.Scalar();
      if (k != "key" && k != "value" && k != "rate_limit" && k != "descriptors" && k != "shadow_mode" && !walk.out.empty())
        walk.out.back().notes.push_back(k + " (descriptor " + path + "): read, not modeled");
    }
  }
  return {};
}
}  // namespace

Result<std::vector<DialectQuota>> parseEnvoy(std::string_view text) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    return tokenError(kName, "line " + std::to_string(e.mark.line + 1) + ", column " + std::to_string(e.mark.column + 1),
                      "YAML (" + e.msg + ")");
  }
  try {
    if (!root.IsMap() || !root["domain"] || !root["descriptors"])
      return tokenError(kName, trim(text).substr(0, 40), "a map with domain: NAME and descriptors: [...]");
    Walk walk;
    if (auto ok = readDescriptors(root["descriptors"], "domain " + scalarText(root["domain"]) + ": ", walk, 0); !ok)
      return ok.error();
    if (walk.out.empty()) return tokenError(kName, "descriptors", "at least one descriptor with a rate_limit");
    for (auto& d : walk.out) d.notes.insert(d.notes.end(), walk.unlimited.begin(), walk.unlimited.end());
    return walk.out;
  } catch (const YAML::Exception& e) {
    return tokenError(kName, "line " + std::to_string(e.mark.line + 1), "a descriptor map (" + e.msg + ")");
  }
}

Emitted emitEnvoy(Algorithm a, const Quota& q) {
  Emitted e;
  // The window a rate algorithm refills its whole limit in, then the unit closest to it.
  const double windowS = windowSeconds(a, q);
  const Unit* best = &kUnits[0];
  for (const Unit& u : kUnits)
    if (std::abs(std::log(static_cast<double>(u.seconds) / windowS)) < std::abs(std::log(static_cast<double>(best->seconds) / windowS)))
      best = &u;
  const auto perUnit = std::max<std::int64_t>(1, std::llround(static_cast<double>(q.limit) * static_cast<double>(best->seconds) / windowS));
  if (isRateBased(a)) e.differences.push_back(windowVersusRate(a, "Envoy's ratelimit service"));
  else if (a != Algorithm::FixedWindow)
    e.differences.push_back(std::string(algorithmName(a)) + " slides its window; Envoy counts per aligned " +
                            std::string(best->name) + ": up to twice the limit across a boundary");
  if (std::abs(windowS - static_cast<double>(best->seconds)) > 1e-9)
    e.differences.push_back("Envoy's units are " + std::string(kUnitNames) + ": " + std::to_string(perUnit) + " per " +
                            std::string(best->name) + " (about the same rate), not " + std::to_string(q.limit) +
                            " per " + windowPhrase(Micros{std::llround(windowS * 1e6)}));
  e.text = "domain: ratelab\ndescriptors:\n  - key: generic_key\n    value: ratelab\n    rate_limit:\n      unit: " +
           std::string(best->name) + "\n      requests_per_unit: " + std::to_string(perUnit) + "\n";
  return e;
}

}  // namespace rl::dialect
