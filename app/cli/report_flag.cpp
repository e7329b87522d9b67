#include "report_flag.hpp"

#include <cstdio>

#include "common/printable_text.hpp"
#include "report/html_report.hpp"

namespace rl::cli {

int checkReportFlag(std::string_view command, const Flags& flags) {
  if (auto path = flags.get("report"))
    if (auto ok = checkReportPath(*path); !ok) return badInput(command, invalidArgument("--report: " + ok.error().message));
  return kExitOk;
}

std::string commandLine(std::string_view command, const Args& args) {
  std::string line = "ratelab-cli " + std::string(command);
  for (const std::string& a : args) line += " " + a;
  return printableText(line);
}

int writeReportFlag(std::string_view command, const Flags& flags, const std::string& html) {
  const auto path = flags.get("report");
  if (!path) return kExitOk;
  if (auto ok = writeReport(*path, html); !ok) return badInput(command, invalidArgument("--report: " + ok.error().message));
  std::fprintf(stderr, "report: %s\n", path->c_str());
  return kExitOk;
}

}  // namespace rl::cli
