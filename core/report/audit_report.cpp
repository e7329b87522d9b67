// auditReportHtml: the HTTP limiter audit's report (`ratelab-cli audit --report`), drawn from the
// `audit --json` document alone, so the page and the document cannot disagree.

#include <algorithm>

#include "report/html_report.hpp"

namespace rl {

namespace {
std::string text(const Json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_null()) return "unknown";
  return dumpJson(v);
}

const Json* checkNamed(const Json& doc, std::string_view name) {
  if (!doc.contains("checks") || !doc.at("checks").is_array()) return nullptr;
  for (const Json& c : doc.at("checks"))  // by reference: the pointer outlives this call
    if (c.is_object() && c.value("name", std::string()) == name) return &c;
  return nullptr;
}

/// Counts per round or per window against the limit, over-limit x's banded: burst and sustained.
SvgChart countsChart(const std::string& title, const std::string& xTitle, const Json& counts, const Json& limit,
                     const std::string& color) {
  // Round k spans [k - 0.5, k + 0.5]: a count per round is a step, never a slope between rounds.
  const double last = static_cast<double>(std::max<std::size_t>(1, counts.size())) + 0.5;
  SvgChart c{title, xTitle, "admitted", "", 0.5, last, {}, {}, "over the limit", "#d62728", 0, 960, 220};
  if (limit.is_number())
    c.series.push_back({"limit " + dumpJson(limit), "#333333", {{0.5, limit.get<double>()}, {last, limit.get<double>()}},
                        false, true, false});
  SvgSeries admitted{"admitted", color, {}, false, false, true};
  for (std::size_t k = 0; k < counts.size(); ++k) {
    if (!counts[k].is_number()) continue;
    const double x = static_cast<double>(k + 1), y = counts[k].get<double>();
    admitted.points.push_back({x - 0.5, y});
    if (!limit.is_number() || y <= limit.get<double>()) continue;
    if (!c.bands.empty() && c.bands.back().to == x - 0.5) c.bands.back().to = x + 0.5;  // consecutive: one band
    else c.bands.push_back({x - 0.5, x + 0.5});
  }
  c.series.push_back(std::move(admitted));
  return c;
}
}  // namespace

std::string auditReportHtml(const Json& doc, const ReportHeader& header) {
  const Json declared = doc.value("declared", Json::object());
  const Json fingerprint = doc.value("fingerprint", Json::object());
  std::string policy = declared.value("dialect", std::string("none"));
  if (declared.value("limit", Json()).is_number())
    policy += ": " + text(declared["limit"]) + " per " + text(declared.value("window_s", Json())) + " s";
  const std::vector<std::pair<std::string, std::string>> facts = {
      {"target", doc.value("target", std::string())},
      {"declared", policy},
      {"fingerprint", fingerprint.value("summary", std::string())},
      {"sent", text(doc.value("requests", Json())) + " requests in " + text(doc.value("elapsed_ms", Json())) + " ms"},
  };
  ReportSection verdict{"Verdict: " + doc.value("verdict", std::string()), {doc.value("summary", std::string())},
                        Json::array(), {}, {}};
  for (const Json& c : doc.value("checks", Json::array()))
    verdict.table.push_back({{"probe", c.value("name", std::string())}, {"verdict", c.value("verdict", std::string())},
                             {"what it found", c.value("summary", std::string())}});
  std::vector<ReportSection> sections{std::move(verdict)};
  ReportSection charts{"What the target admitted", {}, Json(), {}, {}};
  if (const Json* burst = checkNamed(doc, "burst"); burst && burst->contains("admitted_per_round")) {
    charts.sentences.push_back("Burst: " + burst->value("summary", std::string()));
    charts.charts.push_back(countsChart("burst: " + text(burst->value("concurrency", Json())) +
                                            " concurrent requests per round, every round on the probe's one key",
                                        "round", (*burst)["admitted_per_round"], burst->value("limit", Json()), "#2a7ab9"));
  }
  if (const Json* sustained = checkNamed(doc, "sustained"); sustained && sustained->contains("admitted_per_window")) {
    charts.sentences.push_back("Sustained: " + sustained->value("summary", std::string()));
    charts.charts.push_back(countsChart("sustained: " + text(sustained->value("rate_per_s", Json())) + " requests/s",
                                        "window", (*sustained)["admitted_per_window"], sustained->value("limit", Json()),
                                        "#3a9a4a"));
  }
  if (!charts.charts.empty()) sections.push_back(std::move(charts));
  return reportHtml(header, facts, sections, doc);
}

}  // namespace rl
