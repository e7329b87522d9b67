#include "report/html_report.hpp"

#include "common/file_write.hpp"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>

#ifndef RATELAB_VERSION
#define RATELAB_VERSION "unknown"
#endif

namespace rl {

namespace {
// One stylesheet, inline: the page loads nothing.
constexpr const char* kStyle = R"(
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1d1d1f;margin:24px auto;max-width:1100px;padding:0 16px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #ddd;padding-bottom:4px}
table{border-collapse:collapse;margin:8px 0;font-variant-numeric:tabular-nums}
td,th{border:1px solid #d8d8d8;padding:2px 6px;font-size:13px;text-align:left;white-space:nowrap}
th{background:#f3f3f3}td.n{text-align:right}
table.facts td{text-align:left;white-space:normal;overflow-wrap:anywhere}table.facts td:first-child{color:#555}
.scroll{overflow-x:auto}
svg.chart{display:block;margin:10px 0;background:#fff;max-width:100%;height:auto}
svg.chart text{font:12px system-ui,sans-serif;fill:#333}svg.chart text.title{font-weight:600;font-size:13px}
svg.chart .grid{stroke:#e6e6e6}svg.chart .frame{fill:none;stroke:#999}
svg.chart path.series{fill:none;stroke-width:1.6}
svg.heatmap .contour{stroke:#1d1d1f;stroke-width:2.5}svg.heatmap .recommended{fill:none;stroke:#1d1d1f;stroke-width:2.5}
svg.heatmap .tick{stroke:#333}
footer{color:#777;margin-top:32px;font-size:12px}
)";

std::string cell(const Json& v) {
  if (v.is_string()) return xmlEscaped(v.get<std::string>());
  if (v.is_null()) return "\u2014";
  if (v.is_number_float()) {  // 683761 decisions/s, 1.01 overshoot, 19.98 admitted on average
    const double d = v.get<double>();
    char buf[32];
    std::snprintf(buf, sizeof buf, std::abs(d) >= 1000 ? "%.0f" : "%.4g", d);
    return buf;
  }
  return xmlEscaped(dumpJson(v));
}

std::string tableHtml(const Json& rows) {
  if (!rows.is_array() || rows.empty() || !rows.front().is_object()) return {};
  std::string out = "<div class=\"scroll\"><table class=\"summary\"><tr>";
  for (const auto& [key, _] : rows.front().items()) out += "<th>" + xmlEscaped(key) + "</th>";
  out += "</tr>";
  for (const Json& row : rows) {
    out += "<tr>";
    for (const auto& [key, _] : rows.front().items()) {
      const bool number = row.contains(key) && row[key].is_number();  // numbers right-aligned, words left
      out += (number ? "<td class=\"n\">" : "<td>") + (row.contains(key) ? cell(row[key]) : "") + "</td>";
    }
    out += "</tr>";
  }
  return out + "</table></div>";
}

/// JSON inside <script>: "</" would end the element, so every '<' is escaped.
std::string scriptSafe(std::string json) {
  std::string out;
  out.reserve(json.size());
  for (char c : json) out += c == '<' ? std::string("\\u003c") : std::string(1, c);
  return out;
}

std::string stamp(const char* format) {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char buf[64];
  std::strftime(buf, sizeof buf, format, &utc);
  return buf;
}
}  // namespace

std::string rateLabVersion() { return RATELAB_VERSION; }

std::string utcNow() { return stamp("%Y-%m-%dT%H:%M:%SZ"); }

std::string suggestedFileName(std::string_view kind, std::string_view extension) {
  return "ratelab-" + std::string(kind) + "-" + stamp("%Y%m%d-%H%M%S") + "." + std::string(extension);
}

std::string reportHtml(const ReportHeader& header, const std::vector<std::pair<std::string, std::string>>& facts,
                       const std::vector<ReportSection>& sections, const Json& document) {
  const std::string when = header.generatedAt.empty() ? utcNow() : header.generatedAt;
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">"
                    "<title>" + xmlEscaped(header.title) + " \u2014 RateLab report</title><style>" + kStyle +
                    "</style></head><body>\n";
  out += "<h1>" + xmlEscaped(header.title) + "</h1>\n<table class=\"facts\">";
  std::vector<std::pair<std::string, std::string>> all = facts;
  if (!header.scenario.empty()) all.insert(all.begin(), {"scenario", header.scenario});
  all.emplace_back("Redis", header.redisVersion.empty() ? "not used" : header.redisVersion);
  all.emplace_back("RateLab", rateLabVersion());
  all.emplace_back("made", when + " by " + header.command);
  for (const auto& [name, value] : all) out += "<tr><td>" + xmlEscaped(name) + "</td><td>" + xmlEscaped(value) + "</td></tr>";
  out += "</table>\n";
  for (const ReportSection& s : sections) {
    out += "<section><h2>" + xmlEscaped(s.heading) + "</h2>\n";
    for (const std::string& p : s.sentences) out += "<p>" + xmlEscaped(p) + "</p>\n";
    out += tableHtml(s.table);
    for (const SvgChart& c : s.charts) out += renderSvg(c) + "\n";
    for (const SvgBars& b : s.bars) out += renderBars(b) + "\n";
    for (const std::string& svg : s.figures) out += svg + "\n";
    out += "</section>\n";
  }
  out += "<footer>The run document is embedded below as JSON (element id \"run-document\"): the table's numbers "
         "and the data behind them.</footer>\n<script type=\"application/json\" id=\"run-document\">" +
         scriptSafe(dumpJson(document, 1)) + "</script>\n</body></html>\n";
  return out;
}

Result<void> checkReportPath(const std::string& path) {
  const auto endsWith = [&](std::string_view tail) {
    return path.size() > tail.size() && path.compare(path.size() - tail.size(), tail.size(), tail) == 0;
  };
  if (!endsWith(".html") && !endsWith(".htm"))
    return invalidArgument("'" + path + "' must end in .html or .htm (the report is one HTML file)");
  const std::string partial = path + ".part";
  std::FILE* f = std::fopen(partial.c_str(), "w");
  if (!f) return invalidArgument("cannot write '" + path + "': " + std::strerror(errno));
  std::fclose(f);
  std::remove(partial.c_str());
  return {};
}

Result<void> writeReport(const std::string& path, const std::string& html) {
  if (auto ok = checkReportPath(path); !ok) return ok;  // every writer refuses a wrong name the same way
  return writeFileAtomically(path, [&](std::FILE* f) { return std::fwrite(html.data(), 1, html.size(), f) == html.size(); });
}

}  // namespace rl
