// keyAuditReportHtml: the key audit's report (`ratelab-cli keys --audit --report`, the inspector's
// Audit tab). The verdict comes first, because it is what a reader opens the page for.

#include <cstdio>

#include "common/byte_text.hpp"
#include "common/duration_text.hpp"
#include "report/html_report.hpp"

namespace rl {

namespace {
constexpr std::size_t kMostHistograms = 12;  // groups drawn; the rest are in the table

std::string libraryOf(const KeyAuditGroup& g) { return g.library.empty() ? "(no reader knows)" : g.library; }
std::string prefixOf(const KeyAuditGroup& g) { return g.prefix.empty() ? "(none)" : g.prefix; }

ReportSection verdictSection(const KeyAuditReport& r, const std::vector<std::string>& failed) {
  ReportSection s{"Verdict: " + std::string(failed.empty() ? "pass" : "fail"), {}, Json(), {}, {}};
  for (const std::string& f : failed) s.sentences.push_back("Fails " + f + ".");
  if (failed.empty())
    s.sentences.push_back("Every limiter key read has a TTL, and no check asked for with --require fails.");
  for (const std::string& w : r.warnings) s.sentences.push_back("Warning: " + w);
  for (const std::string& n : r.notes) s.sentences.push_back("Note: " + n);
  if (r.truncated)
    s.sentences.push_back("The scan stopped early (--max-keys or cancelled): the counts are of the " +
                          std::to_string(r.scanned) + " keys read, not of the whole database.");
  return s;
}

ReportSection groupsSection(const KeyAuditReport& r) {
  ReportSection s{"Keys per prefix and library", {}, Json::array(), {}, {}};
  s.sentences.push_back("Long TTL: keys whose TTL is more than twice what they need (their window, or the time to "
                        "refill to full), with a second of slack. Memory is MEMORY USAGE of a sample of the keys.");
  for (const KeyAuditGroup& g : r.groups) {
    Json row;
    row["prefix"] = prefixOf(g);
    row["library"] = libraryOf(g);
    row["keys"] = g.count;
    row["no TTL"] = g.noTtl;
    row["long TTL"] = g.longTtl;
    row["needs at most"] = g.boundMs ? Json(durationText(*g.boundMs)) : Json();
    row["memory (sampled)"] = g.memorySampled ? Json(bytesText(g.memoryBytes) + " in " + std::to_string(g.memorySampled))
                                              : Json();
    row["hottest"] = g.hottest.empty() ? Json()
                                       : Json(g.hottest[0].name + " " + std::to_string(g.hottest[0].used) + "/" +
                                              std::to_string(g.hottest[0].limit));
    s.table.push_back(std::move(row));
  }
  return s;
}

ReportSection hurtingSection(const KeyAuditReport& r) {
  ReportSection s{"The keys that will hurt", {}, Json::array(), {}, {}};
  std::int64_t unnamed = 0;
  for (const KeyAuditGroup& g : r.groups) {
    if (g.library.empty()) continue;  // a key no reader knows is listed under its own heading
    for (const std::string& n : g.noTtlNames)
      s.table.push_back({{"key", n}, {"library", g.library}, {"problem", "no TTL: it never expires"}});
    for (const LongTtlKey& k : g.longTtlKeys)
      s.table.push_back({{"key", k.name}, {"library", g.library},
                         {"problem", "TTL " + durationText(k.pttlMs) + ", needs at most " + durationText(k.boundMs)}});
    unnamed += g.noTtl - static_cast<std::int64_t>(g.noTtlNames.size()) + g.longTtl -
               static_cast<std::int64_t>(g.longTtlKeys.size());
  }
  if (s.table.empty()) s.sentences.push_back("No limiter key lacks a TTL or holds one far beyond what it needs.");
  if (unnamed > 0) s.sentences.push_back(std::to_string(unnamed) + " more such key(s) are counted above but not named.");
  for (const KeyAuditGroup& g : r.groups)
    if (g.library.empty() && !g.unknownNames.empty()) {
      std::string names;
      for (const std::string& n : g.unknownNames) names += (names.empty() ? "" : ", ") + n;
      s.sentences.push_back("No reader knows " + std::to_string(g.count) + " key(s) under '" + prefixOf(g) + "': " + names +
                            (g.count > static_cast<std::int64_t>(g.unknownNames.size()) ? ", ..." : "") + ".");
    }
  return s;
}

ReportSection rankedSection(const KeyAuditReport& r, bool hot) {
  ReportSection s{hot ? "The hottest clients (used / limit)" : "The biggest keys (MEMORY USAGE, sampled)", {}, Json::array(),
                  {}, {}};
  for (const KeyAuditGroup& g : r.groups)
    for (const RankedKey& k : hot ? g.hottest : g.biggest) {
      Json row{{"key", k.name}, {"library", libraryOf(g)}};
      if (hot) {
        row["used"] = k.used;
        row["limit"] = k.limit;
        row["used / limit"] = k.score;
      } else {
        row["size"] = bytesText(static_cast<std::int64_t>(k.score));
      }
      s.table.push_back(std::move(row));
    }
  if (s.table.empty()) s.sentences.push_back(hot ? "No key read holds both its count and its limit." : "No key was measured.");
  return s;
}

ReportSection serversSection(const KeyAuditReport& r) {
  ReportSection s{"Servers", {}, Json::array(), {}, {}};
  for (const ServerMemory& m : r.servers)
    s.table.push_back({{"node", m.node}, {"version", m.version}, {"maxmemory", m.maxmemory ? bytesText(m.maxmemory) : "0 (no limit)"},
                       {"maxmemory-policy", m.policy}, {"keys", m.keys}, {"with a TTL", m.keysWithTtl}});
  return s;
}

const char* binColor(TtlBin bin) {
  switch (bin) {
    case TtlBin::HalfBound:
    case TtlBin::Bound: return "#2a7ab9";
    case TtlBin::TwiceBound: return "#7fb0d8";
    case TtlBin::TenTimesBound:
    case TtlBin::Beyond: return "#c43c3c";
    case TtlBin::NoBound: return "#9a9a9a";
    case TtlBin::NoTtl: return "#7a1010";
  }
  return "#333333";
}

ReportSection histogramSection(const KeyAuditReport& r) {
  ReportSection s{"TTL against what each key needs", {}, Json(), {}, {}};
  s.sentences.push_back("Each bar counts keys by their TTL divided by the most they need (their window, or the time to "
                        "refill to full). Red bars are the keys flagged above: a TTL far beyond the need, or none. "
                        "\"No bound known\": the key does not hold its window (give it with --assume window=...).");
  std::size_t drawn = 0;
  for (const KeyAuditGroup& g : r.groups) {
    if (g.library.empty()) continue;
    if (drawn++ == kMostHistograms) {
      s.sentences.push_back("Only the " + std::to_string(kMostHistograms) + " largest groups are drawn.");
      break;
    }
    SvgBars bars{prefixOf(g) + " (" + g.library + "): " + std::to_string(g.count) + " key(s)", "TTL / what the key needs",
                 "keys", {}, 960, 220};
    for (std::size_t b = 0; b < kTtlBins; ++b)
      bars.bars.push_back({std::string(ttlBinName(static_cast<TtlBin>(b))), static_cast<double>(g.ttlHistogram[b]),
                           binColor(static_cast<TtlBin>(b))});
    s.bars.push_back(std::move(bars));
  }
  if (drawn == 0) s.sentences.push_back("No key read is a limiter key.");
  return s;
}
}  // namespace

std::string keyAuditReportHtml(const KeyAuditReport& r, const std::vector<std::string>& failed, const std::string& target,
                               const Json& document, const ReportHeader& header) {
  const std::string prefix = document.value("prefix", std::string());
  const std::vector<std::pair<std::string, std::string>> facts = {
      {"audited", target + ", " + (prefix.empty() ? std::string("every key") : "prefix '" + prefix + "'")},
      {"keys read", std::to_string(r.scanned) + ", of them " + std::to_string(r.limiterKeys) + " limiter key(s)" +
                        (r.truncated ? " (stopped early)" : "")},
      {"verdict", failed.empty() ? "pass" : "fail: " + std::to_string(failed.size()) + " check(s)"},
  };
  ReportHeader h = header;
  if (h.redisVersion.empty() && !r.servers.empty()) h.redisVersion = r.servers.front().version;  // the server audited
  return reportHtml(h, facts,
                    {verdictSection(r, failed), hurtingSection(r), groupsSection(r), histogramSection(r),
                     rankedSection(r, true), rankedSection(r, false), serversSection(r)},
                    document);
}

}  // namespace rl
