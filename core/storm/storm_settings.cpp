#include "storm/storm_settings.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>

#include "common/file_read.hpp"
#include "common/number_text.hpp"

namespace rl {

namespace {

constexpr std::array<std::string_view, 52> kNames = {
    "backend",     "redis",         "algorithm",   "limit",       "window_ms",        "refill_rate",   "replicas",
    "clients",     "requests",      "duration_ms", "concurrency", "pattern",          "rate",          "clock",
    "skew_ms",     "on_redis_error", "seed",       "cost",        "think_ms",         "prefix",        "key_tag",
    "http_target", "http_method",   "http_header", "http_body",   "http_key",         "http_deny_status",
    "script",      "script_keys",   "script_argv", "script_reply", "script_keys_outside_prefix", "compare_backend",  "compare_policies",
    "compare_wait_replicas", "trace",
    "trace_format", "trace_key",    "trace_time",  "trace_filter", "trace_burst",     "strict",        "speed",
    "wait_replicas", "wait_timeout_ms", "read_from", "failover", "fault", "quota_change", "cacert", "insecure",
    "http_timeout_ms"};

// Settings that are switches on the command line (--strict) and booleans in scenarios.
constexpr std::array<std::string_view, 4> kSwitches = {"trace_burst", "strict", "insecure", "script_keys_outside_prefix"};

Error bad(const std::string& shownAs, std::string_view text, const std::string& allowed) {
  return invalidArgument(shownAs + ": '" + std::string(text) + "' is not valid: allowed " + allowed);
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
    if (!parseWholeText(v, ms)) return bad(shownAs, v, "comma-separated integer milliseconds, one per replica");
    s.skew.push_back(Micros{ms * 1000});
  }
  return {};
}

template <class T>
Result<void> setNumber(T& field, std::string_view t, const std::string& shownAs, const std::string& allowed) {
  T v{};
  if (!parseWholeText(t, v)) return bad(shownAs, t, allowed);
  field = v;
  return {};
}

Result<void> setMillis(Micros& field, std::string_view t, const std::string& shownAs, const std::string& allowed) {
  std::int64_t ms = 0;
  if (!parseWholeText(t, ms) || ms < 0 || ms > kYear.count() / 1000) return bad(shownAs, t, allowed);
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

Result<void> setSwitch(bool& field, std::string_view t, const std::string& shownAs) {
  if (t.empty() || t == "true") field = true;
  else if (t == "false") field = false;
  else return bad(shownAs, t, "true or false (a switch on the command line)");
  return {};
}

template <class T>
Result<void> setParsed(T& field, Result<T> parsed) {
  if (!parsed) return parsed.error();
  field = std::move(parsed.value());
  return {};
}

Result<void> setTraceField(StormSpec& s, std::string_view key, std::string_view t, const std::string& shownAs) {
  if (key == "trace") {
    if (t.empty()) return bad(shownAs, t, "a readable log file (plain or .gz)");
    s.trace.path = std::string(t);
    return {};
  }
  if (key == "trace_format") return setParsed(s.trace.format, parseTraceFormat(t));
  if (key == "trace_key") return setParsed(s.trace.key, parseTraceKey(t));
  if (key == "trace_time") return parseTraceTime(t, s.trace);
  if (key == "trace_filter") { s.trace.filter = std::string(t); return {}; }
  if (key == "trace_burst") return setSwitch(s.trace.burst, t, shownAs);
  if (key == "strict") return setSwitch(s.trace.strict, t, shownAs);
  double v = 0;
  if (!parseWholeText(t, v) || v <= 0 || v > 1e6) return bad(shownAs, t, "a factor > 0 and <= 1000000 (wall-clock replay speed)");
  s.speed = v;
  return {};
}

Result<void> setQuotaField(StormSpec& s, std::string_view key, std::string_view t, const std::string& shownAs) {
  if (key == "limit") return setNumber(s.quota.limit, t, shownAs, "an integer 1 to 1000000000000");
  if (key == "window_ms") return setMillis(s.quota.window, t, shownAs, "an integer 1 to 31536000000 (ms)");
  double r = 0;
  if (!parseWholeText(t, r) || r <= 0) return bad(shownAs, t, "a number > 0 and <= 1000000 (tokens per second)");
  s.quota.refillPerSecond = r;
  return {};
}

}  // namespace

std::span<const std::string_view> stormSettingNames() { return kNames; }

bool isStormSetting(std::string_view key) {
  return std::find(kNames.begin(), kNames.end(), key) != kNames.end();
}

bool isSwitchSetting(std::string_view key) {
  return std::find(kSwitches.begin(), kSwitches.end(), key) != kSwitches.end();
}

Result<void> applyStormSetting(StormSpec& s, std::string_view key, std::string_view t, const std::string& shownAs) {
  if (key == "backend")
    return setEnum(s.backend, parseBackend(t), t, shownAs, "memory, redis-lua, redis-naive, redis-watch, redis-script or http");
  if (key == "redis") { s.redisUrl = std::string(t); return {}; }
  if (key == "algorithm") return setAlgorithms(s, t, shownAs);
  if (key == "limit" || key == "window_ms" || key == "refill_rate") return setQuotaField(s, key, t, shownAs);
  if (key == "replicas") return setNumber(s.replicas, t, shownAs, "an integer 1 to 64");
  if (key == "clients") return setNumber(s.clients, t, shownAs, "an integer 1 to 1000000");
  if (key == "requests") {  // 0 is the spec's "not given" (defaults apply): a user's 0 is refused, not defaulted
    const std::string allowed = "an integer 1 to 20000000 (leave it out for the default: twice the limit)";
    if (auto ok = setNumber(s.requests, t, shownAs, allowed); !ok) return ok;
    if (s.requests < 1) return bad(shownAs, t, allowed);
    return {};
  }
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
  if (key == "wait_replicas")
    return setNumber(s.waitReplicas, t, shownAs, "an integer 0 to " + std::to_string(kMaxWaitReplicas));
  if (key == "wait_timeout_ms") return setMillis(s.waitTimeout, t, shownAs, "an integer 1 to 10000 (ms)");
  if (key == "read_from") {
    if (t != "master" && t != "replica") return bad(shownAs, t, "master or replica");
    s.readFromReplica = t == "replica";
    return {};
  }
  if (key == "failover") {
    if (t.empty() || t == "none") { s.failover.reset(); return {}; }
    auto plan = parseFailoverPlan(t);
    if (!plan) return invalidArgument(shownAs + ": " + plan.error().message);
    s.failover = *plan;
    return {};
  }
  if (key == "http_method") { s.httpMethod = std::string(t); return {}; }
  if (key == "http_header") { s.httpHeaders.emplace_back(t); return {}; }  // repeatable: each adds one
  if (key == "http_body") { s.httpBody = std::string(t); return {}; }
  if (key == "http_key") { s.httpKey = std::string(t); return {}; }
  if (key == "cacert") { s.httpCaFile = std::string(t); return {}; }  // https targets: trusted CAs (PEM)
  if (key == "insecure") return setSwitch(s.httpInsecure, t, shownAs);
  if (key == "http_timeout_ms")  // the range is validate()'s (one message for flags, scenarios and the window)
    return setMillis(s.httpTimeout, t, shownAs, "an integer " + std::to_string(kMinHttpTimeoutMs) + " to " +
                                                    std::to_string(kMaxHttpTimeoutMs) + " (ms)");
  if (key == "http_deny_status") {
    s.httpDenyStatus.clear();
    for (std::string_view v : splitList(t)) {
      int st = 0;
      if (!parseWholeText(v, st)) return bad(shownAs, v, "comma-separated HTTP statuses 400 to 599, e.g. 429,503");
      s.httpDenyStatus.push_back(st);
    }
    return {};
  }
  if (key == "script") { s.scriptFile = std::string(t); return {}; }
  if (key == "script_keys") { s.scriptKeys = std::string(t); return {}; }
  if (key == "script_argv") { s.scriptArgv = std::string(t); return {}; }
  if (key == "script_reply") { s.scriptReply = std::string(t); return {}; }
  if (key == "script_keys_outside_prefix") return setSwitch(s.scriptKeysOutsidePrefix, t, shownAs);
  if (key == "compare_backend") {
    s.compareBackends.clear();
    for (std::string_view v : splitList(t)) {
      auto b = parseBackend(v);
      if (!b) return bad(shownAs, v, "comma-separated backends: memory, redis-lua, redis-naive, redis-watch, redis-script");
      s.compareBackends.push_back(*b);
    }
    return {};
  }
  if (key == "compare_policies") {
    s.comparePolicies.clear();
    for (std::string_view v : splitList(t)) {
      auto p = parseFailurePolicy(v);
      if (!p) return bad(shownAs, v, "comma-separated failure policies: " + failurePolicyChoices());
      s.comparePolicies.push_back(*p);
    }
    return {};
  }
  if (key == "compare_wait_replicas") {
    s.compareWaitReplicas.clear();
    for (std::string_view v : splitList(t)) {
      int n = -1;
      if (!parseWholeText(v, n) || n < 0 || n > kMaxWaitReplicas)
        return bad(shownAs, v, "comma-separated replica counts 0 to " + std::to_string(kMaxWaitReplicas));
      s.compareWaitReplicas.push_back(n);
    }
    return {};
  }
  if (key == "http_target") {
    s.httpTargets.clear();
    for (std::string_view v : splitList(t)) s.httpTargets.emplace_back(v);
    return {};
  }
  if (key == "fault") return setParsed(s.faults, parseFaultSchedule(t, shownAs));
  if (key == "quota_change") {  // repeatable: each adds one
    auto change = parseQuotaChange(t, shownAs);
    if (!change) return change.error();
    insertQuotaChange(s.quotaChanges, std::move(change).value());
    return {};
  }
  if (key.rfind("trace", 0) == 0 || key == "strict" || key == "speed") return setTraceField(s, key, t, shownAs);
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
  for (const auto& [docKey, value] : doc.items()) {
    if (docKey == "name" || docKey == "description" || docKey == "window") continue;
    const std::string shownAs = "scenario key '" + docKey + "'";
    // The schedule's array is "quota_changes"; each element is one "quota_change".
    const std::string key = docKey == "quota_changes" ? "quota_change" : docKey;
    if (!isStormSetting(key)) {
      std::string allowed = "name, description, window";
      for (auto n : kNames) allowed += ", " + std::string(n);
      allowed += ", quota_changes";
      return invalidArgument(shownAs + " is unknown: allowed " + allowed);
    }
    if ((key == "http_header" || key == "quota_change") && value.is_array()) {  // one per element (they hold commas)
      for (const Json& e : value) {
        if (!e.is_string())
          return invalidArgument(shownAs + (key == "http_header" ? ": allowed an array of 'Name: value' strings"
                                                                  : ": allowed an array of 'AT_MS:limit=N,...' strings"));
        if (auto ok = applyStormSetting(spec, key, e.get<std::string>(), shownAs); !ok) return ok.error();
      }
      continue;
    }
    auto text = valueText(value, shownAs);
    if (!text) return text.error();
    if (auto ok = applyStormSetting(spec, key, text.value(), shownAs); !ok) return ok.error();
  }
  return spec;
}

Result<StormSpec> loadScenario(const std::string& path, StormSpec base) {
  auto text = readWholeFile(path, "--scenario");
  if (!text) return text.error();
  auto doc = parseJson(text.value());
  if (!doc) return invalidArgument("--scenario '" + path + "': " + doc.error().message);
  const std::string scriptBefore = base.scriptFile;
  auto spec = specFromJson(doc.value(), std::move(base));
  if (!spec) return invalidArgument("--scenario '" + path + "': " + spec.error().message);
  // A script named by the scenario is found next to the scenario file.
  if (spec->scriptFile != scriptBefore && !spec->scriptFile.empty() && spec->scriptFile.front() != '/') {
    const auto slash = path.rfind('/');
    if (slash != std::string::npos) spec->scriptFile = path.substr(0, slash + 1) + spec->scriptFile;
  }
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
  if (s.requests > 0) doc["requests"] = s.requests;  // 0 = not given (duration-driven): left out, as a user would
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
  if (s.readFromReplica) doc["read_from"] = "replica";
  if (s.failover) doc["failover"] = failoverPlanText(*s.failover);
  if (!s.trace.path.empty()) {
    doc["trace"] = s.trace.path;
    doc["trace_format"] = traceFormatText(s.trace.format);
    doc["trace_key"] = traceKeyText(s.trace.key);
    doc["trace_time"] = traceTimeText(s.trace);
    if (!s.trace.filter.empty()) doc["trace_filter"] = s.trace.filter;
    doc["trace_burst"] = s.trace.burst;
    doc["strict"] = s.trace.strict;
    if (s.speed > 0) doc["speed"] = s.speed;
  }
  if (!s.httpTargets.empty()) {
    std::string targets;
    for (const auto& t : s.httpTargets) targets += (targets.empty() ? "" : ",") + t;
    doc["http_target"] = targets;
    doc["http_method"] = s.httpMethod;
    doc["http_header"] = s.httpHeaders;
    if (!s.httpBody.empty()) doc["http_body"] = s.httpBody;
    doc["http_key"] = s.httpKey;
    doc["http_deny_status"] = s.httpDenyStatus;
    if (!s.httpCaFile.empty()) doc["cacert"] = s.httpCaFile;
    if (s.httpInsecure) doc["insecure"] = true;
    doc["http_timeout_ms"] = static_cast<std::int64_t>(s.httpTimeout.count() / 1000);
  }
  if (!s.scriptFile.empty()) {
    doc["script"] = s.scriptFile;
    doc["script_keys"] = s.scriptKeys;
    doc["script_argv"] = s.scriptArgv;
    doc["script_reply"] = s.scriptReply;
    if (s.scriptKeysOutsidePrefix) doc["script_keys_outside_prefix"] = true;
  }
  if (!s.faults.empty()) doc["fault"] = faultScheduleText(s.faults);
  if (!s.quotaChanges.empty()) {
    Json changes = Json::array();
    for (const QuotaChange& c : s.quotaChanges) changes.push_back(quotaChangeText(c));
    doc["quota_changes"] = std::move(changes);
  }
  if (!s.compareBackends.empty()) {
    Json compare = Json::array();
    for (Backend b : s.compareBackends) compare.push_back(backendName(b));
    doc["compare_backend"] = std::move(compare);
  }
  if (!s.comparePolicies.empty()) {
    Json policies = Json::array();
    for (FailurePolicy p : s.comparePolicies) policies.push_back(failurePolicyName(p));
    doc["compare_policies"] = std::move(policies);
  }
  if (!s.compareWaitReplicas.empty()) doc["compare_wait_replicas"] = s.compareWaitReplicas;
  return doc;
}

}  // namespace rl
