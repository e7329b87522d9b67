// ratelab-cli race: naive vs watch vs lua on one key, repeated rounds.
#include <cstdio>
#include <map>

#include "cli_flags.hpp"
#include "storm/storm_settings.hpp"
#include "commands.hpp"
#include "common/json.hpp"
#include "common/printable_text.hpp"
#include "redis_target.hpp"
#include "report/html_report.hpp"
#include "metrics/race_document.hpp"
#include "report_flag.hpp"
#include "storm/race_lab.hpp"
#include "storm/run_tag.hpp"

namespace rl::cli {

namespace {
constexpr const char* kRaceHelp =
    "usage: ratelab-cli race [options]\n"
    "  --redis URL          redis://[user:password@]host:port[/db] | redis+cluster://.. | redis+sentinel://..\n"
    "                       | cluster | sentinel (default: embedded)\n"
    "  --rounds R           rounds, each on a fresh key            (default 200)\n"
    "  --limit N            the key's capacity                     (default 10)\n"
    "  --concurrency C      requests released together per round   (default 20)\n"
    "  --algorithm A        token_bucket | fixed_window            (default token_bucket)\n"
    "  --think-ms MS        redis-naive only: pause between read and write, widens\n"
    "                       the race window for the demo           (default 1)\n"
    "  --prefix P           key prefix                             (default ratelab:)\n"
    "  --backend B[,B..]    variants: redis-naive, redis-watch, redis-lua, redis-script\n"
    "                       (default the first three, plus redis-script when --script is given)\n"
    "  --script FILE --script-keys T --script-argv T --script-reply NAMES   your own limiter\n"
    "                       (see run --help; {now_*} is the wall clock)\n"
    "  --json               one JSON document on stdout\n"
    "  --report FILE.html   one self-contained HTML report: the table, admitted per round, the JSON\n";

Result<RaceSpec> raceSpecFrom(const Flags& f) {
  RaceSpec s;
  auto rounds = intFlag(f, "rounds", s.rounds, 1, 100'000);
  if (!rounds) return rounds.error();
  auto limit = intFlag(f, "limit", s.capacity, 1, 10'000);
  if (!limit) return limit.error();
  auto conc = intFlag(f, "concurrency", s.concurrency, 1, 256);
  if (!conc) return conc.error();
  auto think = intFlag(f, "think-ms", s.thinkTime.count() / 1000, 0, 10'000);
  if (!think) return think.error();
  s.rounds = static_cast<int>(rounds.value());
  s.capacity = limit.value();
  s.concurrency = static_cast<int>(conc.value());
  s.thinkTime = Micros{think.value() * 1000};
  if (auto a = f.get("algorithm")) {
    auto algo = parseAlgorithm(*a);
    if (!algo) return invalidArgument("--algorithm: '" + *a + "' is not valid: allowed token_bucket or fixed_window");
    s.algorithm = *algo;
  }
  if (auto p = f.get("prefix")) s.prefix = *p;
  auto script = scriptSettingsFrom(f);
  if (!script) return script.error();
  s.script = std::move(script.value());
  printScriptWarnings(s.script);
  if (auto b = f.get("backend")) {
    s.variants.clear();
    StormSpec parsed;
    std::string_view rest = *b;
    while (true) {
      const auto comma = rest.find(',');
      if (auto ok = applyStormSetting(parsed, "backend", rest.substr(0, comma), "--backend"); !ok) return ok.error();
      s.variants.push_back(parsed.backend);
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
  } else if (!s.script.file.empty()) {
    s.variants.push_back(Backend::RedisScript);
  }
  if (s.prefix.empty()) return invalidArgument("--prefix is empty: allowed 1 to 200 characters");
  s.runTag = freshRunTag("race");
  if (auto ok = validate(s); !ok) return ok.error();
  return s;
}

}  // namespace

int cmdRace(const Args& args) {
  std::vector<FlagSpec> allowed{{"redis", true},  {"rounds", true}, {"limit", true},   {"concurrency", true},
                                {"algorithm", true}, {"think-ms", true}, {"prefix", true}, {"backend", true},
                                {"json", false},  {"report", true}, {"help", false}};
  const auto script = scriptFlags();
  allowed.insert(allowed.end(), script.begin(), script.end());
  auto flags = Flags::parse(args, allowed);
  if (!flags) return badInput("race", flags.error());
  if (flags->has("help")) {
    std::fputs(kRaceHelp, stdout);
    return kExitOk;
  }
  auto spec = raceSpecFrom(flags.value());
  if (!spec) return badInput("race", spec.error());
  if (int rc = checkReportFlag("race", *flags); rc != kExitOk) return rc;  // before the race, not after it
  std::optional<RedisTarget> redis;
  if (int rc = resolveRedisTarget(flags->get("redis"), "race", redis); rc != kExitOk) return rc;
  auto results = runRace(spec.value(), redis->endpoint);
  if (!results) {
    std::fprintf(stderr, "ratelab-cli race: %s\n", printableText(results.error().message).c_str());
    return results.error().code == ErrorCode::Unavailable ? kExitNoRedis : kExitFailed;
  }
  const Json doc = raceDocument(spec.value(), results.value());
  if (flags->has("report")) {
    const ReportHeader header{"Race lab: check-then-increment against its atomic fixes", commandLine("race", args), "",
                              redisVersion(redis->endpoint), ""};
    if (int rc = writeReportFlag("race", flags.value(), raceReportHtml(spec.value(), results.value(), doc, header)); rc != kExitOk)
      return rc;
  }
  if (flags->has("json")) {
    std::printf("%s\n", dumpJson(doc, 2).c_str());
    return kExitOk;
  }
  std::printf("race: %d rounds, capacity %lld, %d concurrent requests per round (%s, naive think %lld ms)\n",
              spec->rounds, static_cast<long long>(spec->capacity), spec->concurrency,
              std::string(algorithmName(spec->algorithm)).c_str(),
              static_cast<long long>(spec->thinkTime.count() / 1000));
  std::printf("%-8s %8s %8s %9s %17s %9s %7s\n", "variant", "min", "max", "mean", "over-limit rounds", "retries", "errors");
  for (const RaceVariantResult& r : results.value())
    std::printf("%-8s %8lld %8lld %9.2f %17lld %9lld %7lld\n", std::string(raceVariantName(r.variant)).c_str(),
                static_cast<long long>(r.admittedMin), static_cast<long long>(r.admittedMax), r.admittedMean,
                static_cast<long long>(r.overLimitRounds), static_cast<long long>(r.retries),
                static_cast<long long>(r.errors));
  return kExitOk;
}

}  // namespace rl::cli
