#include "http/limit_response.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <optional>

#include "common/json.hpp"
#include "common/printable_text.hpp"

namespace rl {
namespace {

void appendInt(std::string& out, std::int64_t v) { appendLimitInt(out, v); }

// Appends `v` as a JSON number the way nlohmann writes it ("9.0", "0.25"); non-finite -> null.
void appendJsonDouble(std::string& out, double v) {
  if (!std::isfinite(v)) return void(out.append("null"));
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed);
  if (r.ec != std::errc{} || r.ptr - buf > 24) r = std::to_chars(buf, buf + sizeof buf, v);
  const std::string_view text(buf, static_cast<std::size_t>(r.ptr - buf));
  out.append(text);
  if (text.find_first_of(".e") == std::string_view::npos) out.append(".0");
}

// Appends `s` as a JSON string. Plain text is copied; anything needing escapes (or not
// UTF-8) goes through the JSON library.
void appendJsonString(std::string& out, std::string_view s) {
  const bool plain = std::all_of(s.begin(), s.end(), [](char ch) {
    const auto c = static_cast<unsigned char>(ch);
    return c >= 0x20 && c < 0x80 && c != '"' && c != '\\';
  });
  if (!plain) return void(out.append(dumpJson(Json(std::string(s)))));
  out.append("\"").append(s).append("\"");
}

// The decision body (one line of JSON, numeric fields in integer microseconds), appended to `out`.
void appendDecisionJson(std::string& out, const Decision& d, const LimitContext& c) {
  out.append(d.allowed ? "{\"status\":\"ok\",\"replica\":" : "{\"status\":\"rate_limited\",\"replica\":");
  appendInt(out, c.replica);
  out.append(",\"client\":");
  appendJsonString(out, c.client);
  out.append(",\"algorithm\":\"").append(algorithmName(c.algorithm));
  out.append(d.allowed ? "\",\"allowed\":true,\"remaining\":" : "\",\"allowed\":false,\"remaining\":");
  appendInt(out, d.remaining);
  out.append(",\"limit\":");
  appendInt(out, d.limit);
  out.append(",\"retry_after_us\":");
  appendInt(out, d.retryAfter.count());
  out.append(",\"reset_after_us\":");
  appendInt(out, d.resetAfter.count());
  out.append(",\"delay_us\":");
  appendInt(out, d.delay.count());
  out.append(",\"level\":");
  appendJsonDouble(out, d.level);
  out.append("}\n");
}

// Every header of a decision answer (without Content-Length / Connection), in wire order:
// add(name, write) where write(std::string&) appends the value.
template <class Add>
void decisionHeaders(const Decision& d, const LimitContext& c, Add&& add) {
  add("Content-Type", [](std::string& o) { o.append("application/json"); });
  limitDecisionHeaders(d, c.algorithm, c.quota, c.replica, add);
}

// An integer member of `j`, or nullopt.
std::optional<std::int64_t> intMember(const Json& j, std::string_view key) {
  const auto v = j.find(key);
  return v != j.end() && v->is_number_integer() ? std::optional(v->get<std::int64_t>()) : std::nullopt;
}

}  // namespace

HttpResponse decisionResponse(const Decision& d, const LimitContext& c) {
  HttpResponse r;
  r.status = d.allowed ? 200 : 429;
  decisionHeaders(d, c, [&r](std::string_view name, auto&& write) {
    std::string value;
    write(value);
    r.set(std::string(name), std::move(value));
  });
  appendDecisionJson(r.body, d, c);
  return r;
}

void appendDecisionAnswer(std::string& out, const Decision& d, const LimitContext& c, bool keepAlive, bool headOnly) {
  thread_local std::string body;
  body.clear();
  appendDecisionJson(body, d, c);
  out.append(d.allowed ? "HTTP/1.1 200 OK\r\n" : "HTTP/1.1 429 Too Many Requests\r\n");
  decisionHeaders(d, c, [&out](std::string_view name, auto&& write) {
    out.append(name).append(": ");
    write(out);
    out.append("\r\n");
  });
  out.append("Content-Length: ");
  appendInt(out, static_cast<std::int64_t>(body.size()));
  out.append(keepAlive ? "\r\nConnection: keep-alive\r\n\r\n" : "\r\nConnection: close\r\n\r\n");
  if (!headOnly) out.append(body);
}

HttpResponse storeFailureResponse(FailurePolicy policy, const Decision& d, const LimitContext& c) {
  HttpResponse r = decisionResponse(d, c);
  if (policy == FailurePolicy::Closed) r.status = 503;
  r.set(std::string(kFailurePolicyHeader), std::string(failurePolicyName(policy)));
  return r;
}

HttpResponse errorResponse(int status, std::string_view message) {
  HttpResponse r;
  r.status = status;
  r.set("Content-Type", "application/json");
  r.body = dumpJson(Json{{"error", message}}) + "\n";
  return r;
}

Result<Decision> decisionFromResponse(const HttpResponse& r) {
  // A replica whose store failed says which policy decided: its decision, kept as it is.
  const std::string* policy = findHeader(r.headers, kFailurePolicyHeader);
  if (policy != nullptr && !parseFailurePolicy(*policy))
    return protocolError("limiter replica sent " + std::string(kFailurePolicyHeader) + ": " + printableText(std::string_view(*policy).substr(0, 40)) +
                         " (allowed " + failurePolicyChoices() + ")");
  const bool closed = policy != nullptr && *policy == "closed";
  if (closed ? r.status != 503 : r.status != 200 && r.status != 429)
    return protocolError("limiter replica answered HTTP " + std::to_string(r.status) +
                         (policy ? " with " + std::string(kFailurePolicyHeader) + ": " + *policy : std::string()) +
                         ": " + r.body);
  const auto parsed = parseJson(r.body);
  const Json body = parsed && parsed->is_object() ? *parsed : Json::object();
  const auto allowed = body.find("allowed");
  const auto level = body.find("level");
  const auto remaining = intMember(body, "remaining");
  const auto limit = intMember(body, "limit");
  const auto retry = intMember(body, "retry_after_us");
  const auto reset = intMember(body, "reset_after_us");
  const auto delay = intMember(body, "delay_us");
  if (allowed == body.end() || !allowed->is_boolean() || level == body.end() || !level->is_number() || !remaining ||
      !limit || !retry || !reset || !delay)
    return protocolError("limiter replica sent a body without the decision fields: " + r.body);
  const bool admitted = allowed->get<bool>();
  if (admitted != (r.status == 200))
    return protocolError("limiter replica's status and body disagree: HTTP " + std::to_string(r.status));
  return Decision{admitted, *remaining, *limit, Micros{*retry}, Micros{*reset}, Micros{*delay}, level->get<double>(),
                  policy != nullptr};
}

}  // namespace rl
