// experimentReportHtml: the report of a run (the CLI's --report and the window's Export report).

#include "metrics/run_document.hpp"
#include "report/html_report.hpp"
#include "metrics/over_limit.hpp"
#include "report/run_charts.hpp"
#include "storm/compared_runs.hpp"

namespace rl {

namespace {
/// One summary row from a run entry of the run document (the same numbers as --json); the quota is
/// in the facts above the table, so a 1024 px page shows every column.
Json summaryRow(const Json& run) {
  Json row;
  const auto copy = [&](const char* from, const char* as) { row[as] = run.contains(from) ? run[from] : Json(); };
  copy("algorithm", "algorithm");
  copy("backend", "backend");
  copy("offered", "offered");
  copy("admitted", "admitted");
  copy("denied", "denied");
  copy("errors", "errors");
  copy("max_admitted_in_window", "most in a window");
  copy("overshoot", "overshoot");
  row["over limit"] = run.contains("over_limit") ? run["over_limit"].value("admitted", Json()) : Json();
  row["p99 \u00b5s"] = run.contains("latency_us") ? run["latency_us"].value("p99", Json()) : Json();
  copy("throughput_rps", "decisions/s");
  return row;
}

std::string joined(const std::vector<Algorithm>& algorithms) {
  std::string out;
  for (Algorithm a : algorithms) out += (out.empty() ? "" : ", ") + std::string(algorithmName(a));
  return out;
}
}  // namespace

std::string experimentReportHtml(const ExperimentResult& result, const ReportHeader& header) {
  const auto metricsOfRuns = experimentMetrics(result);  // once, for the document and the charts
  const Json document = runDocument(result, metricsOfRuns);
  const StormSpec& spec = result.spec;
  std::vector<std::pair<std::string, std::string>> facts = {
      {"quota", spec.quota.toString()},
      {"algorithms", joined(spec.algorithms)},
      {"backend", backendLabel(spec)},
      {"storm", std::string(patternName(spec.pattern)) + ", " + std::to_string(spec.clients) + " client(s), " +
                    std::to_string(spec.replicas) + " replica(s), clock " + std::string(clockModeName(spec.clock))},
  };
  if (result.cancelled) facts.emplace_back("stopped", "cancelled: the report shows what was recorded");
  std::vector<ReportSection> sections;
  ReportSection summary{"Summary", {}, Json::array(), {}, {}};
  for (const Json& run : document["runs"]) summary.table.push_back(summaryRow(run));
  summary.sentences.push_back("Over limit is judged per client against each algorithm's own promise: a window "
                              "algorithm's count in its window, a rate algorithm's burst plus what refills; "
                              "overshoot is the largest need / limit of any admission.");
  sections.push_back(std::move(summary));
  for (std::size_t i = 0; i < result.runs.size(); ++i) {
    const ExperimentRun& run = result.runs[i];
    const std::vector<AlgorithmMetrics>& metrics = metricsOfRuns[i];
    ReportSection s{result.runs.size() > 1 ? "Run " + std::to_string(i + 1) + " of " + std::to_string(result.runs.size()) +
                                                 ": " + backendLabel(run.spec) + ", --on-redis-error " +
                                                 std::string(failurePolicyName(run.spec.resilience.onRedisError))
                                           : "Lanes: " + backendLabel(run.spec),
                    {}, Json(), runCharts(run, metrics), {}};
    for (const AlgorithmMetrics& m : metrics)
      s.sentences.push_back(std::string(algorithmName(m.algorithm)) + ": " + overLimitBoundText(m.algorithm, run.spec.quota) +
                            "; " + admissionsText(m.overLimitAdmitted) + " over it, at most " +
                            std::to_string(m.maxAdmittedInWindow) + " admitted in one window.");
    sections.push_back(std::move(s));
  }
  return reportHtml(header, facts, sections, document);
}

}  // namespace rl
