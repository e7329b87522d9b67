// LineParser for text access logs: combined, common and nginx log_format.
#include <cctype>
#include <string>

#include "trace/line_parser.hpp"
#include "trace/log_format.hpp"
#include "trace/log_time.hpp"

namespace rl {

namespace {

enum class TimeVar { Local, Iso, Msec };

class TextLogParser final : public LineParser {
 public:
  TextLogParser(LogFormat f, int key, int time, TimeVar tv, int request, bool requestIsUri)
      : format_(std::move(f)), key_(key), time_(time), timeVar_(tv), request_(request), requestIsUri_(requestIsUri) {}

  Outcome parse(std::string_view line, ParsedLine& out, std::string& why) override {
    if (!format_.match(line, values_)) {
      why = "does not match the log format";
      return Outcome::Bad;
    }
    if (!parseTime(values_[static_cast<std::size_t>(time_)], out)) {
      why = "bad time '" + std::string(values_[static_cast<std::size_t>(time_)]) + "'";
      return Outcome::Bad;
    }
    out.key = values_[static_cast<std::size_t>(key_)];
    out.cost = 1;
    out.request = request_ >= 0 ? values_[static_cast<std::size_t>(request_)] : std::string_view{};
    out.path = requestIsUri_ ? out.request.substr(0, out.request.find('?')) : requestPath(out.request);
    return Outcome::Ok;
  }
  bool hasRequest() const override { return request_ >= 0; }

 private:
  bool parseTime(std::string_view t, ParsedLine& out) {
    out.wholeSecond = timeVar_ != TimeVar::Msec;
    if (timeVar_ == TimeVar::Local) {
      // Logs hold runs of lines in one second: parse each distinct stamp once.
      if (t != lastStamp_) {
        const auto us = parseTimeLocal(t);
        if (!us) return false;
        lastStamp_.assign(t);
        lastUs_ = *us;
      }
      out.timeUs = lastUs_;
      return true;
    }
    if (timeVar_ == TimeVar::Iso) {
      const auto iso = parseIso8601(t);
      if (!iso) return false;
      out.timeUs = iso->us;
      out.wholeSecond = !iso->fraction;
      return true;
    }
    const auto us = parseDecimalTime(t);
    if (!us) return false;
    out.timeUs = *us;
    return true;
  }

  LogFormat format_;
  LogFormat::Values values_{};
  int key_, time_;
  TimeVar timeVar_;
  int request_;
  bool requestIsUri_;
  std::string lastStamp_;
  std::int64_t lastUs_ = 0;
};

}  // namespace

std::string headerVariable(std::string_view header) {
  std::string v = "http_";
  for (char c : header) v.push_back(c == '-' ? '_' : static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  return v;
}

std::string_view requestPath(std::string_view r) {
  if (r.empty()) return r;
  if (r.front() != '/') {  // "METHOD /path HTTP/x"
    const auto sp = r.find(' ');
    if (sp == std::string_view::npos) return {};
    r.remove_prefix(sp + 1);
  }
  return r.substr(0, r.find_first_of(" ?"));
}

Result<std::unique_ptr<LineParser>> makeTextLogParser(std::string_view formatText, const TraceOptions& o) {
  auto f = LogFormat::compile(formatText);
  if (!f) return invalidArgument("--trace-format: " + f.error().message);
  int time = f->indexOf("msec");
  TimeVar tv = TimeVar::Msec;
  if (time < 0) { time = f->indexOf("time_iso8601"); tv = TimeVar::Iso; }
  if (time < 0) { time = f->indexOf("time_local"); tv = TimeVar::Local; }
  if (time < 0)
    return invalidArgument("--trace-format: the log_format has no $msec, $time_iso8601 or $time_local: allowed a "
                           "format that logs the time");
  std::string keyVar = o.key.source == TraceKeySource::Addr     ? "remote_addr"
                       : o.key.source == TraceKeySource::Header ? headerVariable(o.key.name)
                                                                 : o.key.name;
  const int key = f->indexOf(keyVar);
  if (key < 0)
    return invalidArgument("--trace-key " + traceKeyText(o.key) + ": the log format has no $" + keyVar +
                           ": allowed a variable of the format (addr is $remote_addr, header:NAME is $http_name)");
  int request = f->indexOf("request");
  bool isUri = false;
  if (request < 0) {
    request = f->indexOf("request_uri");
    isUri = request >= 0;
  }
  if (o.timeField != "time")
    return invalidArgument("--trace-time: access logs carry their own time ($msec, $time_iso8601, $time_local): "
                           "allowed with --trace-format jsonl only");
  return std::unique_ptr<LineParser>(new TextLogParser(std::move(f.value()), key, time, tv, request, isUri));
}

}  // namespace rl
