#include "storm/storm_settings.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>

namespace rl {

namespace {

constexpr std::array<std::string_view, 25> kNames = {
    "backend", "redis",       "algorithm", "limit",          "window_ms", "refill_rate", "replicas", "clients",
    "requests", "duration_ms", "concurrency", "pattern",      "rate",      "clock",       "skew_ms",  "on_redis_error",
    "seed",    "cost",        "think_ms",  "prefix",         "key_tag",   "http_target", "wait_replicas",
    "wait_timeout_ms", "failover"};

Error bad(const std::string& shownAs, std::string_view text, const std::string& allowed) {
  return invalidArgument(shownAs + ": '" + std::string(text) + "' is not valid: allowed " + allowed);
}

template <class T>
bool parseWhole(std::string_view t, T& out) {
  if (t.empty()) return false;
  if constexpr (std::is_floating_point_v<T>) {
    auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), out);
    return ec == std::errc{} && p == t.data() + t.size() && std::isfinite(out);
  } else {
    auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), out);
    return ec == std::errc{} && p == t.data() + t.size();
  }
}

std::vector<std::string_view> splitList(std::string_view t) {
  std::vector<std::string_view> out;
  while (true) {
    const auto comma = t.find(',');
    out.push_back(t.substr(0, comma));
    if (comma == std::string_view::npos) break;
    t.remove_prefix(comma + 1);
  }
  return out;
}

Result<void> setAlgorithms(StormSpec& s, std::string_view t, const std::string& shownAs) {
  const std::string allowed = "fixed_window, sliding_log, sliding_counter, token_bucket, leaky_bucket, gcra "
                              "(comma-separated) or all";
  s.algorithms.clear();
  if (t == "all") {
    s.algorithms.assign(kAllAlgorithms.begin(), kAllAlgorithms.end());
    return {};
  }
  for (std::string_view name : splitList(t)) {
    auto a = parseAlgorithm(name);
    if (!a) return bad(shownAs, name, allowed);
    s.algorithms.push_back(*a);
  }
  return {};
}

Result<void> setSkew(StormSpec& s, std::string_view t, const std::string& shownAs) {
  s.skew.clear();
  if (t.empty()) return {};
  for (std::string_view v : splitList(t)) {
    std::int64_t ms = 0;
    if (!parseWhole(v, ms)) return bad(shownAs, v, "comma-separated integer milliseconds, one per replica");
    s.skew.push_back(Micros{ms * 1000});
  }
  return {};
}

template <class T>
Result<void> setNumber(T& field, std::string_view t, const std::string& shownAs, const std::string& allowed) {
  T v{};
  if (!parseWhole(t, v)) return bad(shownAs, t, allowed);
  field = v;
  return {};
}

Result<void> setMillis(Micros& field, std::string_view t, const std::string& shownAs, const std::string& allowed) {
  std::int64_t ms = 0;
  if (!parseWhole(t, ms) || ms < 0 || ms > kYear.count() / 1000) return bad(shownAs, t, allowed);
  field = Micros{ms * 1000};
  return {};
}

template <class E>
Result<void> setEnum(E& field, std::optional<E> parsed, std::string_view t, const std::string& shownAs,
                     const std::string& allowed) {
  if (!parsed) return bad(shownAs, t, allowed);
  field = *parsed;
  return {};
}

Result<void> setQuotaField(StormSpec& s, std::string_view key, std::string_view t, const std::string& shownAs) {
  if (key == "limit") return setNumber(s.quota.limit, t, shownAs, "an integer 1 to 1000000000000");
  if (key == "window_ms") return setMillis(s.quota.window, t, shownAs, "an integer 1 to 31536000000 (ms)");
  double r = 0;
  if (!parseWhole(t, r) || r <= 0) return bad(shownAs, t, "a number > 0 and <= 1000000 (tokens per second)");
  s.quota.refillPerSecond = r;
  return {};
}

}  // namespace

std::span<const std::string_view> stormSettingNames() { return kNames; }

bool isStormSetting(std::string_view key) {
  return std::find(kNames.begin(), kNames.end(), key) != kNames.end();
}

Result<void> applyStormSetting(StormSpec& s, std::string_view key, std::string_view t, const std::string& shownAs) {
  if (key == "backend")
    return setEnum(s.backend, parseBackend(t), t, shownAs, "memory, redis-lua, redis-naive, redis-watch or http");
  if (key == "redis") { s.redisUrl = std::string(t); return {}; }
  if (key == "algorithm") return setAlgorithms(s, t, shownAs);
  if (key == "limit" || key == "window_ms" || key == "refill_rate") return setQuotaField(s, key, t, shownAs);
  if (key == "replicas") return setNumber(s.replicas, t, shownAs, "an integer 1 to 64");
  if (key == "clients") return setNumber(s.clients, t, shownAs, "an integer 1 to 1000000");
  if (key == "requests") return setNumber(s.requests, t, shownAs, "an integer 1 to 20000000");
  if (key == "duration_ms") return setMillis(s.duration, t, shownAs, "an integer 0 to 31536000000 (ms)");
  if (key == "concurrency") return setNumber(s.concurrency, t, shownAs, "an integer 1 to 512");
  if (key == "pattern")
    return setEnum(s.pattern, parsePattern(t), t, shownAs, "burst, constant, boundary, ramp or poisson");
  if (key == "rate") return setNumber(s.rate, t, shownAs, "a number 0 to 10000000 (requests per second)");
  if (key == "clock") return setEnum(s.clock, parseClockMode(t), t, shownAs, "server, client or virtual");
  if (key == "skew_ms") return setSkew(s, t, shownAs);
  if (key == "on_redis_error")
    return setEnum(s.onRedisError, parseFailurePolicy(t), t, shownAs, failurePolicyChoices());
  if (key == "seed") return setNumber(s.seed, t, shownAs, "an unsigned integer");
  if (key == "cost") return setNumber(s.cost, t, shownAs, "an integer 1 to the limit");
  if (key == "think_ms") return setMillis(s.thinkTime, t, shownAs, "an integer 0 to 10000 (ms)");
  if (key == "prefix") { s.prefix = std::string(t); return {}; }
  if (key == "key_tag") { s.keyTag = std::string(t); return {}; }
  if (key == "wait_replicas") return setNumber(s.waitReplicas, t, shownAs, "an integer 0 to 100");
  if (key == "wait_timeout_ms") return setMillis(s.waitTimeout, t, shownAs, "an integer 1 to 10000 (ms)");
  if (key == "failover") {
    if (t.empty() || t == "none") { s.failover.reset(); return {}; }
    auto plan = parseFailoverPlan(t);
    if (!plan) return invalidArgument(shownAs + ": " + plan.error().message);
    s.failover = *plan;
    return {};
  }
  if (key == "http_target") {
    s.httpTargets.clear();
    for (std::string_view v : splitList(t)) s.httpTargets.emplace_back(v);
    return {};
  }
  return invalidArgument(shownAs + " is not a storm setting");
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
  for (const auto& [key, value] : doc.items()) {
    if (key == "name" || key == "description" || key == "window") continue;  // "window": settings of the GUI only
    const std::string shownAs = "scenario key '" + key + "'";
    if (!isStormSetting(key)) {
      std::string allowed = "name, description";
      for (auto n : kNames) allowed += ", " + std::string(n);
      allowed += ", window (settings of the window only)";
      return invalidArgument(shownAs + " is unknown: allowed " + allowed);
    }
    auto text = valueText(value, shownAs);
    if (!text) return text.error();
    if (auto ok = applyStormSetting(spec, key, text.value(), shownAs); !ok) return ok.error();
  }
  return spec;
}

Result<StormSpec> loadScenario(const std::string& path, StormSpec base) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return invalidArgument("--scenario: cannot read '" + path + "': allowed a readable JSON file");
  std::stringstream buf;
  buf << in.rdbuf();
  auto doc = parseJson(buf.str());
  if (!doc) return invalidArgument("--scenario '" + path + "': " + doc.error().message);
  auto spec = specFromJson(doc.value(), std::move(base));
  if (!spec) return invalidArgument("--scenario '" + path + "': " + spec.error().message);
  return spec;
}

Json specToJson(const StormSpec& s) {
  Json doc;
  Json algos = Json::array();
  for (Algorithm a : s.algorithms) algos.push_back(algorithmName(a));
  doc["backend"] = backendName(s.backend);
  doc["algorithm"] = std::move(algos);
  doc["limit"] = s.quota.limit;
  doc["window_ms"] = static_cast<std::int64_t>(s.quota.window.count() / 1000);
  if (s.quota.refillPerSecond) doc["refill_rate"] = *s.quota.refillPerSecond;
  doc["replicas"] = s.replicas;
  doc["clients"] = s.clients;
  doc["requests"] = s.requests;
  doc["duration_ms"] = static_cast<std::int64_t>(s.duration.count() / 1000);
  doc["concurrency"] = s.concurrency;
  doc["pattern"] = patternName(s.pattern);
  doc["rate"] = s.rate;
  doc["clock"] = clockModeName(s.clock);
  Json skew = Json::array();
  for (Micros k : s.skew) skew.push_back(static_cast<std::int64_t>(k.count() / 1000));
  doc["skew_ms"] = std::move(skew);
  doc["on_redis_error"] = failurePolicyName(s.onRedisError);
  doc["seed"] = static_cast<std::int64_t>(s.seed);
  doc["cost"] = s.cost;
  doc["think_ms"] = static_cast<std::int64_t>(s.thinkTime.count() / 1000);
  doc["prefix"] = s.prefix;
  if (!s.redisUrl.empty()) doc["redis"] = s.redisUrl;
  if (s.waitReplicas > 0) {
    doc["wait_replicas"] = s.waitReplicas;
    doc["wait_timeout_ms"] = static_cast<std::int64_t>(s.waitTimeout.count() / 1000);
  }
  if (s.failover) doc["failover"] = failoverPlanText(*s.failover);
  return doc;
}

}  // namespace rl
