#pragma once
// The self-contained HTML report: one file that opens offline and loads
// nothing (inline CSS, inline SVG, no scripts from anywhere). It carries what
// ran (quota, backend, Redis version, RateLab version, date, scenario), the
// summary table, the charts, and the run document itself as JSON in a
// <script type="application/json" id="run-document"> element, so the numbers
// in the table and the data behind them travel together.

#include <string>
#include <vector>

#include "common/json.hpp"
#include "common/result.hpp"
#include "keys/key_audit.hpp"
#include "report/svg_bars.hpp"
#include "report/svg_chart.hpp"
#include "storm/experiment.hpp"
#include "storm/race_lab.hpp"
#include "tune/tune_sweep.hpp"

namespace rl {

/// Who made the report, when, from what.
struct ReportHeader {
  std::string title;         ///< the page's heading ("Window boundary")
  std::string command;       ///< how it was made ("ratelab-cli run --scenario ...", "RateLab window")
  std::string scenario;      ///< the scenario file or preset, empty when none
  std::string redisVersion;  ///< the Redis it ran on ("7.0.15"), empty for memory or HTTP
  std::string generatedAt;   ///< ISO 8601 UTC; empty: now
};

/// A titled part of a report: sentences, a table, charts.
struct ReportSection {
  std::string heading;                 ///< the section's title
  std::vector<std::string> sentences;  ///< paragraphs above the charts
  Json table;                          ///< an array of objects: one row each, the first row's keys as columns
  std::vector<SvgChart> charts;        ///< drawn in order
  std::vector<SvgBars> bars;           ///< bar charts (a histogram's bins), drawn after the charts
  std::vector<std::string> figures{};  ///< other figures, already one <svg> each (a heatmap), drawn last
};

/// RateLab's version, as the report names it.
std::string rateLabVersion();
/// Now as ISO 8601 UTC ("2026-12-04T21:13:19Z").
std::string utcNow();
/// "ratelab-storm-20261204-211319.html": a file name with the date (UTC) and `extension`, for the window's
/// Save dialogs.
std::string suggestedFileName(std::string_view kind, std::string_view extension);

/// The whole page. `facts` are (name, value) rows of what ran; `document` is embedded as JSON.
std::string reportHtml(const ReportHeader& header, const std::vector<std::pair<std::string, std::string>>& facts,
                       const std::vector<ReportSection>& sections, const Json& document);

/// The report of an experiment (`ratelab-cli run --report`, the window's Export report):
/// the run document's summary, each run's lanes and levels.
std::string experimentReportHtml(const ExperimentResult& result, const ReportHeader& header);

/// Whether `path` can take a report, before any work: it ends in .html or .htm and its folder is
/// writable. The error names the path and what is allowed.
Result<void> checkReportPath(const std::string& path);

/// The race lab's report: what raced, the per-variant table, admitted per round against the capacity.
std::string raceReportHtml(const RaceSpec& spec, const std::vector<RaceVariantResult>& results, const Json& document,
                           const ReportHeader& header);

/// A tune sweep's report: the recommendation first, then legitimate denied by limit per algorithm.
std::string tuneReportHtml(const std::string& traceSummary, const TuneSpec& spec, const TuneResult& result,
                           const Json& document, const ReportHeader& header);

/// The key audit's report (`ratelab-cli keys --audit --report`, the inspector's Audit tab): the verdict
/// first, then the groups, the keys that will hurt, the servers and each group's TTL histogram.
/// `document` is keyAuditDocument()'s; `target` names the server or cluster audited.
std::string keyAuditReportHtml(const KeyAuditReport& report, const std::vector<std::string>& failed,
                               const std::string& target, const Json& document, const ReportHeader& header);

/// The HTTP limiter audit's report (`ratelab-cli audit --report`), from its `audit --json` document
/// alone: the verdict and every probe's finding, then burst's rounds and sustained's windows against the limit.
std::string auditReportHtml(const Json& document, const ReportHeader& header);

/// Writes `html` to `path` whole (a partial file is renamed in when complete); the error names the file.
Result<void> writeReport(const std::string& path, const std::string& html);

}  // namespace rl
