#include "http/limit_response.hpp"

#include <optional>

#include "common/json.hpp"

namespace rl {
namespace {

std::int64_t ceilDiv(std::int64_t a, std::int64_t b) { return -floorDiv(-a, b); }

// Seconds the whole quota spans: the window, or the time to refill a full bucket.
std::int64_t policyWindowSeconds(Algorithm a, const Quota& q) {
  const Micros span = isRateBased(a) ? q.interval() * q.limit : q.window;
  return std::max<std::int64_t>(1, ceilDiv(span.count(), kSecond.count()));
}

std::string decisionJson(const Decision& d, const LimitContext& c) {
  Json j;
  j["status"] = d.allowed ? "ok" : "rate_limited";
  j["replica"] = c.replica;
  j["client"] = c.client;
  j["algorithm"] = algorithmName(c.algorithm);
  j["allowed"] = d.allowed;
  j["remaining"] = d.remaining;
  j["limit"] = d.limit;
  j["retry_after_us"] = static_cast<std::int64_t>(d.retryAfter.count());
  j["reset_after_us"] = static_cast<std::int64_t>(d.resetAfter.count());
  j["delay_us"] = static_cast<std::int64_t>(d.delay.count());
  j["level"] = d.level;
  return dumpJson(j) + "\n";
}

// An integer member of `j`, or nullopt.
std::optional<std::int64_t> intMember(const Json& j, std::string_view key) {
  const auto v = j.find(key);
  return v != j.end() && v->is_number_integer() ? std::optional(v->get<std::int64_t>()) : std::nullopt;
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
  if (const auto* policy = findHeader(r.headers, kFailurePolicyHeader))
    return unavailable("the replica's store failed and it applied fail-" + *policy + " (HTTP " +
                       std::to_string(r.status) + ")");
  if (r.status != 200 && r.status != 429)
    return protocolError("limiter replica answered HTTP " + std::to_string(r.status) + ": " + r.body);
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
  return Decision{admitted, *remaining, *limit, Micros{*retry}, Micros{*reset}, Micros{*delay}, level->get<double>()};
}

}  // namespace rl
