#include "http/limit_headers.hpp"

#include <algorithm>
#include <charconv>
#include <ctime>

#include "http/structured_fields.hpp"

namespace rl {
namespace {

std::int64_t ceilDiv(std::int64_t a, std::int64_t b) { return -floorDiv(-a, b); }

// Seconds the whole quota spans: the window, or the time to refill a full bucket.
std::int64_t policyWindowSeconds(Algorithm a, const Quota& q) {
  const Micros span = isRateBased(a) ? q.interval() * q.limit : q.window;
  return std::max<std::int64_t>(1, ceilDiv(span.count(), kSecond.count()));
}

// Header seconds to milliseconds, saturated at 2^52 us (about 142 years) so
// that no later sum in ms or us can wrap (Retry-After: 99999999999999).
constexpr std::int64_t kMaxHeaderMs = (std::int64_t{1} << 52) / 1'000;
std::int64_t secondsToMs(std::int64_t s) { return std::min(s, kMaxHeaderMs / 1000) * 1000; }
std::int64_t clampMs(std::int64_t ms) { return std::clamp<std::int64_t>(ms, 0, kMaxHeaderMs); }

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '"')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '"')) s.remove_suffix(1);
  return s;
}

std::int64_t number(std::string_view s) {  // -1 unless the whole text is a non-negative integer
  s = trim(s);
  std::int64_t v = -1;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc{} && p == s.data() + s.size() && v >= 0 ? v : -1;
}

std::int64_t paramInt(const SfItem& item, std::string_view key) {
  const SfBare* b = item.param(key);
  const auto v = b ? b->asInteger() : std::nullopt;
  return v && *v >= 0 ? *v : -1;
}

std::string itemName(const SfItem& item) {
  const auto k = item.value.kind;
  return k == SfBare::Kind::String || k == SfBare::Kind::Token ? item.value.text : std::string();
}

// RateLimit-Policy: draft-8 (`"name";q=..;w=..`) or draft-6/7 (`10;w=60`). True when read.
bool readPolicies(std::string_view field, LimitHeaders& h, bool& named) {
  auto list = parseSfList(field);
  if (!list) return false;
  for (const SfItem& item : *list) {
    LimitPolicy p;
    if (const auto q = item.value.asInteger(); q && item.param("q") == nullptr) {
      p.quota = *q;  // draft-6/7: the quota is the item
    } else {
      p.name = itemName(item);
      p.quota = paramInt(item, "q");
      named = true;
    }
    p.windowS = paramInt(item, "w");
    if (const SfBare* pk = item.param("pk")) p.partitionKey = pk->text;
    h.policies.push_back(std::move(p));
  }
  return !h.policies.empty();
}

// RateLimit: draft-7 dictionary (limit, remaining, reset) or draft-8 list (`"name";r=..;t=..`).
LimitDialect readStates(std::string_view field, LimitHeaders& h) {
  if (auto dict = parseSfDictionary(field); dict && !dict->empty()) {
    LimitState s;
    std::int64_t limit = -1;
    for (const auto& [key, item] : *dict) {
      const auto v = item.value.asInteger().value_or(-1);
      if (key == "limit") limit = v;
      else if (key == "remaining") s.remaining = v;
      else if (key == "reset") s.resetS = v;
    }
    if (limit >= 0 || s.remaining >= 0) {
      if (limit >= 0 && h.policies.empty()) h.policies.push_back({"", limit, -1, ""});
      h.states.push_back(s);
      return LimitDialect::IetfDraft7;
    }
  }
  auto list = parseSfList(field);
  if (!list) return LimitDialect::None;
  for (const SfItem& item : *list) h.states.push_back({itemName(item), paramInt(item, "r"), paramInt(item, "t")});
  return h.states.empty() ? LimitDialect::None : LimitDialect::IetfDraft8;
}

// The binding policy: the state with the least remaining, and the policy it names.
void pickBinding(LimitHeaders& h) {
  const LimitState* s = nullptr;
  for (const auto& st : h.states)
    if (st.remaining >= 0 && (s == nullptr || st.remaining < s->remaining)) s = &st;
  if (s == nullptr && !h.states.empty()) s = &h.states.front();
  const LimitPolicy* p = h.policies.empty() ? nullptr : &h.policies.front();
  if (s != nullptr)
    for (const auto& pol : h.policies)
      if (!s->name.empty() && pol.name == s->name) p = &pol;
  if (p != nullptr) {
    h.limit = p->quota;
    h.windowS = p->windowS;
  }
  if (s != nullptr) {
    h.remaining = s->remaining;
    if (s->resetS >= 0) h.resetMs = secondsToMs(s->resetS);
  }
}

// A RateLimit-Reset / X-RateLimit-Reset number, its unit inferred (see the file comment).
void readResetNumber(std::string_view name, std::int64_t v, std::int64_t nowS, LimitHeaders& h) {
  std::string why;
  if (v >= 1'000'000'000'000) {
    h.resetUnit = ResetUnit::EpochMillis;
    h.resetMs = clampMs(v - nowS * 1000);
    why = ">= 10^12";
  } else if (v >= 1'000'000'000) {
    h.resetUnit = ResetUnit::EpochSeconds;
    h.resetMs = secondsToMs(std::max<std::int64_t>(0, v - nowS));
    why = ">= 10^9";
  } else if (v > 1000 && h.windowS > 0 && v > 2 * h.windowS) {
    h.resetUnit = ResetUnit::DeltaMillis;
    h.resetMs = v;
    why = "over twice the " + std::to_string(h.windowS) + " s window";
  } else {
    h.resetUnit = ResetUnit::DeltaSeconds;
    h.resetMs = secondsToMs(v);
    why = "a small number";
  }
  h.resetInference = std::string(name) + " " + std::to_string(v) + ": " + std::string(resetUnitName(h.resetUnit)) +
                     " (" + why + ")";
}

// Retry-After: delta-seconds or an IMF-fixdate ("Wed, 21 Oct 2015 07:28:00 GMT").
void readRetryAfter(std::string_view v, std::int64_t nowS, LimitHeaders& h) {
  if (const auto s = number(v); s >= 0) {
    h.retryAfterRaw = s;
    h.retryAfterMs = secondsToMs(s);
    return;
  }
  std::tm tm{};
  const std::string text(trim(v));
  const char* end = ::strptime(text.c_str(), "%a, %d %b %Y %H:%M:%S GMT", &tm);
  if (end == nullptr || *end != '\0') return;
  h.retryAfterIsDate = true;
  h.retryAfterMs = secondsToMs(std::max<std::int64_t>(0, static_cast<std::int64_t>(::timegm(&tm)) - nowS));
}

bool isNginxStatus(std::string_view v) {
  for (const char* s : {"PASSED", "DELAYED", "REJECTED", "DELAYED_DRY_RUN", "REJECTED_DRY_RUN"})
    if (v == s) return true;
  return false;
}

void readSeparateFields(const HttpHeaders& headers, std::int64_t nowS, LimitHeaders& h) {
  for (const char* prefix : {"RateLimit-", "X-RateLimit-"}) {
    const std::string p(prefix);
    const auto* limit = findHeader(headers, p + "Limit");
    const auto* remaining = findHeader(headers, p + "Remaining");
    const auto* reset = findHeader(headers, p + "Reset");
    if (limit == nullptr && remaining == nullptr && reset == nullptr) continue;
    if (h.dialect == LimitDialect::None) h.dialect = p == "RateLimit-" ? LimitDialect::IetfDraft6 : LimitDialect::XRateLimit;
    if (limit && h.limit < 0) h.limit = number(*limit);
    if (remaining && h.remaining < 0) h.remaining = number(*remaining);
    if (reset && h.resetMs < 0)
      if (const auto v = number(*reset); v >= 0) readResetNumber(p + "Reset", v, nowS, h);
  }
}

}  // namespace

std::string_view limitDialectName(LimitDialect d) {
  switch (d) {
    case LimitDialect::IetfDraft8: return "ietf-draft-8";
    case LimitDialect::IetfDraft7: return "ietf-draft-7";
    case LimitDialect::IetfDraft6: return "ietf-draft-6";
    case LimitDialect::XRateLimit: return "x-ratelimit";
    case LimitDialect::NginxStatus: return "nginx-status";
    case LimitDialect::Envoy: return "envoy";
    case LimitDialect::RetryAfterOnly: return "retry-after";
    case LimitDialect::None: break;
  }
  return "none";
}

std::string_view resetUnitName(ResetUnit u) {
  switch (u) {
    case ResetUnit::DeltaSeconds: return "delta seconds";
    case ResetUnit::DeltaMillis: return "delta milliseconds";
    case ResetUnit::EpochSeconds: return "epoch seconds";
    case ResetUnit::EpochMillis: return "epoch milliseconds";
    case ResetUnit::Unknown: break;
  }
  return "unknown";
}

LimitHeaders readLimitHeaders(const HttpHeaders& headers, std::int64_t nowS) {
  LimitHeaders h;
  bool named = false;
  if (const auto* v = findHeader(headers, "RateLimit-Policy"); v && readPolicies(*v, h, named))
    h.dialect = named ? LimitDialect::IetfDraft8 : LimitDialect::IetfDraft6;
  if (const auto* v = findHeader(headers, "RateLimit")) {
    const auto d = readStates(*v, h);
    if (d != LimitDialect::None) h.dialect = d;
  }
  pickBinding(h);
  readSeparateFields(headers, nowS, h);
  if (const auto* v = findHeader(headers, "Retry-After")) readRetryAfter(*v, nowS, h);
  if (const auto* v = findHeader(headers, "Retry-After-Ms")) {
    h.retryAfterMsField = number(*v);
    if (h.retryAfterMs < 0 && h.retryAfterMsField >= 0) h.retryAfterMs = clampMs(h.retryAfterMsField);
  }
  for (const auto& f : headers) {
    if (h.nginxStatus.empty() && isNginxStatus(f.value)) h.nginxStatus = f.value;
    if (equalsIgnoreCase(f.name, "x-envoy-ratelimited")) h.envoyLimited = true;
  }
  if (h.dialect == LimitDialect::None) {
    if (!h.nginxStatus.empty()) h.dialect = LimitDialect::NginxStatus;
    else if (h.envoyLimited) h.dialect = LimitDialect::Envoy;
    else if (h.retryAfterMs >= 0) h.dialect = LimitDialect::RetryAfterOnly;
  }
  return h;
}

LimitHeaders readLimitHeaders(const HttpResponse& r, std::int64_t nowS) { return readLimitHeaders(r.headers, nowS); }

HttpHeaders limitHeaderFields(LimitDialect dialect, const LimitSnapshot& s) {
  HttpHeaders out;
  const auto n = [](std::int64_t v) { return std::to_string(v); };
  const std::string policy = n(s.quota) + ";w=" + n(s.windowS);
  switch (dialect) {
    case LimitDialect::IetfDraft8:
      out.push_back({"RateLimit-Policy", "\"" + s.name + "\";q=" + n(s.quota) + ";w=" + n(s.windowS)});
      out.push_back({"RateLimit", "\"" + s.name + "\";r=" + n(s.remaining) + ";t=" + n(s.resetS)});
      break;
    case LimitDialect::IetfDraft7:
      out.push_back({"RateLimit-Policy", policy});
      out.push_back({"RateLimit", "limit=" + n(s.quota) + ", remaining=" + n(s.remaining) + ", reset=" + n(s.resetS)});
      break;
    case LimitDialect::IetfDraft6:
      out.push_back({"RateLimit-Policy", policy});
      out.push_back({"RateLimit-Limit", n(s.quota)});
      out.push_back({"RateLimit-Remaining", n(s.remaining)});
      out.push_back({"RateLimit-Reset", n(s.resetS)});
      break;
    case LimitDialect::XRateLimit:
      out.push_back({"X-RateLimit-Limit", n(s.quota)});
      out.push_back({"X-RateLimit-Remaining", n(s.remaining)});
      out.push_back({"X-RateLimit-Reset", n(s.resetS)});
      break;
    case LimitDialect::NginxStatus: out.push_back({"X-Status", s.denied ? "REJECTED" : "PASSED"}); break;
    case LimitDialect::Envoy:
      if (s.denied) out.push_back({"x-envoy-ratelimited", "true"});
      break;
    case LimitDialect::RetryAfterOnly:
    case LimitDialect::None: break;
  }
  if (s.denied && dialect != LimitDialect::None) out.push_back({"Retry-After", n(s.resetS)});
  return out;
}

std::int64_t retryAfterSeconds(Micros d) { return std::max<std::int64_t>(1, ceilDiv(d.count(), kSecond.count())); }

std::int64_t retryAfterMillis(Micros d) { return std::max<std::int64_t>(1, ceilMillis(d)); }

void appendLimitInt(std::string& out, std::int64_t v) {
  char buf[24];
  const auto end = std::to_chars(buf, buf + sizeof buf, v).ptr;
  out.append(buf, end);
}

void appendRateLimitPolicyField(std::string& v, Algorithm a, const Quota& q) {
  v.append("\"").append(algorithmName(a)).append("\";q=");
  appendLimitInt(v, q.limit);
  v.append(";w=");
  appendLimitInt(v, policyWindowSeconds(a, q));
}

void appendRateLimitField(std::string& v, Algorithm a, const Decision& d) {
  std::int64_t t = std::max<std::int64_t>(0, ceilDiv(d.resetAfter.count(), kSecond.count()));
  if (!d.allowed) t = std::max(t, retryAfterSeconds(d.retryAfter));
  v.append("\"").append(algorithmName(a)).append("\";r=");
  appendLimitInt(v, d.remaining);
  v.append(";t=");
  appendLimitInt(v, t);
}

std::string rateLimitPolicyField(Algorithm a, const Quota& q) {
  std::string v;
  appendRateLimitPolicyField(v, a, q);
  return v;
}

std::string rateLimitField(Algorithm a, const Decision& d) {
  std::string v;
  appendRateLimitField(v, a, d);
  return v;
}

}  // namespace rl
