#include "dialect_report.hpp"

#include "common/printable_text.hpp"

namespace rl::cli {

namespace {
std::string runFlags(const DialectQuota& d) {
  std::string flags = "--algorithm " + std::string(algorithmName(d.algorithm)) + " --limit " + std::to_string(d.quota.limit) +
                      " --window-ms " + std::to_string(d.quota.window.count() / 1000);
  if (d.quota.refillPerSecond) {
    char rate[32];
    std::snprintf(rate, sizeof rate, "%.9g", *d.quota.refillPerSecond);
    flags += std::string(" --refill-rate ") + rate;
  }
  return flags;
}
}  // namespace

void printExplained(std::FILE* out, const Dialect& dialect, const std::vector<ExplainedQuota>& quotas) {
  for (const ExplainedQuota& q : quotas) {
    std::fprintf(out, "%s: %s\n", std::string(dialect.name).c_str(), printableText(q.quota.name).c_str());
    for (const std::string& s : explanationSentences(q.quota.algorithm, q.quota.quota, q.explanation))
      std::fprintf(out, "  %s\n", s.c_str());
    for (const std::string& s : q.quota.unmodeled) std::fprintf(out, "  not modeled: %s\n", printableText(s).c_str());
    for (const std::string& s : q.quota.notes) std::fprintf(out, "  note: %s\n", printableText(s).c_str());
    std::fprintf(out, "  run it: ratelab-cli run %s\n", runFlags(q.quota).c_str());
  }
}

Json explainedJson(const Dialect& dialect, const std::vector<ExplainedQuota>& quotas) {
  Json list = Json::array();
  for (const ExplainedQuota& q : quotas) {
    const QuotaExplanation& e = q.explanation;
    Json j;
    j["name"] = q.quota.name;
    j["algorithm"] = algorithmName(q.quota.algorithm);
    j["limit"] = q.quota.quota.limit;
    j["window_ms"] = q.quota.quota.window.count() / 1000;
    j["refill_rate"] = q.quota.quota.refillPerSecond ? Json(*q.quota.quota.refillPerSecond) : Json();
    j["emission_interval_us"] = e.emissionInterval.count();
    j["simultaneous"] = {{"requests", e.simultaneous}, {"passed", e.passed}, {"delayed", e.delayed},
                         {"denied", e.denied}, {"longest_delay_us", e.longestDelay.count()}};
    j["max_admitted_in_second"] = e.maxInSecond;
    j["max_admitted_in_minute"] = e.maxInMinute;
    j["capped"] = e.capped;
    j["unmodeled"] = q.quota.unmodeled;
    j["notes"] = q.quota.notes;
    j["explanation"] = explanationSentences(q.quota.algorithm, q.quota.quota, e);
    list.push_back(std::move(j));
  }
  return Json{{"dialect", dialect.name}, {"quotas", std::move(list)}};
}

void printEmitted(std::FILE* out, std::FILE* notes, const Emitted& emitted) {
  std::fputs(emitted.text.c_str(), out);
  for (const std::string& d : emitted.differences) std::fprintf(notes, "differs: %s\n", d.c_str());
}

Json emittedJson(const Dialect& dialect, Algorithm algorithm, const Emitted& emitted) {
  return Json{{"dialect", dialect.name},
              {"algorithm", algorithmName(algorithm)},
              {"text", emitted.text},
              {"differences", emitted.differences}};
}

}  // namespace rl::cli
