// loadTrace: detect the format, stream the lines, intern client keys, spread
// one-second times, sort.
#include <algorithm>
#include <array>
#include <cstdio>
#include <unordered_map>

#include "trace/line_parser.hpp"
#include "trace/line_source.hpp"
#include "trace/log_time.hpp"
#include "trace/trace.hpp"
#include "trace/trace_filter.hpp"

namespace rl {

namespace {

constexpr std::size_t kDetectLines = 64;
constexpr std::uint32_t kWholeSecondBit = 0x8000'0000u;  // in TraceRequest::cost while loading
constexpr std::int64_t kCheckEvery = 65'536;             // lines between progress / cancel checks

bool blank(std::string_view l) { return l.find_first_not_of(" \t") == std::string_view::npos; }

// Keys by name without a std::string per lookup (heterogeneous lookup).
struct KeyHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};
using KeyIndex = std::unordered_map<std::string, std::uint32_t, KeyHash, std::equal_to<>>;

std::string formatList() { return "combined, common, nginx:'<log_format>', jsonl or csv"; }

// The format whose parser accepts most of the first lines; an error when none or a tie.
Result<TraceFormat> detectFormat(const TraceOptions& o) {
  auto src = LineSource::open(o.path);
  if (!src) return src.error();
  std::vector<std::string> sample;
  std::string_view line;
  LineSource::Status st;
  while (sample.size() < kDetectLines && (st = src->next(line)) != LineSource::Status::End) {
    if (st == LineSource::Status::Error) return invalidArgument(src->error());
    if (st == LineSource::Status::Line && !blank(line)) sample.emplace_back(line);
  }
  constexpr std::array<TraceFormatKind, 4> kCandidates = {TraceFormatKind::Jsonl, TraceFormatKind::Csv,
                                                          TraceFormatKind::Combined, TraceFormatKind::Common};
  std::array<std::size_t, 4> score{};
  for (std::size_t c = 0; c < kCandidates.size(); ++c) {
    TraceOptions probe = o;
    if (kCandidates[c] != TraceFormatKind::Jsonl) {
      probe = TraceOptions{};
      probe.path = o.path;
    }
    auto parser = makeLineParser(TraceFormat{kCandidates[c], {}}, probe);
    if (!parser) continue;
    ParsedLine p;
    std::string why;
    for (const auto& l : sample) score[c] += (*parser)->parse(l, p, why) == LineParser::Outcome::Ok;
  }
  const auto best = std::max_element(score.begin(), score.end());
  if (*best == 0 || std::count(score.begin(), score.end(), *best) > 1)
    return invalidArgument("--trace-format: cannot tell the format of '" + o.path + "' from its first " +
                           std::to_string(sample.size()) + " lines: give --trace-format (allowed " + formatList() +
                           ")");
  return TraceFormat{kCandidates[static_cast<std::size_t>(best - score.begin())], {}};
}

// Requests that share one whole second are spread evenly within it, in file order.
void spreadWholeSeconds(std::vector<TraceRequest>& r, TraceStats& stats) {
  std::vector<std::size_t> group;
  for (std::size_t i = 0; i < r.size();) {
    std::size_t j = i;
    group.clear();
    for (; j < r.size() && r[j].timeUs == r[i].timeUs; ++j)
      if (r[j].cost & kWholeSecondBit) group.push_back(j);
    const auto n = static_cast<std::int64_t>(group.size());
    for (std::int64_t k = 0; k < n; ++k) r[group[static_cast<std::size_t>(k)]].timeUs += k * 1'000'000 / n;
    stats.spread += n;
    i = j;
  }
}

// Stable, and free for the usual case of a log already in time order.
void sortByTime(std::vector<TraceRequest>& r) {
  const auto earlier = [](const TraceRequest& a, const TraceRequest& b) { return a.timeUs < b.timeUs; };
  if (!std::is_sorted(r.begin(), r.end(), earlier)) std::stable_sort(r.begin(), r.end(), earlier);
}

std::string badLineList(const TraceStats& s) {
  std::string out;
  for (auto n : s.firstBadLines) out += (out.empty() ? "" : ", ") + std::to_string(n);
  return out;
}

Result<void> finish(Trace& t, const TraceOptions& o) {
  const TraceStats& s = t.stats;
  if (o.strict && s.bad > 0)
    return invalidArgument("--strict: '" + o.path + "' has " + std::to_string(s.bad) + " bad lines (first at " +
                           badLineList(s) + ": " + s.firstBadReason + ")");
  if (t.requests.empty() && s.filtered > 0)
    return invalidArgument("--trace-filter: no line of '" + o.path + "' matches '" + o.filter + "' (" +
                           std::to_string(s.filtered) + " valid lines)");
  if (t.requests.empty())
    return invalidArgument("--trace: '" + o.path + "' has no valid request line (" + std::to_string(s.lines) +
                           " lines, " + std::to_string(s.bad) + " bad" +
                           (s.bad > 0 ? ", first at " + badLineList(s) + ": " + s.firstBadReason : std::string()) +
                           "; format " + traceFormatText(t.format) + ")");
  if (t.keys.size() > UINT32_MAX / 2) return invalidArgument("--trace: too many distinct client keys");
  sortByTime(t.requests);
  if (!o.burst) {
    spreadWholeSeconds(t.requests, t.stats);
    sortByTime(t.requests);
  }
  for (auto& r : t.requests) r.cost &= ~kWholeSecondBit;
  return {};
}

void noteBad(TraceStats& s, std::int64_t lineNo, const std::string& why) {
  if (s.bad++ == 0) s.firstBadReason = "line " + std::to_string(lineNo) + " " + why;
  if (s.firstBadLines.size() < kBadLinesShown) s.firstBadLines.push_back(lineNo);
}

}  // namespace

Result<Trace> loadTrace(const TraceOptions& o, const std::function<void(std::int64_t)>& progress,
                        const std::atomic<bool>* cancel) {
  Trace t;
  t.path = o.path;
  t.format = o.format;
  if (t.format.kind == TraceFormatKind::Auto) {
    auto detected = detectFormat(o);
    if (!detected) return detected.error();
    t.format = detected.value();
  }
  auto parser = makeLineParser(t.format, o);
  if (!parser) return parser.error();
  auto filter = TraceFilter::compile(o.filter, (*parser)->hasRequest());
  if (!filter) return filter.error();
  auto src = LineSource::open(o.path);
  if (!src) return src.error();

  KeyIndex index;
  ParsedLine p;
  std::string why;
  std::string_view line;
  for (LineSource::Status st; (st = src->next(line)) != LineSource::Status::End;) {
    const std::int64_t lineNo = ++t.stats.lines;
    if (lineNo % kCheckEvery == 0) {
      if (cancel && cancel->load()) return Error{ErrorCode::Cancelled, "--trace: reading cancelled"};
      if (progress) progress(src->bytesRead());
    }
    if (st == LineSource::Status::Error) return invalidArgument(src->error());
    if (st == LineSource::Status::TooLong) {
      noteBad(t.stats, lineNo, "is longer than 1 MiB");
      continue;
    }
    if (blank(line)) continue;
    const auto outcome = (*parser)->parse(line, p, why);
    if (outcome == LineParser::Outcome::Header) continue;
    if (outcome == LineParser::Outcome::Bad || p.cost >= kWholeSecondBit) {
      noteBad(t.stats, lineNo, outcome == LineParser::Outcome::Bad ? why : "has a cost over 2^31");
      continue;
    }
    if (p.timeUs < 0 || p.timeUs > kMaxTraceTimeUs) {
      noteBad(t.stats, lineNo, "has a time outside 0 to 2^52 us (1970 to about 2112)");
      continue;
    }
    if (!filter->keep(p)) {
      ++t.stats.filtered;
      continue;
    }
    if (static_cast<std::int64_t>(t.requests.size()) >= o.maxRequests)
      return invalidArgument("--trace: '" + o.path + "' has more than " + std::to_string(o.maxRequests) +
                             " requests (reading stopped at line " + std::to_string(lineNo) + ", " +
                             std::to_string(src->bytesDecompressed()) + " bytes decompressed): allowed at most " +
                             std::to_string(o.maxRequests) + " requests" +
                             (o.maxRequestsRule.empty() ? std::string() : " (" + o.maxRequestsRule + ")"));
    auto it = index.find(p.key);
    if (it == index.end()) {
      it = index.emplace(std::string(p.key), static_cast<std::uint32_t>(t.keys.size())).first;
      t.keys.emplace_back(p.key);
    }
    t.requests.push_back({p.timeUs, it->second, p.cost | (p.wholeSecond ? kWholeSecondBit : 0u)});
  }
  t.stats.accepted = static_cast<std::int64_t>(t.requests.size());
  t.stats.bytes = src->bytesDecompressed();
  if (auto ok = finish(t, o); !ok) return ok.error();
  return t;
}

std::int64_t Trace::spanUs() const { return requests.empty() ? 0 : requests.back().timeUs - requests.front().timeUs; }

std::uint32_t Trace::maxCost() const {
  std::uint32_t m = 1;
  for (const auto& r : requests) m = std::max(m, r.cost);
  return m;
}

std::string Trace::summary() const {
  char span[32];
  std::snprintf(span, sizeof span, "%.1f", static_cast<double>(spanUs()) / 1e6);
  std::string s = std::to_string(requests.size()) + " requests from " + std::to_string(keys.size()) +
                  " clients over " + span + " s (" + traceFormatText(format);
  if (stats.filtered > 0) s += ", " + std::to_string(stats.filtered) + " filtered out";
  if (stats.bad > 0) s += ", bad lines: " + std::to_string(stats.bad) + " (first at " + badLineList(stats) + ")";
  if (stats.spread > 0) s += ", one-second times spread within their second";
  return s + ")";
}

}  // namespace rl
