// raceReportHtml: the race lab's report (`ratelab-cli race --report`).

#include "report/html_report.hpp"

namespace rl {

std::string raceReportHtml(const RaceSpec& spec, const std::vector<RaceVariantResult>& results, const Json& document,
                           const ReportHeader& header) {
  const std::vector<std::pair<std::string, std::string>> facts = {
      {"race", std::to_string(spec.rounds) + " rounds, " + std::to_string(spec.concurrency) +
                   " requests released together per round at one fresh key"},
      {"capacity", std::to_string(spec.capacity) + " (" + std::string(algorithmName(spec.algorithm)) + ")"},
      {"naive think time", std::to_string(spec.thinkTime.count() / 1000) + " ms between read and write"},
  };
  ReportSection summary{"Summary", {}, Json::array(), {}, {}};
  summary.sentences.push_back("An atomic variant admits exactly the capacity every round; the naive "
                              "check-then-increment admits more when the reads interleave.");
  // One chart per variant, each with its capacity: an atomic variant's line lies on the capacity and would
  // hide another's in one shared chart.
  const char* colors[] = {"#c43c3c", "#e08a1e", "#2a7ab9", "#3a9a4a"};
  const double last = static_cast<double>(std::max(2, spec.rounds));
  ReportSection chart{"Round by round", {}, Json(), {}, {}};
  // The table is the document's (`race --json`'s) numbers, so the two can't disagree.
  const std::pair<const char*, const char*> columns[] = {{"name", "variant"}, {"admitted_min", "admitted min"},
      {"admitted_max", "max"}, {"admitted_mean", "mean"}, {"over_limit_rounds", "over-limit rounds"},
      {"retries", "retries"}, {"errors", "errors"}};
  for (const Json& v : document.value("variants", Json::array())) {
    Json row;
    for (const auto& [key, title] : columns) row[title] = v.value(key, Json());
    summary.table.push_back(std::move(row));
  }
  for (std::size_t i = 0; i < results.size(); ++i) {
    const RaceVariantResult& r = results[i];
    const std::string name(raceVariantName(r.variant));
    SvgChart c{name + ": admitted per round", "round", "admitted", "", 1, last, {}, {},
               "over the capacity (" + std::to_string(r.overLimitRounds) + " of " + std::to_string(r.admitted.size()) + " rounds)",
               "#d62728", 0, 960, 200};
    c.series.push_back({"capacity " + std::to_string(spec.capacity), "#333333",
                        {{1, static_cast<double>(spec.capacity)}, {last, static_cast<double>(spec.capacity)}}, false, true, false});
    SvgSeries admitted{name, colors[i % 4], {}, false, false, false};
    for (std::size_t k = 0; k < r.admitted.size(); ++k) {
      const double round = static_cast<double>(k + 1);
      admitted.points.push_back({round, static_cast<double>(r.admitted[k])});
      if (r.admitted[k] <= spec.capacity) continue;
      if (!c.bands.empty() && c.bands.back().to == round - 0.5) {
        c.bands.back().to = round + 0.5;  // consecutive rounds over: one band
      } else {
        c.bands.push_back({round - 0.5, round + 0.5});
      }
    }
    c.series.push_back(std::move(admitted));
    chart.charts.push_back(std::move(c));
  }
  return reportHtml(header, facts, {std::move(summary), std::move(chart)}, document);
}

}  // namespace rl
