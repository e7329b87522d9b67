#include "storm/storm_spec.hpp"

#include "common/number_text.hpp"
#include "storm/decision_record.hpp"
#include "storm/storm_settings.hpp"

#include "common/enum_names.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <set>
#include <utility>

namespace rl {

namespace {

constexpr EnumNames<Pattern, 5> kPatterns{{
    {Pattern::Burst, "burst"}, {Pattern::Constant, "constant"}, {Pattern::Boundary, "boundary"},
    {Pattern::Ramp, "ramp"}, {Pattern::Poisson, "poisson"}}};
constexpr EnumNames<ClockMode, 3> kClocks{{
    {ClockMode::Server, "server"}, {ClockMode::Client, "client"}, {ClockMode::Virtual, "virtual"}}};
constexpr std::int64_t kMaxDecisions = 20'000'000;  // 44 B each (record + planned send): under 1 GB
constexpr Micros kMaxRunSpan{12LL * 24 * 3600 * 1'000'000};  // below kMaxRecordedUs (2^40 us)
static_assert(kMaxRunSpan.count() < kMaxRecordedUs);
constexpr int kMaxClients = 1'000'000;
constexpr int kMaxConnections = 2048;  // one per (worker, replica); Redis allows 10000 clients
constexpr Micros kMaxSkew{24LL * 3600 * 1'000'000};

Result<void> fail(std::string msg) { return invalidArgument(std::move(msg)); }

// Quota messages start with the field ("limit ...", "window ...", "refill rate ...").
Result<void> quotaError(const Error& e) {
  const std::string& m = e.message;
  const char* flag = m.rfind("window", 0) == 0 ? "--window-ms" : m.rfind("refill", 0) == 0 ? "--refill-rate" : "--limit";
  return fail(std::string(flag) + ": " + m);
}

Result<void> validateTraffic(const StormSpec& s) {
  // The ranges are the settings table's (storm_settings.hpp); requests 0 means "not given".
  if (s.requests != 0)
    if (auto ok = checkRange("requests", static_cast<double>(s.requests)); !ok) return ok;
  if (auto ok = checkRange("rate", s.rate); !ok) return ok;
  if (auto ok = checkRange("duration_ms", static_cast<double>(s.duration.count()), 1000); !ok) return ok;
  const bool rateDriven = s.pattern == Pattern::Constant || s.pattern == Pattern::Ramp || s.pattern == Pattern::Poisson;
  if (rateDriven && s.rate <= 0)
    return fail(std::string("--rate is required by --pattern ") + std::string(patternName(s.pattern)) +
                ": allowed a rate > 0 requests/s");
  if (s.requests == 0 && (s.duration.count() <= 0 || s.rate <= 0))
    return fail("--requests is missing: give --requests N (" + rangeText(*findStormSetting("requests")) +
                "), or --duration-ms with --rate");
  const double total = s.requests > 0 ? static_cast<double>(s.requests)
                                      : static_cast<double>(s.duration.count()) / 1e6 * s.rate;
  if (total < 1)
    return fail("--duration-ms with --rate offers no request: allowed duration x rate >= 1");
  // Rate-driven spans: constant n / rate, ramp 2 n / rate, poisson about n / rate.
  if (rateDriven && s.requests > 0 && 2.0 * static_cast<double>(s.requests) / s.rate > 86'400.0)
    return fail("--rate " + numberText(s.rate) + " with --requests " + std::to_string(s.requests) +
                " spans more than a day: allowed requests / rate <= 86400 s (43200 s for ramp)");
  if (total * static_cast<double>(s.algorithms.size()) > static_cast<double>(kMaxDecisions))
    return fail("--requests x algorithms is " + std::to_string(static_cast<std::int64_t>(total)) + " x " +
                std::to_string(s.algorithms.size()) + ": allowed at most 20000000 decisions per run");
  return {};
}

// Trace traffic: the trace replaces requests / rate / pattern; --speed needs a real clock.
Result<void> validateTrace(const StormSpec& s) {
  if (!s.traceData) return fail("--trace '" + s.trace.path + "' is not loaded (loadStormTrace)");
  const auto n = static_cast<double>(s.traceData->requests.size());
  if (n * static_cast<double>(s.algorithms.size()) > static_cast<double>(kMaxDecisions))
    return fail("--trace has " + std::to_string(s.traceData->requests.size()) + " requests x " +
                std::to_string(s.algorithms.size()) + " algorithms: allowed at most 20000000 decisions per run");
  if (s.traceData->keys.size() > static_cast<std::size_t>(kMaxClients))
    return fail("--trace has " + std::to_string(s.traceData->keys.size()) + " clients: allowed at most 1000000");
  if (s.traceData->maxCost() >= kMaxPlannedCost)
    return fail("--trace has a request of cost " + std::to_string(s.traceData->maxCost()) +
                ": allowed costs 1 to 134217727");
  if (s.clock == ClockMode::Virtual && s.traceData->spanUs() > kMaxRunSpan.count())
    return fail("--trace spans " + numberText(static_cast<double>(s.traceData->spanUs()) / 86'400e6) +
                " days: allowed at most 12 days on the virtual clock");
  if (s.traceData->maxCost() > s.quota.limit)
    return fail("--limit " + std::to_string(s.quota.limit) + " is below the trace's largest cost " +
                std::to_string(s.traceData->maxCost()) + ": allowed a limit >= every request's cost");
  if (!std::isfinite(s.speed) || s.speed < 0 || s.speed > 1e6)
    return fail("--speed " + numberText(s.speed) + " is out of range: allowed a factor > 0 and <= 1000000");
  if (s.speed > 0 && s.clock == ClockMode::Virtual)
    return fail("--speed replays on the wall clock: allowed with --clock client or server (the virtual clock "
                "replays as fast as possible, exactly)");
  if (s.clock != ClockMode::Virtual && static_cast<double>(s.traceData->spanUs()) / 1e6 / replaySpeed(s) > 86'400.0)
    return fail("--speed " + numberText(s.speed) + " replays the trace's " + numberText(static_cast<double>(s.traceData->spanUs()) / 1e6) +
                " s in more than a day: allowed span / speed <= 86400 s");
  return {};
}

// The HTTP request settings: a method token, "Name: value" headers, deny statuses 400..599.
Result<void> validateHttpRequest(const StormSpec& s) {
  const auto token = [](std::string_view t) {
    return !t.empty() && t.size() <= 64 && std::all_of(t.begin(), t.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
    });
  };
  if (!token(s.http.method)) return fail("--http-method '" + s.http.method + "' is not valid: allowed a method token such as GET or POST");
  for (const std::string& h : s.http.headers) {
    const auto colon = h.find(':');
    const bool printable = std::all_of(h.begin(), h.end(), [](char c) { return static_cast<unsigned char>(c) >= 0x20 && c != 0x7f; });
    if (colon == std::string::npos || !token(std::string_view(h).substr(0, colon)) || !printable)
      return fail("--http-header '" + h + "' is not valid: allowed 'Name: value' (a header token, printable value)");
  }
  if (s.http.key != "source-addr" && !(s.http.key.starts_with("header:") && token(std::string_view(s.http.key).substr(7))))
    return fail("--http-key '" + s.http.key + "' is not valid: allowed header:NAME (e.g. header:x-api-key) or source-addr");
  if (s.http.denyStatus.empty()) return fail("--http-deny-status is empty: allowed statuses 400 to 599, e.g. 429,503");
  for (int st : s.http.denyStatus)
    if (st < 400 || st > 599) return fail("--http-deny-status " + std::to_string(st) + " is not valid: allowed 400 to 599");
  if (s.http.body.size() > 1'000'000) return fail("--http-body is over 1000000 bytes: allowed up to 1000000");
  if (auto ok = checkRange("http_timeout_ms", static_cast<double>(s.http.timeout.count()), 1000); !ok) return ok;
  return {};
}

Result<void> validateTopology(const StormSpec& s) {
  for (const auto& [name, value] : {std::pair{"replicas", s.replicas}, {"clients", s.clients}, {"concurrency", s.concurrency}})
    if (auto ok = checkRange(name, value); !ok) return ok;
  const bool redis = isRedisBackend(s.backend);
  if (redis && s.concurrency * s.replicas > kMaxConnections)
    return fail("--concurrency x --replicas is " + std::to_string(s.concurrency * s.replicas) +
                " Redis connections: allowed at most 2048");
  if (!s.skew.empty() && s.skew.size() != static_cast<std::size_t>(s.replicas))
    return fail("--skew-ms has " + std::to_string(s.skew.size()) + " values: allowed one per replica (" +
                std::to_string(s.replicas) + ")");
  for (Micros k : s.skew)
    if (k > kMaxSkew || k < -kMaxSkew) return fail("--skew-ms is out of range: allowed -86400000 to 86400000 ms");
  if (auto ok = checkRange("think_ms", static_cast<double>(s.thinkTime.count()), 1000); !ok) return ok;
  if (s.prefix.empty() || s.prefix.size() > 200) return fail("--prefix must have 1 to 200 characters");
  if (auto ok = checkRange("wait_replicas", s.resilience.waitReplicas); !ok) return ok;
  if (s.resilience.waitReplicas > 0 && s.backend != Backend::RedisLua)
    return fail("--wait-replicas needs --backend redis-lua (WAIT follows the script's write)");
  if (auto ok = checkRange("wait_timeout_ms", static_cast<double>(s.resilience.waitTimeout.count()), 1000); !ok) return ok;
  if (s.failover && s.backend != Backend::RedisLua && s.backend != Backend::RedisNaive &&
      s.backend != Backend::RedisWatch)
    return fail("--failover needs a Redis backend (redis-lua, redis-naive or redis-watch) on --redis cluster "
                "(natural:kill@MS also on --redis sentinel; sentinel-failover@MS on any redis+sentinel://)");
  if (s.failover && s.failover->kind != FailoverPlan::Kind::Scripted && s.clock == ClockMode::Virtual)
    return fail("--failover " + failoverPlanText(*s.failover) + " happens on the wall clock: allowed with --clock "
                "client or server (the virtual clock runs as fast as possible)");
  if (s.failover && s.failover->kind != FailoverPlan::Kind::Scripted && plannedSpan(s) <= s.failover->killAt)
    return fail("--failover " + failoverPlanText(*s.failover) + " is at or after the run's last send (" +
                std::to_string(plannedSpan(s).count() / 1000) + " ms): allowed a time within the run (raise "
                "--requests or --duration-ms, with --pattern constant, ramp or poisson)");
  if (s.resilience.readFromReplica && s.backend != Backend::RedisNaive)
    return fail("--read-from replica needs --backend redis-naive (read the count, decide, write it to the master, "
                "as Python limits does with use_replicas=True)");
  if (s.resilience.readFromReplica && s.redisUrl != "sentinel" && !s.redisUrl.starts_with("redis+sentinel://"))
    return fail("--read-from replica finds its replica through Sentinels: allowed with --redis sentinel or a "
                "redis+sentinel:// URL");
  if (s.backend == Backend::Http && s.http.targets.empty())
    return fail("--http-target is required by --backend http: allowed http://host:port[/path], comma-separated");
  if (s.backend == Backend::RedisScript && s.script.file.empty())
    return fail("--script is required by --backend redis-script: allowed a readable Lua file");
  for (Backend b : s.compareBackends)
    if (b == s.backend || b == Backend::Http)
      return fail("--compare-backend " + std::string(backendName(b)) +
                  ": allowed memory, redis-lua, redis-naive, redis-watch or redis-script, other than --backend");
  return validateHttpRequest(s);
}

// --fault: a Redis backend, a real clock, traffic that lasts past the last fault, one run.
Result<void> validateFaults(const StormSpec& s) {
  if (s.faults.empty()) return {};
  if (!isRedisBackend(s.backend))
    return fail("--fault acts on the managed redis-server: allowed with --backend redis-lua, redis-naive, "
                "redis-watch or redis-script");
  if (s.clock == ClockMode::Virtual)
    return fail("--fault happens on the wall clock: allowed with --clock client or server (the virtual clock "
                "runs as fast as possible)");
  if (!s.compareBackends.empty()) return fail("--fault runs once: not allowed with --compare-backend");
  const Micros span = plannedSpan(s);
  if (span <= Micros{0})
    return fail("--fault needs traffic that lasts: allowed with --pattern constant, ramp or poisson (or --trace)");
  const Micros last = faultScheduleEnd(s.faults);
  if (last > span)
    return fail("--fault '" + faultScheduleText(s.faults) + "' ends at " + std::to_string(last.count() / 1000) +
                " ms, after the run's last send at " + std::to_string(span.count() / 1000) +
                " ms: allowed faults within the run (raise --requests or --duration-ms)");
  return {};
}

Result<void> validateQuotaChanges(const StormSpec& spec) {
  Quota q = spec.quota;
  for (const QuotaChange& c : spec.quotaChanges) {
    q = appliedTo(c, q);
    const std::string where = "--quota-change " + quotaChangeText(c) + ": ";
    for (Algorithm a : spec.algorithms)
      if (auto ok = q.validate(a); !ok) return fail(where + ok.error().message);
    if (auto ok = validateCost(spec.cost, q); !ok) return fail(where + "--cost: " + ok.error().message);
  }
  return {};
}

// --compare-policies runs the storm once per policy at the same time; --compare-wait-replicas a
// failover storm once per WAIT setting. Each is one kind of variant: never both, nor with backends.
Result<void> validateVariants(const StormSpec& s) {
  if (!s.comparePolicies.empty()) {
    if (!isRedisBackend(s.backend))
      return fail("--compare-policies decides Redis errors: allowed with --backend redis-lua, redis-naive, "
                  "redis-watch or redis-script");
    if (!s.compareBackends.empty() || s.failover)
      return fail("--compare-policies runs the storm once per policy: not allowed with --compare-backend or --failover");
  }
  if (!s.compareWaitReplicas.empty()) {
    if (!s.failover) return fail("--compare-wait-replicas repeats a failover storm: allowed with --failover only");
    if (s.backend != Backend::RedisLua)
      return fail("--compare-wait-replicas sets WAIT after each write: allowed with --backend redis-lua");
  }
  return {};
}

}  // namespace

Micros plannedSpan(const StormSpec& s) {
  if (s.traceData) return Micros{static_cast<std::int64_t>(static_cast<double>(s.traceData->spanUs()) / replaySpeed(s))};
  const bool rateDriven = s.pattern == Pattern::Constant || s.pattern == Pattern::Ramp || s.pattern == Pattern::Poisson;
  if (!rateDriven || s.rate <= 0) return Micros{0};
  if (s.requests == 0) return s.duration;
  const double seconds = static_cast<double>(s.requests) / s.rate * (s.pattern == Pattern::Ramp ? 2.0 : 1.0);
  return Micros{static_cast<std::int64_t>(seconds * 1e6)};
}

std::string_view patternName(Pattern p) { return enumName(kPatterns, p); }
std::optional<Pattern> parsePattern(std::string_view s) { return enumFromName(kPatterns, s); }
std::string patternChoices() { return enumChoices(kPatterns); }
std::string_view clockModeName(ClockMode c) { return enumName(kClocks, c); }
std::optional<ClockMode> parseClockMode(std::string_view s) { return enumFromName(kClocks, s); }
std::string clockModeChoices() { return enumChoices(kClocks); }

namespace {
// `natural:kill@MS` or `sentinel-failover@MS`; nullopt when `text` is neither form's start.
std::optional<Result<FailoverPlan>> parseNaturalFailover(std::string_view text, const std::string& allowed) {
  FailoverPlan plan;
  std::string_view ms = text;
  if (ms.starts_with("natural:kill@")) {
    plan.kind = FailoverPlan::Kind::NaturalKill;
    ms.remove_prefix(13);
  } else if (ms.starts_with("sentinel-failover@")) {
    plan.kind = FailoverPlan::Kind::SentinelFailover;
    ms.remove_prefix(18);
  } else if (ms.starts_with("natural") || ms.starts_with("sentinel")) {
    return Result<FailoverPlan>(invalidArgument("--failover '" + std::string(text) + "': not a failover" + allowed));
  } else {
    return std::nullopt;
  }
  std::int64_t t = -1;
  auto [p, ec] = std::from_chars(ms.data(), ms.data() + ms.size(), t);
  if (ms.empty() || ec != std::errc{} || p != ms.data() + ms.size() || t < 0 || t > 86'400'000)
    return Result<FailoverPlan>(invalidArgument("--failover '" + std::string(text) + "': '" + std::string(ms) +
                                                "' is not a number of milliseconds 0 to 86400000" + allowed));
  plan.killAt = Micros{t * 1000};
  return Result<FailoverPlan>(plan);
}
}  // namespace

Result<FailoverPlan> parseFailoverPlan(std::string_view text) {
  const std::string allowed =
      " (allowed break@MS,kill@MS,promote@MS[,rejoin@MS] with times increasing, natural:kill@MS or "
      "sentinel-failover@MS)";
  if (auto natural = parseNaturalFailover(text, allowed)) return std::move(*natural);
  const std::string_view names[] = {"break@", "kill@", "promote@", "rejoin@"};
  FailoverPlan plan;
  Micros* fields[] = {&plan.breakAt, &plan.killAt, &plan.promoteAt, &plan.rejoinAt};
  std::string_view rest = text;
  int parts = 0;
  for (int i = 0; i < 4 && (i == 0 || !rest.empty()); ++i, ++parts) {
    const auto comma = rest.find(',');
    std::string_view part = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
    if (!part.starts_with(names[i]))
      return invalidArgument("--failover '" + std::string(text) + "': expected '" + std::string(names[i]) + "MS'" + allowed);
    part.remove_prefix(names[i].size());
    std::int64_t ms = -1;
    auto [p, ec] = std::from_chars(part.data(), part.data() + part.size(), ms);
    if (part.empty() || ec != std::errc{} || p != part.data() + part.size() || ms < 0 || ms > 86'400'000)
      return invalidArgument("--failover '" + std::string(text) + "': '" + std::string(part) +
                             "' is not a number of milliseconds" + allowed);
    *fields[i] = Micros{ms * 1000};
    if (i > 0 && *fields[i] <= *fields[i - 1])
      return invalidArgument("--failover '" + std::string(text) + "': times must increase" + allowed);
  }
  if (parts < 3 || !rest.empty())
    return invalidArgument("--failover '" + std::string(text) + "': three or four parts expected" + allowed);
  return plan;
}

std::string failoverPlanText(const FailoverPlan& p) {
  if (p.kind == FailoverPlan::Kind::NaturalKill) return "natural:kill@" + std::to_string(p.killAt.count() / 1000);
  if (p.kind == FailoverPlan::Kind::SentinelFailover) return "sentinel-failover@" + std::to_string(p.killAt.count() / 1000);
  std::string s = "break@" + std::to_string(p.breakAt.count() / 1000) + ",kill@" + std::to_string(p.killAt.count() / 1000) +
                  ",promote@" + std::to_string(p.promoteAt.count() / 1000);
  if (p.rejoinAt.count() > 0) s += ",rejoin@" + std::to_string(p.rejoinAt.count() / 1000);
  return s;
}

double replaySpeed(const StormSpec& s) { return s.speed > 0 ? s.speed : 1.0; }

Result<void> loadStormTrace(StormSpec& spec, const std::function<void(std::int64_t)>& progress,
                            const std::atomic<bool>* cancel) {
  if (spec.trace.path.empty()) {
    spec.traceData.reset();
    return {};
  }
  // The decision cap holds while reading: the read stops at the first request past it.
  TraceOptions capped = spec.trace;
  const auto perRun = kMaxDecisions / static_cast<std::int64_t>(std::max<std::size_t>(1, spec.algorithms.size()));
  capped.maxRequests = std::min(capped.maxRequests, perRun);
  capped.maxRequestsRule = "a run makes at most 20000000 decisions: requests x " +
                           std::to_string(std::max<std::size_t>(1, spec.algorithms.size())) + " algorithms";
  auto t = loadTrace(capped, progress, cancel);
  if (!t) return t.error();
  spec.traceData = std::make_shared<const Trace>(std::move(t.value()));
  // The counts the reports show: the trace's clients and requests.
  spec.clients = static_cast<int>(std::min<std::size_t>(spec.traceData->keys.size(), kMaxClients));
  spec.requests = static_cast<std::int64_t>(spec.traceData->requests.size());
  return {};
}

Result<void> validate(const StormSpec& spec) {
  if (spec.algorithms.empty())
    return fail("--algorithm is empty: allowed one or more of fixed_window, sliding_log, sliding_counter, "
                "token_bucket, leaky_bucket, gcra, or all");
  if (std::set<Algorithm>(spec.algorithms.begin(), spec.algorithms.end()).size() != spec.algorithms.size())
    return fail("--algorithm lists an algorithm twice: allowed each at most once");
  for (Algorithm a : spec.algorithms)
    if (auto ok = spec.quota.validate(a); !ok) return quotaError(ok.error());
  if (auto ok = validateCost(spec.cost, spec.quota); !ok) return fail("--cost: " + ok.error().message);
  if (auto ok = validateQuotaChanges(spec); !ok) return ok;
  if (!spec.trace.path.empty()) {
    if (auto ok = validateTrace(spec); !ok) return ok;
  } else {
    if (spec.speed != 0) return fail("--speed replays a trace: allowed with --trace only");
    if (auto ok = validateTraffic(spec); !ok) return ok;
  }
  if (auto ok = validateTopology(spec); !ok) return ok;
  if (auto ok = validateVariants(spec); !ok) return ok;
  return validateFaults(spec);
}

}  // namespace rl
