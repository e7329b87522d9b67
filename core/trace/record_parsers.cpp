// LineParsers for records: JSONL (nlohmann-json) and CSV (time,key[,cost]),
// and makeLineParser, the one place a format becomes a parser.
#include <nlohmann/json.hpp>

#include <charconv>
#include <cmath>

#include "trace/line_parser.hpp"
#include "trace/log_format.hpp"
#include "trace/log_time.hpp"

namespace rl {

Result<std::unique_ptr<LineParser>> makeTextLogParser(std::string_view formatText, const TraceOptions& o);

namespace {

std::int64_t unitUs(TimeUnit u) {
  return u == TimeUnit::Seconds ? 1'000'000 : u == TimeUnit::Milliseconds ? 1'000 : 1;
}

// A time as text: decimal in `unit`, or ISO 8601.
bool textTime(std::string_view t, std::int64_t unit, ParsedLine& out) {
  if (auto d = parseDecimalTime(t, unit)) {
    out.timeUs = *d;
    out.wholeSecond = false;
    return true;
  }
  if (auto iso = parseIso8601(t)) {
    out.timeUs = iso->us;
    out.wholeSecond = !iso->fraction;
    return true;
  }
  return false;
}

class JsonlParser final : public LineParser {
 public:
  JsonlParser(std::string keyField, std::string timeField, std::int64_t unit)
      : keyField_(std::move(keyField)), timeField_(std::move(timeField)), unit_(unit) {}

  Outcome parse(std::string_view line, ParsedLine& out, std::string& why) override {
    auto doc = nlohmann::json::parse(line, nullptr, false);
    if (doc.is_discarded() || !doc.is_object()) {
      why = "not a JSON object";
      return Outcome::Bad;
    }
    const auto t = doc.find(timeField_);
    if (t == doc.end() || !time(*t, out)) {
      why = "no valid time field '" + timeField_ + "'";
      return Outcome::Bad;
    }
    const auto k = doc.find(keyField_);
    if (k == doc.end() || !(k->is_string() || k->is_number_integer())) {
      why = "no key field '" + keyField_ + "' (a string or an integer)";
      return Outcome::Bad;
    }
    key_ = k->is_string() ? k->get<std::string>() : k->dump();
    out.key = key_;
    out.cost = 1;
    request_.clear();
    for (const char* f : {"request", "path", "uri"})
      if (auto r = doc.find(f); r != doc.end() && r->is_string()) {
        request_ = r->get<std::string>();
        break;
      }
    out.request = request_;
    out.path = requestPath(request_);
    return Outcome::Ok;
  }
  bool hasRequest() const override { return true; }

 private:
  bool time(const nlohmann::json& v, ParsedLine& out) const {
    if (v.is_string()) return textTime(v.get_ref<const std::string&>(), unit_, out);
    if (v.is_number_integer() || v.is_number_unsigned()) {
      const auto i = v.get<std::int64_t>();
      if (i < 0 || i > INT64_MAX / unit_) return false;
      out.timeUs = i * unit_;
      out.wholeSecond = false;
      return true;
    }
    if (v.is_number_float()) {
      const double d = v.get<double>() * static_cast<double>(unit_);
      if (!std::isfinite(d) || d < 0 || d > 9e18) return false;
      out.timeUs = std::llround(d);
      out.wholeSecond = false;
      return true;
    }
    return false;
  }

  std::string keyField_, timeField_;
  std::int64_t unit_;
  std::string key_, request_;
};

class CsvParser final : public LineParser {
 public:
  Outcome parse(std::string_view line, ParsedLine& out, std::string& why) override {
    const auto c1 = line.find(',');
    if (first_) {
      first_ = false;
      if (line.rfind("time,", 0) == 0) return Outcome::Header;
    }
    if (c1 == std::string_view::npos) {
      why = "needs time,key[,cost]";
      return Outcome::Bad;
    }
    const auto c2 = line.find(',', c1 + 1);
    const std::string_view time = line.substr(0, c1);
    const std::string_view key = line.substr(c1 + 1, c2 == std::string_view::npos ? std::string_view::npos : c2 - c1 - 1);
    if (!textTime(time, 1'000'000, out)) {
      why = "bad time '" + std::string(time) + "' (seconds since the epoch or ISO 8601)";
      return Outcome::Bad;
    }
    if (key.empty()) {
      why = "empty key";
      return Outcome::Bad;
    }
    out.key = key;
    out.cost = 1;
    if (c2 != std::string_view::npos) {
      const std::string_view cost = line.substr(c2 + 1);
      std::uint32_t v = 0;
      auto [p, ec] = std::from_chars(cost.data(), cost.data() + cost.size(), v);
      if (ec != std::errc{} || p != cost.data() + cost.size() || v < 1) {
        why = "bad cost '" + std::string(cost) + "' (an integer >= 1)";
        return Outcome::Bad;
      }
      out.cost = v;
    }
    out.request = {};
    out.path = {};
    return Outcome::Ok;
  }
  bool hasRequest() const override { return false; }

 private:
  bool first_ = true;
};

}  // namespace

Result<std::unique_ptr<LineParser>> makeLineParser(const TraceFormat& f, const TraceOptions& o) {
  switch (f.kind) {
    case TraceFormatKind::Combined: return makeTextLogParser(kCombinedLogFormat, o);
    case TraceFormatKind::Common: return makeTextLogParser(kCommonLogFormat, o);
    case TraceFormatKind::Nginx: return makeTextLogParser(f.logFormat, o);
    case TraceFormatKind::Jsonl: {
      const std::string key = o.key.source == TraceKeySource::Addr     ? "remote_addr"
                              : o.key.source == TraceKeySource::Header ? headerVariable(o.key.name)
                                                                        : o.key.name;
      return std::unique_ptr<LineParser>(new JsonlParser(key, o.timeField, unitUs(o.timeUnit)));
    }
    case TraceFormatKind::Csv:
      if (o.key.source != TraceKeySource::Addr)
        return invalidArgument("--trace-key " + traceKeyText(o.key) +
                               ": a csv trace has its key in column 2 (time,key[,cost]): allowed the default");
      if (o.timeField != "time")
        return invalidArgument("--trace-time: a csv trace has its time in column 1: allowed with jsonl only");
      return std::unique_ptr<LineParser>(new CsvParser());
    case TraceFormatKind::Auto: break;
  }
  return invalidArgument("--trace-format: auto must be resolved before parsing");
}

}  // namespace rl
