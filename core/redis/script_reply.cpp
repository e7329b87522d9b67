#include "redis/script_reply.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <optional>

namespace rl {
namespace {

// Numbers a reply may carry: beyond 2^52 a double no longer holds every integer, and
// microseconds past it are over a century.
constexpr double kLargest = 4503599627370496.0;

// An element as a number: an integer reply or a numeric string.
std::optional<double> numberOf(ReplyView v) {
  if (v.isInteger()) return static_cast<double>(v.integer());
  if (!v.isString()) return std::nullopt;
  const std::string s(v.str());
  char* end = nullptr;
  const double d = std::strtod(s.c_str(), &end);
  if (s.empty() || end != s.c_str() + s.size() || !std::isfinite(d)) return std::nullopt;
  return d;
}

std::string textOf(ReplyView v, int depth) {
  if (v.isInteger()) return std::to_string(v.integer());
  if (v.isNil()) return "nil";
  if (v.isString() || v.isError()) {
    std::string s(v.str().substr(0, 80));
    return (v.isError() ? "error \"" : "\"") + s + (v.str().size() > 80 ? "...\"" : "\"");
  }
  if (!v.isArray() || depth > 2) return v.describe();
  std::string out = "[";
  for (std::size_t i = 0; i < v.size() && i < 8; ++i) out += (i ? ", " : "") + textOf(v[i], depth + 1);
  return out + (v.size() > 8 ? ", ...]" : "]");
}

Error wrong(const std::string& script, const std::string& what, ReplyView r) {
  return protocolError("script " + script + " " + what + "; it replied " + scriptReplyText(r) +
                       " (expected an integer, or an array whose first element is an integer: non-zero = allowed)");
}

}  // namespace

std::string scriptReplyText(ReplyView v) { return textOf(v, 0); }

Result<ScriptReply> ScriptReply::parse(std::string_view names) {
  static const std::pair<std::string_view, Field> kFields[] = {
      {"allowed", Field::Allowed}, {"remaining", Field::Remaining}, {"tokens", Field::Tokens},
      {"retry_after_ms", Field::RetryMs}, {"retry_after_us", Field::RetryUs}, {"reset_after_ms", Field::ResetMs},
      {"reset_after_us", Field::ResetUs}, {"_", Field::Skip}};
  ScriptReply out;
  const std::string all(names);
  while (!names.empty()) {
    const auto comma = names.find(',');
    const std::string_view n = names.substr(0, comma);
    names = comma == std::string_view::npos ? std::string_view{} : names.substr(comma + 1);
    const auto* f = std::find_if(std::begin(kFields), std::end(kFields), [&](const auto& k) { return k.first == n; });
    if (f == std::end(kFields))
      return invalidArgument("--script-reply: unknown element '" + std::string(n) + "': allowed " +
                             std::string(kScriptReplyNames));
    out.fields_.push_back(f->second);
  }
  if (out.fields_.empty() || out.fields_.front() != Field::Allowed)
    return invalidArgument("--script-reply '" + all + "' must start with allowed (the reply's first element decides)");
  return out;
}

Result<Decision> ScriptReply::read(ReplyView r, const Quota& q, const std::string& script) const {
  Decision d;
  d.limit = q.limit;
  d.remaining = -1;  // unknown unless the reply names it
  if (r.isInteger()) {
    if (fields_.size() > 1)
      return wrong(script, "returned one integer but --script-reply names " + std::to_string(fields_.size()) + " elements", r);
    d.allowed = r.integer() != 0;
    return d;
  }
  if (!r.isArray()) return wrong(script, "did not return an integer or an array", r);
  if (r.size() < fields_.size())
    return wrong(script, "returned " + std::to_string(r.size()) + " element(s) but --script-reply names " +
                             std::to_string(fields_.size()), r);
  if (!r[0].isInteger()) return wrong(script, "returned a non-integer first element", r);
  d.allowed = r[0].integer() != 0;
  for (std::size_t i = 1; i < fields_.size(); ++i) {
    if (fields_[i] == Field::Skip) continue;
    const auto v = numberOf(r[i]);
    if (!v) return wrong(script, "element " + std::to_string(i + 1) + " is not a number", r);
    const bool ms = fields_[i] == Field::RetryMs || fields_[i] == Field::ResetMs;
    if (std::fabs(*v) * (ms ? 1000.0 : 1.0) > kLargest)
      return wrong(script, "element " + std::to_string(i + 1) + " is out of range (allowed up to 2^52" +
                               (ms ? std::string(" us as ms") : std::string()) + ")", r);
    switch (fields_[i]) {
      case Field::Remaining:
      case Field::Tokens: d.remaining = std::llround(std::floor(*v)); d.level = *v; break;
      case Field::RetryMs: d.retryAfter = Micros{std::llround(*v * 1000)}; break;
      case Field::RetryUs: d.retryAfter = Micros{std::llround(*v)}; break;
      case Field::ResetMs: d.resetAfter = Micros{std::llround(*v * 1000)}; break;
      case Field::ResetUs: d.resetAfter = Micros{std::llround(*v)}; break;
      default: break;
    }
  }
  return d;
}

}  // namespace rl
