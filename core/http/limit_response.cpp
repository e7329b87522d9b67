#include "http/limit_response.hpp"

#include <charconv>
#include <cstdio>
#include <optional>

namespace rl {
namespace {

std::int64_t ceilDiv(std::int64_t a, std::int64_t b) { return -floorDiv(-a, b); }

std::string number(double v) {
  char buf[32];
  const auto [ptr, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return ec == std::errc{} ? std::string(buf, ptr) : std::string("0");
}

// Seconds the whole quota spans: the window, or the time to refill a full bucket.
std::int64_t policyWindowSeconds(Algorithm a, const Quota& q) {
  const Micros span = isRateBased(a) ? q.interval() * q.limit : q.window;
  return std::max<std::int64_t>(1, ceilDiv(span.count(), kSecond.count()));
}

std::string decisionJson(const Decision& d, const LimitContext& c) {
  std::string j = "{\"status\":\"";
  j.append(d.allowed ? "ok" : "rate_limited");
  j.append("\",\"replica\":").append(std::to_string(c.replica));
  j.append(",\"client\":\"").append(jsonEscape(c.client));
  j.append("\",\"algorithm\":\"").append(algorithmName(c.algorithm));
  j.append("\",\"allowed\":").append(d.allowed ? "true" : "false");
  j.append(",\"remaining\":").append(std::to_string(d.remaining));
  j.append(",\"limit\":").append(std::to_string(d.limit));
  j.append(",\"retry_after_us\":").append(std::to_string(d.retryAfter.count()));
  j.append(",\"reset_after_us\":").append(std::to_string(d.resetAfter.count()));
  j.append(",\"delay_us\":").append(std::to_string(d.delay.count()));
  j.append(",\"level\":").append(number(d.level));
  j.append("}\n");
  return j;
}

// The text after `"key":` in a flat JSON object, or nullopt.
std::optional<std::string_view> jsonField(std::string_view body, std::string_view key) {
  const std::string needle = "\"" + std::string(key) + "\":";
  const auto at = body.find(needle);
  if (at == std::string_view::npos) return std::nullopt;
  return body.substr(at + needle.size());
}

template <class T>
bool readNumber(std::string_view body, std::string_view key, T& out) {
  const auto v = jsonField(body, key);
  if (!v) return false;
  return std::from_chars(v->data(), v->data() + v->size(), out).ec == std::errc{};
}

}  // namespace

std::int64_t retryAfterSeconds(Micros d) {
  return std::max<std::int64_t>(1, ceilDiv(d.count(), kSecond.count()));
}

std::int64_t retryAfterMillis(Micros d) { return std::max<std::int64_t>(1, ceilMillis(d)); }

std::string rateLimitPolicyField(Algorithm a, const Quota& q) {
  std::string v = "\"";
  v.append(algorithmName(a)).append("\";q=").append(std::to_string(q.limit));
  v.append(";w=").append(std::to_string(policyWindowSeconds(a, q)));
  return v;
}

std::string rateLimitField(Algorithm a, const Decision& d) {
  std::int64_t t = std::max<std::int64_t>(0, ceilDiv(d.resetAfter.count(), kSecond.count()));
  if (!d.allowed) t = std::max(t, retryAfterSeconds(d.retryAfter));
  std::string v = "\"";
  v.append(algorithmName(a)).append("\";r=").append(std::to_string(d.remaining));
  v.append(";t=").append(std::to_string(t));
  return v;
}

HttpResponse decisionResponse(const Decision& d, const LimitContext& c) {
  HttpResponse r;
  r.status = d.allowed ? 200 : 429;
  r.set("Content-Type", "application/json");
  r.set("X-RateLimit-Limit", std::to_string(d.limit));
  r.set("X-RateLimit-Remaining", std::to_string(d.remaining));
  r.set("RateLimit-Policy", rateLimitPolicyField(c.algorithm, c.quota));
  r.set("RateLimit", rateLimitField(c.algorithm, d));
  r.set("X-RateLimit-Replica", std::to_string(c.replica));
  if (d.allowed && d.delay.count() > 0) r.set("X-RateLimit-Delay-Ms", std::to_string(ceilMillis(d.delay)));
  if (!d.allowed) {
    r.set("Retry-After", std::to_string(retryAfterSeconds(d.retryAfter)));
    r.set("Retry-After-Ms", std::to_string(retryAfterMillis(d.retryAfter)));
  }
  r.body = decisionJson(d, c);
  return r;
}

HttpResponse storeFailureResponse(FailurePolicy policy, const Error& error, const LimitContext& c) {
  const bool open = policy == FailurePolicy::Open;
  HttpResponse r;
  r.status = open ? 200 : 503;
  r.set("Content-Type", "application/json");
  r.set(std::string(kFailurePolicyHeader), open ? "open" : "closed");
  r.set("X-RateLimit-Replica", std::to_string(c.replica));
  if (!open) r.set("Retry-After", "1");
  r.body = "{\"status\":\"";
  r.body.append(open ? "ok" : "unavailable").append("\",\"replica\":").append(std::to_string(c.replica));
  r.body.append(",\"client\":\"").append(jsonEscape(c.client));
  r.body.append("\",\"failure_policy\":\"").append(open ? "open" : "closed");
  r.body.append("\",\"error\":\"").append(jsonEscape(error.message)).append("\"}\n");
  return r;
}

HttpResponse errorResponse(int status, std::string_view message) {
  HttpResponse r;
  r.status = status;
  r.set("Content-Type", "application/json");
  r.body = "{\"error\":\"" + jsonEscape(message) + "\"}\n";
  return r;
}

Result<Decision> decisionFromResponse(const HttpResponse& r) {
  if (const auto* policy = findHeader(r.headers, kFailurePolicyHeader))
    return unavailable("the replica's store failed and it applied fail-" + *policy + " (HTTP " +
                       std::to_string(r.status) + ")");
  if (r.status != 200 && r.status != 429)
    return protocolError("limiter replica answered HTTP " + std::to_string(r.status) + ": " + r.body);
  Decision d;
  std::int64_t retry = 0, reset = 0, delay = 0;
  const auto allowed = jsonField(r.body, "allowed");
  const bool ok = allowed && readNumber(r.body, "remaining", d.remaining) &&
                  readNumber(r.body, "limit", d.limit) && readNumber(r.body, "retry_after_us", retry) &&
                  readNumber(r.body, "reset_after_us", reset) && readNumber(r.body, "delay_us", delay) &&
                  readNumber(r.body, "level", d.level);
  if (!ok) return protocolError("limiter replica sent a body without the decision fields: " + r.body);
  d.allowed = allowed->substr(0, 4) == "true";
  if (d.allowed != (r.status == 200))
    return protocolError("limiter replica's status and body disagree: HTTP " + std::to_string(r.status));
  d.retryAfter = Micros{retry};
  d.resetAfter = Micros{reset};
  d.delay = Micros{delay};
  return d;
}

std::string jsonEscape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (ch == '"' || ch == '\\') {
      out.push_back('\\');
      out.push_back(ch);
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out.append(buf);
    } else {
      out.push_back(ch);
    }
  }
  return out;
}

}  // namespace rl
