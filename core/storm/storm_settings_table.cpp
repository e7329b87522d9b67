// The storm settings table (storm_settings.hpp): one row per setting, with
// what it allows, how its text sets the StormSpec and how the spec prints it.

#include <algorithm>
#include <cmath>
#include <vector>

#include "common/number_text.hpp"
#include "storm/storm_settings.hpp"

namespace rl {

namespace {

using Apply = Result<void> (*)(StormSpec&, std::string_view, const std::string&, const StormSetting&);
using Print = std::optional<Json> (*)(const StormSpec&);
using enum SettingForm;

// What a switch allows, as a scenario value (on the command line it takes none).
constexpr std::string_view kSwitchAllowed = "true or false (a switch on the command line)";

Error bad(const std::string& shownAs, std::string_view text, const StormSetting& self) {
  return invalidArgument(shownAs + ": '" + std::string(text) + "' is not valid: allowed " + self.allowed);
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

std::string dashed(std::string_view name) {
  std::string s(name);
  std::replace(s.begin(), s.end(), '_', '-');
  return s;
}

StormSetting row(std::string_view name, std::string allowed, Apply apply, Print print, SettingForm form = Value,
                 std::optional<SettingRange> range = {}) {
  StormSetting s{name, dashed(name), std::string(name), form, std::move(allowed), range, apply, print};
  if (form == Switch) s.allowed = kSwitchAllowed;  // every switch allows the same
  return s;
}

// A numeric setting with a range: its text says "an integer" (or "a number") and the range, plus `note`.
StormSetting ranged(std::string_view name, std::string_view kind, SettingRange range, Apply apply, Print print,
                    std::string_view note = "") {
  StormSetting s = row(name, "", apply, print, Value, range);
  s.allowed = std::string(kind) + " " + rangeText(s) + std::string(note);
  return s;
}

template <class T>
Result<void> setNumber(T& field, std::string_view t, const std::string& shownAs, const StormSetting& self) {
  T v{};
  if (!parseWholeText(t, v)) return bad(shownAs, t, self);
  field = v;
  return {};
}

// Milliseconds kept as Micros; the form check stops a product overflowing (validate() checks the range).
Result<void> setMillis(Micros& field, std::string_view t, const std::string& shownAs, const StormSetting& self) {
  std::int64_t ms = 0;
  if (!parseWholeText(t, ms) || ms < 0 || ms > kYear.count() / 1000) return bad(shownAs, t, self);
  field = Micros{ms * 1000};
  return {};
}

template <class E>
Result<void> setEnum(E& field, std::optional<E> parsed, std::string_view t, const std::string& shownAs,
                     const StormSetting& self) {
  if (!parsed) return bad(shownAs, t, self);
  field = *parsed;
  return {};
}

Result<void> setSwitch(bool& field, std::string_view t, const std::string& shownAs, const StormSetting& self) {
  if (t.empty() || t == "true") field = true;
  else if (t == "false") field = false;
  else return bad(shownAs, t, self);
  return {};
}

template <class T>
Result<void> setParsed(T& field, Result<T> parsed) {
  if (!parsed) return parsed.error();
  field = std::move(parsed.value());
  return {};
}

// A comma-separated list, each element parsed by `one` (nullopt: not allowed).
template <class T, class F>
Result<void> setList(std::vector<T>& field, std::string_view t, const std::string& shownAs, const StormSetting& self,
                     F one) {
  field.clear();
  for (std::string_view v : splitList(t)) {
    std::optional<T> e = one(v);
    if (!e) return bad(shownAs, v, self);
    field.push_back(*e);
  }
  return {};
}

std::optional<Json> ms(Micros m) { return static_cast<std::int64_t>(m.count() / 1000); }

template <class T, class F>
std::optional<Json> names(const std::vector<T>& values, F name) {
  Json out = Json::array();
  for (const T& v : values) out.push_back(name(v));
  return out;
}

std::string algorithmChoices() {
  std::string s;
  for (Algorithm a : kAllAlgorithms) s += (s.empty() ? "" : ", ") + std::string(algorithmName(a));
  return s + " (comma-separated) or all";
}

// The trace settings print only with a trace; the HTTP ones with a target; the script ones with a script.
bool traced(const StormSpec& s) { return !s.trace.path.empty(); }
bool http(const StormSpec& s) { return !s.http.targets.empty(); }
bool scripted(const StormSpec& s) { return !s.script.file.empty(); }

std::vector<StormSetting> buildTable() {
  std::vector<StormSetting> t;
  // What decides, and where.
  t.push_back(row("backend", backendChoices(),
                  [](auto& s, auto v, auto& as, auto& me) { return setEnum(s.backend, parseBackend(v), v, as, me); },
                  [](auto& s) -> std::optional<Json> { return backendName(s.backend); }));
  t.push_back(row("redis", "redis://[user:password@]host:port[/db], redis+cluster://host:port[,host:port..], "
                           "redis+sentinel://host:port[,..]/service[/db], managed, cluster or sentinel",
                  [](auto& s, auto v, auto&, auto&) -> Result<void> { s.redisUrl = std::string(v); return {}; },
                  [](auto& s) -> std::optional<Json> { if (s.redisUrl.empty()) return {}; return s.redisUrl; }));
  t.push_back(row("algorithm", algorithmChoices(),
                  [](auto& s, auto v, auto& as, auto& me) -> Result<void> {
                    if (v == "all") { s.algorithms.assign(kAllAlgorithms.begin(), kAllAlgorithms.end()); return {}; }
                    return setList(s.algorithms, v, as, me, [](std::string_view n) { return parseAlgorithm(n); });
                  },
                  [](auto& s) { return names(s.algorithms, [](Algorithm a) { return algorithmName(a); }); }));
  // The quota (its ranges are Quota's own, limiter/quota.hpp).
  t.push_back(row("limit", "an integer 1 to 1000000000000",
                  [](auto& s, auto v, auto& as, auto& me) { return setNumber(s.quota.limit, v, as, me); },
                  [](auto& s) -> std::optional<Json> { return s.quota.limit; }));
  t.push_back(row("window_ms", "an integer 1 to 31536000000 (ms)",
                  [](auto& s, auto v, auto& as, auto& me) { return setMillis(s.quota.window, v, as, me); },
                  [](auto& s) { return ms(s.quota.window); }));
  t.push_back(row("refill_rate", "a number > 0 and <= 1000000 (tokens per second)",
                  [](auto& s, auto v, auto& as, auto& me) -> Result<void> {
                    double r = 0;
                    if (!parseWholeText(v, r) || r <= 0) return bad(as, v, me);
                    s.quota.refillPerSecond = r;
                    return {};
                  },
                  [](auto& s) -> std::optional<Json> { if (!s.quota.refillPerSecond) return {}; return *s.quota.refillPerSecond; }));
  t.push_back(row("cost", "an integer 1 to the limit",
                  [](auto& s, auto v, auto& as, auto& me) { return setNumber(s.cost, v, as, me); },
                  [](auto& s) -> std::optional<Json> { return s.cost; }));
  // The traffic.
  t.push_back(ranged("replicas", "an integer", {1, 64, ""},
                     [](auto& s, auto v, auto& as, auto& me) { return setNumber(s.replicas, v, as, me); },
                     [](auto& s) -> std::optional<Json> { return s.replicas; }));
  t.push_back(ranged("clients", "an integer", {1, 1'000'000, ""},
                     [](auto& s, auto v, auto& as, auto& me) { return setNumber(s.clients, v, as, me); },
                     [](auto& s) -> std::optional<Json> { return s.clients; }));
  // 0 is the spec's "not given" (defaults apply): a user's 0 is refused, not defaulted.
  t.push_back(ranged("requests", "an integer", {1, 20'000'000, ""},
                     [](auto& s, auto v, auto& as, auto& me) -> Result<void> {
                       if (auto ok = setNumber(s.requests, v, as, me); !ok) return ok;
                       if (s.requests < 1) return bad(as, v, me);
                       return {};
                     },
                     [](auto& s) -> std::optional<Json> { if (s.requests <= 0) return {}; return s.requests; },
                     " (leave it out for the default: twice the limit)"));
  // Recorded times are 40-bit (storm/decision_record.hpp): a run spans at most 12 days.
  t.push_back(ranged("duration_ms", "an integer", {0, 1'036'800'000, "ms (12 days)"},
                     [](auto& s, auto v, auto& as, auto& me) { return setMillis(s.duration, v, as, me); },
                     [](auto& s) { return ms(s.duration); }));
  t.push_back(ranged("concurrency", "an integer", {1, 512, ""},
                     [](auto& s, auto v, auto& as, auto& me) { return setNumber(s.concurrency, v, as, me); },
                     [](auto& s) -> std::optional<Json> { return s.concurrency; }));
  t.push_back(row("pattern", patternChoices(),
                  [](auto& s, auto v, auto& as, auto& me) { return setEnum(s.pattern, parsePattern(v), v, as, me); },
                  [](auto& s) -> std::optional<Json> { return patternName(s.pattern); }));
  t.push_back(ranged("rate", "a number", {0, 10'000'000, "requests/s"},
                     [](auto& s, auto v, auto& as, auto& me) { return setNumber(s.rate, v, as, me); },
                     [](auto& s) -> std::optional<Json> { return s.rate; }));
  t.push_back(row("clock", clockModeChoices(),
                  [](auto& s, auto v, auto& as, auto& me) { return setEnum(s.clock, parseClockMode(v), v, as, me); },
                  [](auto& s) -> std::optional<Json> { return clockModeName(s.clock); }));
  t.push_back(row("skew_ms", "comma-separated integer milliseconds, one per replica",
                  [](auto& s, auto v, auto& as, auto& me) -> Result<void> {
                    s.skew.clear();
                    if (v.empty()) return {};
                    return setList(s.skew, v, as, me, [](std::string_view e) -> std::optional<Micros> {
                      std::int64_t n = 0;
                      if (!parseWholeText(e, n) || n > kYear.count() / 1000 || n < -kYear.count() / 1000) return {};
                      return Micros{n * 1000};
                    });
                  },
                  [](auto& s) { return names(s.skew, [](Micros k) { return static_cast<std::int64_t>(k.count() / 1000); }); }));
  t.push_back(row("seed", "an unsigned integer",
                  [](auto& s, auto v, auto& as, auto& me) { return setNumber(s.seed, v, as, me); },
                  [](auto& s) -> std::optional<Json> { return static_cast<std::int64_t>(s.seed); }));
  t.push_back(ranged("think_ms", "an integer", {0, 10'000, "ms"},
                     [](auto& s, auto v, auto& as, auto& me) { return setMillis(s.thinkTime, v, as, me); },
                     [](auto& s) { return ms(s.thinkTime); }));
  t.push_back(row("prefix", "1 to 200 characters",
                  [](auto& s, auto v, auto&, auto&) -> Result<void> { s.prefix = std::string(v); return {}; },
                  [](auto& s) -> std::optional<Json> { return s.prefix; }));
  // A run's own key space, not part of the experiment: never written (the window tags each run itself).
  t.push_back(row("run_tag", "any text, prepended to the client names",
                  [](auto& s, auto v, auto&, auto&) -> Result<void> { s.runTag = std::string(v); return {}; }, nullptr));
  // Resilience: what a store error decides, WAIT, replica reads, failovers and faults.
  t.push_back(row("on_redis_error", failurePolicyChoices(),
                  [](auto& s, auto v, auto& as, auto& me) { return setEnum(s.resilience.onRedisError, parseFailurePolicy(v), v, as, me); },
                  [](auto& s) -> std::optional<Json> { return failurePolicyName(s.resilience.onRedisError); }));
  t.push_back(ranged("wait_replicas", "an integer", {0, kMaxWaitReplicas, ""},
                     [](auto& s, auto v, auto& as, auto& me) { return setNumber(s.resilience.waitReplicas, v, as, me); },
                     [](auto& s) -> std::optional<Json> { if (s.resilience.waitReplicas <= 0) return {}; return s.resilience.waitReplicas; }));
  t.push_back(ranged("wait_timeout_ms", "an integer", {1, 10'000, "ms (0 would make WAIT block forever)"},
                     [](auto& s, auto v, auto& as, auto& me) { return setMillis(s.resilience.waitTimeout, v, as, me); },
                     [](auto& s) -> std::optional<Json> { if (s.resilience.waitReplicas <= 0) return {}; return ms(s.resilience.waitTimeout); }));
  t.push_back(row("read_from", "master or replica",
                  [](auto& s, auto v, auto& as, auto& me) -> Result<void> {
                    if (v != "master" && v != "replica") return bad(as, v, me);
                    s.resilience.readFromReplica = v == "replica";
                    return {};
                  },
                  [](auto& s) -> std::optional<Json> { if (!s.resilience.readFromReplica) return {}; return "replica"; }));
  t.push_back(row("failover", "break@MS,kill@MS,promote@MS[,rejoin@MS], natural:kill@MS, sentinel-failover@MS or none",
                  [](auto& s, auto v, auto& as, auto&) -> Result<void> {
                    if (v.empty() || v == "none") { s.failover.reset(); return {}; }
                    auto plan = parseFailoverPlan(v);
                    if (!plan) return invalidArgument(as + ": " + plan.error().message);
                    s.failover = *plan;
                    return {};
                  },
                  [](auto& s) -> std::optional<Json> { if (!s.failover) return {}; return failoverPlanText(*s.failover); }));
  t.push_back(row("fault", "comma-separated kill@T, restart@T, pause@S:E, latency@S:E:MS, oom@S:E, readonly@S:E",
                  [](auto& s, auto v, auto& as, auto&) { return setParsed(s.faults, parseFaultSchedule(v, as)); },
                  [](auto& s) -> std::optional<Json> { if (s.faults.empty()) return {}; return faultScheduleText(s.faults); }));
  StormSetting quota = row("quota_change", "AT_MS:limit=N,window_ms=W,refill_rate=R (any of the three, at least one)",
                           [](auto& s, auto v, auto& as, auto&) -> Result<void> {
                             auto change = parseQuotaChange(v, as);
                             if (!change) return change.error();
                             insertQuotaChange(s.quotaChanges, std::move(change).value());
                             return {};
                           },
                           [](auto& s) -> std::optional<Json> {
                             if (s.quotaChanges.empty()) return {};
                             return names(s.quotaChanges, [](const QuotaChange& c) { return quotaChangeText(c); });
                           },
                           Repeated);
  quota.scenarioKey = "quota_changes";  // the schedule's array; each element is one change
  t.push_back(std::move(quota));
  // Trace replay.
  t.push_back(row("trace", "a readable log file (plain or .gz)",
                  [](auto& s, auto v, auto& as, auto& me) -> Result<void> {
                    if (v.empty()) return bad(as, v, me);
                    s.trace.path = std::string(v);
                    return {};
                  },
                  [](auto& s) -> std::optional<Json> { if (!traced(s)) return {}; return s.trace.path; }));
  t.push_back(row("trace_format", "combined, common, nginx:'<log_format>', jsonl or csv",
                  [](auto& s, auto v, auto&, auto&) { return setParsed(s.trace.format, parseTraceFormat(v)); },
                  [](auto& s) -> std::optional<Json> { if (!traced(s)) return {}; return traceFormatText(s.trace.format); }));
  t.push_back(row("trace_key", "addr, header:NAME or field:NAME",
                  [](auto& s, auto v, auto&, auto&) { return setParsed(s.trace.key, parseTraceKey(v)); },
                  [](auto& s) -> std::optional<Json> { if (!traced(s)) return {}; return traceKeyText(s.trace.key); }));
  t.push_back(row("trace_time", "FIELD[:s|ms|us] (jsonl: the time field)",
                  [](auto& s, auto v, auto&, auto&) { return parseTraceTime(v, s.trace); },
                  [](auto& s) -> std::optional<Json> { if (!traced(s)) return {}; return traceTimeText(s.trace); }));
  t.push_back(row("trace_filter", "path=/exact, path=/prefix* or an RE2 regex on the request line",
                  [](auto& s, auto v, auto&, auto&) -> Result<void> { s.trace.filter = std::string(v); return {}; },
                  [](auto& s) -> std::optional<Json> { if (!traced(s) || s.trace.filter.empty()) return {}; return s.trace.filter; }));
  t.push_back(row("trace_burst", "",
                  [](auto& s, auto v, auto& as, auto& me) { return setSwitch(s.trace.burst, v, as, me); },
                  [](auto& s) -> std::optional<Json> { if (!traced(s)) return {}; return s.trace.burst; }, Switch));
  t.push_back(row("strict", "",
                  [](auto& s, auto v, auto& as, auto& me) { return setSwitch(s.trace.strict, v, as, me); },
                  [](auto& s) -> std::optional<Json> { if (!traced(s)) return {}; return s.trace.strict; }, Switch));
  t.push_back(row("speed", "a factor > 0 and <= 1000000 (wall-clock replay speed)",
                  [](auto& s, auto v, auto& as, auto& me) -> Result<void> {
                    double x = 0;
                    if (!parseWholeText(v, x) || x <= 0 || x > 1e6) return bad(as, v, me);
                    s.speed = x;
                    return {};
                  },
                  [](auto& s) -> std::optional<Json> { if (!traced(s) || s.speed <= 0) return {}; return s.speed; }));
  // An HTTP target.
  t.push_back(row("http_target", "comma-separated http:// or https:// URLs",
                  [](auto& s, auto v, auto&, auto&) -> Result<void> {
                    s.http.targets.clear();
                    for (std::string_view e : splitList(v)) s.http.targets.emplace_back(e);
                    return {};
                  },
                  [](auto& s) -> std::optional<Json> {
                    if (!http(s)) return {};
                    std::string joined;
                    for (const auto& u : s.http.targets) joined += (joined.empty() ? "" : ",") + u;
                    return joined;
                  }));
  t.push_back(row("http_method", "a method token such as GET or POST",
                  [](auto& s, auto v, auto&, auto&) -> Result<void> { s.http.method = std::string(v); return {}; },
                  [](auto& s) -> std::optional<Json> { if (!http(s)) return {}; return s.http.method; }));
  t.push_back(row("http_header", "'Name: value' (a header token, printable value), once per header",
                  [](auto& s, auto v, auto&, auto&) -> Result<void> { s.http.headers.emplace_back(v); return {}; },
                  [](auto& s) -> std::optional<Json> { if (!http(s)) return {}; return s.http.headers; }, Repeated));
  t.push_back(row("http_body", "text, up to 1000000 bytes",
                  [](auto& s, auto v, auto&, auto&) -> Result<void> { s.http.body = std::string(v); return {}; },
                  [](auto& s) -> std::optional<Json> { if (!http(s) || s.http.body.empty()) return {}; return s.http.body; }));
  t.push_back(row("http_key", "header:NAME (e.g. header:x-api-key) or source-addr",
                  [](auto& s, auto v, auto&, auto&) -> Result<void> { s.http.key = std::string(v); return {}; },
                  [](auto& s) -> std::optional<Json> { if (!http(s)) return {}; return s.http.key; }));
  t.push_back(row("http_deny_status", "comma-separated HTTP statuses 400 to 599, e.g. 429,503",
                  [](auto& s, auto v, auto& as, auto& me) {
                    return setList(s.http.denyStatus, v, as, me, [](std::string_view e) -> std::optional<int> {
                      int st = 0;
                      if (!parseWholeText(e, st)) return {};
                      return st;
                    });
                  },
                  [](auto& s) -> std::optional<Json> { if (!http(s)) return {}; return s.http.denyStatus; }));
  t.push_back(ranged("http_timeout_ms", "an integer", {kMinHttpTimeoutMs, kMaxHttpTimeoutMs, "ms"},
                     [](auto& s, auto v, auto& as, auto& me) { return setMillis(s.http.timeout, v, as, me); },
                     [](auto& s) -> std::optional<Json> { if (!http(s)) return {}; return ms(s.http.timeout); }));
  t.push_back(row("cacert", "a PEM file of trusted CAs (https targets)",
                  [](auto& s, auto v, auto&, auto&) -> Result<void> { s.http.caFile = std::string(v); return {}; },
                  [](auto& s) -> std::optional<Json> { if (!http(s) || s.http.caFile.empty()) return {}; return s.http.caFile; }));
  t.push_back(row("insecure", "",
                  [](auto& s, auto v, auto& as, auto& me) { return setSwitch(s.http.insecure, v, as, me); },
                  [](auto& s) -> std::optional<Json> { if (!http(s) || !s.http.insecure) return {}; return true; }, Switch));
  // A user's Lua limiter.
  t.push_back(row("script", "a Lua file (found next to the scenario file when relative)",
                  [](auto& s, auto v, auto&, auto&) -> Result<void> { s.script.file = std::string(v); return {}; },
                  [](auto& s) -> std::optional<Json> { if (!scripted(s)) return {}; return s.script.file; }));
  t.push_back(row("script_keys", "a space-separated KEYS template ({client} {prefix} ...)",
                  [](auto& s, auto v, auto&, auto&) -> Result<void> { s.script.keys = std::string(v); return {}; },
                  [](auto& s) -> std::optional<Json> { if (!scripted(s)) return {}; return s.script.keys; }));
  t.push_back(row("script_argv", "a space-separated ARGV template ({limit} {now_s} ...)",
                  [](auto& s, auto v, auto&, auto&) -> Result<void> { s.script.argv = std::string(v); return {}; },
                  [](auto& s) -> std::optional<Json> { if (!scripted(s)) return {}; return s.script.argv; }));
  t.push_back(row("script_reply", "the names of the reply's elements, e.g. allowed,remaining",
                  [](auto& s, auto v, auto&, auto&) -> Result<void> { s.script.reply = std::string(v); return {}; },
                  [](auto& s) -> std::optional<Json> { if (!scripted(s)) return {}; return s.script.reply; }));
  t.push_back(row("script_keys_outside_prefix", "",
                  [](auto& s, auto v, auto& as, auto& me) { return setSwitch(s.script.keysOutsidePrefix, v, as, me); },
                  [](auto& s) -> std::optional<Json> { if (!scripted(s) || !s.script.keysOutsidePrefix) return {}; return true; },
                  Switch));
  // Variants: the same storm again, beside it.
  t.push_back(row("compare_backend", "comma-separated backends: memory, redis-lua, redis-naive, redis-watch, redis-script",
                  [](auto& s, auto v, auto& as, auto& me) {
                    return setList(s.compareBackends, v, as, me, [](std::string_view e) -> std::optional<Backend> {
                      auto b = parseBackend(e);
                      if (b == Backend::Http) return {};
                      return b;
                    });
                  },
                  [](auto& s) -> std::optional<Json> {
                    if (s.compareBackends.empty()) return {};
                    return names(s.compareBackends, [](Backend b) { return backendName(b); });
                  }));
  t.push_back(row("compare_policies", "comma-separated failure policies: " + failurePolicyChoices(),
                  [](auto& s, auto v, auto& as, auto& me) {
                    return setList(s.comparePolicies, v, as, me, [](std::string_view e) { return parseFailurePolicy(e); });
                  },
                  [](auto& s) -> std::optional<Json> {
                    if (s.comparePolicies.empty()) return {};
                    return names(s.comparePolicies, [](FailurePolicy p) { return failurePolicyName(p); });
                  }));
  t.push_back(row("compare_wait_replicas", "comma-separated replica counts 0 to " + std::to_string(kMaxWaitReplicas),
                  [](auto& s, auto v, auto& as, auto& me) {
                    return setList(s.compareWaitReplicas, v, as, me, [](std::string_view e) -> std::optional<int> {
                      int n = -1;
                      if (!parseWholeText(e, n) || n < 0 || n > kMaxWaitReplicas) return {};
                      return n;
                    });
                  },
                  [](auto& s) -> std::optional<Json> { if (s.compareWaitReplicas.empty()) return {}; return s.compareWaitReplicas; }));
  return t;
}

}  // namespace

std::span<const StormSetting> stormSettings() {
  static const std::vector<StormSetting> table = buildTable();
  return table;
}

}  // namespace rl
