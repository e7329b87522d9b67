// ratelab-cli tune: sweep a quota grid over a trace, recommend per algorithm.
#include <chrono>
#include <cstdio>

#include "cli_flags.hpp"
#include "dialect_report.hpp"
#include "commands.hpp"
#include "interrupt.hpp"
#include "progress_line.hpp"
#include "storm/storm_settings.hpp"
#include "report/html_report.hpp"
#include "report_flag.hpp"
#include "tune/tune_document.hpp"
#include "tune_report.hpp"

namespace rl::cli {

namespace {
constexpr std::int64_t kMaxTuneRequests = 100'000'000;  // --max-requests: 1.6 GB of requests at most
constexpr const char* kTuneHelp =
    "usage: ratelab-cli tune --trace FILE [options]\n"
    "Replays the trace through every quota of the grid (virtual clock, the pure limiter\n"
    "math, all cores) and reports what each would have done; recommends per algorithm the\n"
    "smallest limit (then the smallest rate) that denies at most --target-denied of the\n"
    "legitimate clients' requests, and prints the Pareto front of legit denied against\n"
    "the worst burst still admitted to one client.\n"
    "  --trace FILE --trace-format F --trace-key K --trace-time FIELD --trace-filter F\n"
    "  --trace-burst --strict   read the trace as `run --trace` does (see `run --help`)\n"
    "  --max-requests N     stop reading with an error past N requests (1 to 100000000, default 20000000)\n"
    "  --algorithm A[,A..]  algorithms to sweep, or all                      (default token_bucket)\n"
    "  --limit 5:200:5      limits (capacity / burst): start:stop:step or a,b,c (required)\n"
    "  --refill-rate 0.5:20:0.5   rate algorithms: refill rates per second (else limit / window)\n"
    "  --window-ms 1000,10000,60000   windows                               (default 1000)\n"
    "  --target-denied 0.1% share of legitimate requests that may be denied (default 0.1%)\n"
    "  --legit all|pNN      legitimate clients: all (default), or those whose peak in\n"
    "                       --peak-window-ms is at or below the NNth percentile\n"
    "  --legit-file FILE    legitimate client keys, one per line\n"
    "  --peak-window-ms MS  window of 'worst admitted' and of pNN peaks      (default 1000)\n"
    "  --top N              clients listed per peak window                   (default 10)\n"
    "  --threads N          sweep threads (default: one per core)\n"
    "  --json               one JSON document on stdout (every point)\n"
    "  --report FILE.html   one self-contained HTML report: the recommendation, legitimate denied\n"
    "                       by limit per algorithm, the JSON\n"
    "  --csv FILE           every grid point as a row\n"
    "  --emit DIALECT       also print each recommendation as that dialect's config (nginx, envoy,\n"
    "                       traefik, express-rate-limit, rate-limiter-flexible, limits, redis_rate)\n"
    "Progress goes to stderr on a terminal; Ctrl-C stops and prints what was computed (exit 130).\n";

std::vector<FlagSpec> tuneFlags() {
  return {{"trace", true},       {"trace-format", true},  {"trace-key", true},  {"trace-time", true},
          {"trace-filter", true}, {"trace-burst", false},  {"strict", false},    {"algorithm", true},
          {"limit", true},       {"refill-rate", true},   {"window-ms", true},  {"target-denied", true},
          {"legit", true},       {"legit-file", true},    {"peak-window-ms", true}, {"top", true},
          {"threads", true},     {"json", false},         {"csv", true},       {"report", true},     {"help", false},
          {"max-requests", true}, {"emit", true}};
}

// The trace flags and --algorithm go through the storm settings table (one parser for run and tune).
Result<StormSpec> traceSettings(const Flags& flags) {
  StormSpec s;
  s.algorithms = {Algorithm::TokenBucket};
  for (const auto& [name, value] : flags.all()) {
    std::string key = name;
    for (char& c : key) c = c == '-' ? '_' : c;
    if ((key.rfind("trace", 0) == 0 || key == "strict" || key == "algorithm") && isStormSetting(key))
      if (auto ok = applyStormSetting(s, key, value, "--" + name); !ok) return ok.error();
  }
  if (s.trace.path.empty()) return invalidArgument("--trace is missing: allowed an access log, JSONL or CSV file");
  auto cap = intFlag(flags, "max-requests", kDefaultMaxTraceRequests, 1, kMaxTuneRequests);
  if (!cap) return cap.error();
  s.trace.maxRequests = cap.value();
  s.trace.maxRequestsRule = "--max-requests " + std::to_string(cap.value()) + ": allowed 1 to " +
                            std::to_string(kMaxTuneRequests) + " (16 bytes each)";
  return s;
}

Result<TuneSpec> tuneSpec(const Flags& flags, const StormSpec& storm) {
  TuneSpec t;
  t.algorithms = storm.algorithms;
  if (!flags.has("limit")) return invalidArgument("--limit is missing: allowed start:stop:step or a,b,c (e.g. 5:200:5)");
  auto limits = parseIntAxis(*flags.get("limit"), "--limit");
  if (!limits) return limits.error();
  t.grid.limits = limits.value();
  if (auto r = flags.get("refill-rate")) {
    auto rates = parseRateAxis(*r, "--refill-rate");
    if (!rates) return rates.error();
    t.grid.refillRates = rates.value();
  }
  if (auto w = flags.get("window-ms")) {
    auto ms = parseIntAxis(*w, "--window-ms");
    if (!ms) return ms.error();
    for (auto v : ms.value()) t.grid.windows.push_back(Micros{v * 1000});
  }
  if (auto target = flags.get("target-denied")) {
    auto v = parseTargetDenied(*target);
    if (!v) return v.error();
    t.targetDenied = v.value();
  }
  if (flags.has("legit") && flags.has("legit-file"))
    return invalidArgument("--legit and --legit-file exclude each other: allowed one of them");
  if (auto l = flags.get("legit")) {
    auto v = parseLegit(*l);
    if (!v) return v.error();
    t.legit = v.value();
  }
  if (auto f = flags.get("legit-file")) {
    auto v = readLegitFile(*f);
    if (!v) return v.error();
    t.legit = v.value();
  }
  auto peak = intFlag(flags, "peak-window-ms", 1000, 1, kYear.count() / 1000);
  auto top = intFlag(flags, "top", 10, 0, 1000);
  auto threads = intFlag(flags, "threads", 0, 0, 256);
  for (const auto* r : {&peak, &top, &threads})
    if (!*r) return r->error();
  t.peakWindow = Micros{peak.value() * 1000};
  t.topN = static_cast<std::size_t>(top.value());
  t.threads = static_cast<int>(threads.value());
  return t;
}

// Each algorithm's recommendation in `dialect`: printed after the table, or as "emitted" in the JSON.
Json emitRecommendations(const Dialect& dialect, const TuneSpec& spec, const TuneResult& r, bool print) {
  Json list = Json::array();
  for (Algorithm a : spec.algorithms) {
    const auto best = recommend(r, a, spec.targetDenied);
    if (!best) continue;
    const Emitted e = dialect.emitConfig(a, r.points[*best].quota);
    list.push_back(emittedJson(dialect, a, e));
    if (!print) continue;
    std::printf("\nrecommended %s (%s) as %s:\n", std::string(algorithmName(a)).c_str(),
                r.points[*best].quota.toString().c_str(), std::string(dialect.name).c_str());
    printEmitted(stdout, stdout, e);
  }
  return list;
}

void showProgress(std::size_t done, std::size_t total, std::chrono::steady_clock::time_point start) {
  static auto last = start;
  const auto now = std::chrono::steady_clock::now();
  if (now - start < std::chrono::seconds(1) || now - last < std::chrono::milliseconds(200)) return;
  last = now;
  char text[128];
  std::snprintf(text, sizeof text, "sweep: %zu/%zu points, %.1f s elapsed", done, total,
                std::chrono::duration<double>(now - start).count());
  drawProgressLine(text);
}
}  // namespace

int cmdTune(const Args& args) {
  auto flags = Flags::parse(args, tuneFlags());
  if (!flags) return badInput("tune", flags.error());
  if (flags->has("help")) {
    std::fputs(kTuneHelp, stdout);
    return kExitOk;
  }
  auto storm = traceSettings(flags.value());
  if (!storm) return badInput("tune", storm.error());
  auto spec = tuneSpec(flags.value(), storm.value());
  if (!spec) return badInput("tune", spec.error());
  const Dialect* emitDialect = flags->has("emit") ? findDialect(*flags->get("emit")) : nullptr;
  if (flags->has("emit") && !emitDialect)
    return badInput("tune", invalidArgument("--emit '" + *flags->get("emit") + "' is not a dialect: allowed " + dialectNames()));
  for (Algorithm a : spec->algorithms)  // grid errors before the (long) read
    if (auto q = tuneGridQuotas(a, spec->grid); !q) return badInput("tune", q.error());
  if (int rc = checkReportFlag("tune", *flags); rc != kExitOk) return rc;  // and the report's path
  catchInterrupt();
  const auto readStart = std::chrono::steady_clock::now();
  auto trace = loadTrace(storm->trace, {}, &interruptFlag());
  const auto readTime = std::chrono::duration_cast<Micros>(std::chrono::steady_clock::now() - readStart);
  if (!trace) {
    if (trace.error().code == ErrorCode::Cancelled) return interruptedExitCode();
    return badInput("tune", trace.error());
  }
  const auto start = std::chrono::steady_clock::now();
  auto result = runTune(trace.value(), spec.value(),
                        [&](std::size_t d, std::size_t n) { showProgress(d, n, start); }, &interruptFlag());
  endProgressLine();
  if (!result) return badInput("tune", result.error());
  if (auto csv = flags->get("csv"))
    if (auto ok = writeTuneCsv(*csv, result.value()); !ok) return badInput("tune", ok.error());
  Json doc;  // the --json document, which the report embeds: built once for both
  if (flags->has("json") || flags->has("report")) doc = tuneDocument(trace.value(), spec.value(), result.value(), readTime);
  if (flags->has("report")) {
    const ReportHeader header{"Tune: a quota for this traffic", commandLine("tune", args), "", "", ""};
    const std::string html = tuneReportHtml(trace->summary(), spec.value(), result.value(), doc, header);
    if (int rc = writeReportFlag("tune", flags.value(), html); rc != kExitOk) return rc;
  }
  if (flags->has("json")) {
    if (emitDialect) doc["emitted"] = emitRecommendations(*emitDialect, spec.value(), result.value(), false);
    std::printf("%s\n", dumpJson(doc, 2).c_str());
  } else {
    printTuneTable(stdout, trace.value(), spec.value(), result.value(), readTime);
    if (emitDialect) emitRecommendations(*emitDialect, spec.value(), result.value(), true);
  }
  return result->cancelled ? interruptedExitCode() : kExitOk;
}

}  // namespace rl::cli
