// ratelab-cli explain: a config as quotas (--from DIALECT), or a quota as config (--to DIALECT).
#include <cstdio>
#include <filesystem>

#include "cli_flags.hpp"
#include "commands.hpp"
#include "common/file_read.hpp"
#include "dialect_report.hpp"
#include "storm/storm_settings.hpp"

namespace rl::cli {

namespace {
constexpr const char* kExplainHelp =
    "usage: ratelab-cli explain --from DIALECT TEXT|FILE [--simultaneous N] [--json]\n"
    "       ratelab-cli explain --to DIALECT --algorithm A --limit N [--window-ms W] [--refill-rate R] [--json]\n"
    "--from reads the team's limiter config as RateLab quotas and says what each does: the\n"
    "emission interval, how many of N simultaneous requests pass, are delayed or are denied,\n"
    "and the most admitted in any second and any minute (RateLab's limiter on a virtual\n"
    "clock). Settings RateLab can't model are named. --to prints a quota in the dialect's\n"
    "syntax, ready to paste; what the closest setting does differently goes to stderr.\n"
    "  --from DIALECT       read TEXT (or the file FILE) in that dialect\n"
    "  --simultaneous N     N requests at one instant (1 to 100000, default 2 x limit, at least 10)\n"
    "  --to DIALECT         write --algorithm, --limit, --window-ms (default 1000), --refill-rate\n"
    "  --json               one JSON document on stdout\n";

std::string dialectList() {
  std::string out;
  for (const Dialect& d : allDialects()) out += "  " + std::string(d.name) + ": " + std::string(d.summary) + "\n";
  return out;
}

Result<const Dialect*> dialectFlag(const Flags& flags, std::string_view name) {
  const std::string value = flags.get(name).value_or("");
  if (const Dialect* d = findDialect(value)) return d;
  return invalidArgument("--" + std::string(name) + " '" + value + "' is not a dialect: allowed " + dialectNames());
}

int explainFrom(const Flags& flags, const std::vector<std::string>& positional) {
  auto dialect = dialectFlag(flags, "from");
  if (!dialect) return badInput("explain", dialect.error());
  if (positional.size() != 1)
    return badInput("explain", invalidArgument("--from needs one TEXT or FILE argument (quote the config)"));
  std::string text = positional[0];
  std::error_code ec;
  if (std::filesystem::is_regular_file(text, ec)) {
    auto file = readWholeFile(text, "explain");
    if (!file) return badInput("explain", file.error());
    text = file.value();
  }
  auto quotas = (*dialect)->parse(text);
  if (!quotas) return badInput("explain", quotas.error());
  auto simultaneous = intFlag(flags, "simultaneous", 0, 1, 100'000);
  if (!simultaneous) return badInput("explain", simultaneous.error());
  std::vector<ExplainedQuota> out;
  for (const DialectQuota& q : quotas.value()) {
    const std::int64_t n = simultaneous.value() > 0 ? simultaneous.value() : defaultSimultaneous(q.quota);
    out.push_back({q, explainQuota(q.algorithm, q.quota, n)});
  }
  if (flags.has("json")) std::printf("%s\n", dumpJson(explainedJson(**dialect, out), 2).c_str());
  else printExplained(stdout, **dialect, out);
  return kExitOk;
}

int explainTo(const Flags& flags) {
  auto dialect = dialectFlag(flags, "to");
  if (!dialect) return badInput("explain", dialect.error());
  if (!flags.has("algorithm") || !flags.has("limit"))
    return badInput("explain", invalidArgument("--to needs --algorithm and --limit (and --window-ms or --refill-rate)"));
  StormSpec s;  // the storm settings table parses the quota flags, as for run
  s.quota = Quota::perSecond(1);
  for (const char* key : {"algorithm", "limit", "window-ms", "refill-rate"}) {
    std::string setting = key;
    for (char& c : setting) c = c == '-' ? '_' : c;
    if (auto v = flags.get(key))
      if (auto ok = applyStormSetting(s, setting, *v, "--" + std::string(key)); !ok) return badInput("explain", ok.error());
  }
  if (s.algorithms.size() != 1)
    return badInput("explain", invalidArgument("--algorithm: one algorithm for --to: allowed fixed_window, sliding_log, "
                                               "sliding_counter, token_bucket, leaky_bucket, gcra"));
  if (auto ok = s.quota.validate(s.algorithms[0]); !ok) return badInput("explain", ok.error());
  const Emitted e = (*dialect)->emitConfig(s.algorithms[0], s.quota);
  if (flags.has("json")) std::printf("%s\n", dumpJson(emittedJson(**dialect, s.algorithms[0], e), 2).c_str());
  else printEmitted(stdout, stderr, e);
  return kExitOk;
}
}  // namespace

int cmdExplain(const Args& args) {
  static const FlagSpec kFlags[] = {{"from", true},        {"to", true},          {"algorithm", true},
                                    {"limit", true},       {"window-ms", true},   {"refill-rate", true},
                                    {"simultaneous", true}, {"json", false},      {"help", false}};
  std::vector<std::string> positional;
  auto flags = Flags::parse(args, kFlags, &positional);
  if (!flags) return badInput("explain", flags.error());
  if (flags->has("help")) {
    std::printf("%sdialects:\n%s", kExplainHelp, dialectList().c_str());
    return kExitOk;
  }
  if (flags->has("from") == flags->has("to"))
    return badInput("explain", invalidArgument("give one of --from DIALECT TEXT|FILE or --to DIALECT: allowed dialects " +
                                               dialectNames()));
  if (flags->has("to") && !positional.empty())
    return badInput("explain", invalidArgument("--to takes no TEXT argument: '" + positional[0] + "'"));
  return flags->has("from") ? explainFrom(flags.value(), positional) : explainTo(flags.value());
}

}  // namespace rl::cli
