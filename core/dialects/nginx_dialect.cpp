// nginx limit_req: `limit_req_zone KEY zone=NAME:SIZE rate=Nr/s|Nr/m;` and
// `limit_req zone=NAME [burst=B] [nodelay | delay=D];`.
// nginx keeps a rate in thousandths of a request per second, truncated
// (7r/m = 116, one request every 8.621 s), and its default burst is 0. Its
// queue is RateLab's leaky_bucket with limit B + 1 (delayed requests); with
// nodelay the same queue answers at once, which is gcra with limit B + 1.
#include <cmath>
#include <map>

#include "dialects/dialect_detail.hpp"
#include "dialects/dialect_text.hpp"

namespace rl::dialect {

namespace {
constexpr std::string_view kName = "nginx";

struct Zone {
  std::string key;
  std::int64_t thousandths = 0;  ///< requests per 1000 s, as nginx stores the rate
  bool perMinute = false;
  std::vector<std::string> unmodeled;
};

// "rate=6000r/m" -> thousandths (N * 1000 per s, or N * 1000 / 60 per min, truncated).
Result<Zone> parseRate(std::string_view token, Zone z) {
  const std::string_view v = token.substr(5);
  const bool perSecond = v.ends_with("r/s");
  z.perMinute = v.ends_with("r/m");
  auto n = (perSecond || z.perMinute) ? wholeNumber(v.substr(0, v.size() - 3)) : std::nullopt;
  if (!n || *n > 1'000'000'000) return tokenError(kName, token, "rate=Nr/s or rate=Nr/m with N a whole number");
  z.thousandths = z.perMinute ? *n * 1000 / 60 : *n * 1000;
  if (z.thousandths == 0) return tokenError(kName, token, "a rate of at least 1r/m (nginx stores 0)");
  return z;
}

Result<std::pair<std::string, Zone>> parseZone(const std::vector<std::string_view>& w, std::string_view stmt) {
  if (w.size() < 2 || w[1].starts_with("zone=")) return tokenError(kName, stmt, "limit_req_zone KEY zone=NAME:SIZE rate=Nr/s");
  Zone z;
  z.key = std::string(w[1]);
  std::string name;
  for (std::size_t i = 2; i < w.size(); ++i) {
    if (w[i].starts_with("zone=")) {
      name = std::string(w[i].substr(5, w[i].find(':') == std::string_view::npos ? std::string_view::npos : w[i].find(':') - 5));
      if (name.empty() || w[i].find(':') == std::string_view::npos) return tokenError(kName, w[i], "zone=NAME:SIZE");
    } else if (w[i].starts_with("rate=")) {
      auto r = parseRate(w[i], z);
      if (!r) return r.error();
      z = r.value();
    } else if (w[i] == "sync") {
      z.unmodeled.push_back("sync: the zone is shared across an nginx cluster (NGINX Plus); RateLab models one node");
    } else {
      return tokenError(kName, w[i], "zone=NAME:SIZE, rate=Nr/s or rate=Nr/m, or sync");
    }
  }
  if (name.empty()) return tokenError(kName, stmt, "zone=NAME:SIZE in limit_req_zone");
  if (z.thousandths == 0) return tokenError(kName, stmt, "rate=Nr/s or rate=Nr/m in limit_req_zone");
  return std::pair{name, z};
}

struct Use {
  std::string zone;
  std::int64_t burst = 0;
  bool nodelay = false;
  std::optional<std::int64_t> delay;
};

Result<Use> parseUse(const std::vector<std::string_view>& w, std::string_view stmt) {
  Use u;
  for (std::size_t i = 1; i < w.size(); ++i) {
    auto num = [&](std::size_t prefix) { return wholeNumber(w[i].substr(prefix)); };
    if (w[i].starts_with("zone=")) {
      u.zone = std::string(w[i].substr(5));
    } else if (w[i].starts_with("burst=")) {
      auto b = num(6);
      if (!b || *b > 1'000'000) return tokenError(kName, w[i], "burst=N with N a whole number from 0 to 1000000");
      u.burst = *b;
    } else if (w[i] == "nodelay") {
      u.nodelay = true;
    } else if (w[i].starts_with("delay=")) {
      auto d = num(6);
      if (!d) return tokenError(kName, w[i], "delay=N with N a whole number");
      u.delay = *d;
    } else {
      return tokenError(kName, w[i], "zone=NAME, burst=N, nodelay or delay=N");
    }
  }
  if (u.zone.empty()) return tokenError(kName, stmt, "zone=NAME in limit_req");
  return u;
}

DialectQuota quotaOf(const std::string& name, const Zone& z, const Use& u) {
  DialectQuota d;
  d.name = "zone " + name + " (key " + z.key + ")";
  d.quota.limit = u.burst + 1;
  d.quota.window = z.perMinute ? 60 * kSecond : kSecond;
  d.quota.refillPerSecond = static_cast<double>(z.thousandths) / 1000.0;
  d.algorithm = u.nodelay ? Algorithm::Gcra : Algorithm::LeakyBucket;
  d.unmodeled = z.unmodeled;
  if (u.burst == 0) d.notes.push_back("burst is 0 (nginx's default): only one request at a time, the rest denied");
  if (u.nodelay) d.notes.push_back("nodelay: the burst passes at once (as gcra), no request is queued");
  if (u.delay)
    d.unmodeled.push_back("delay=" + std::to_string(*u.delay) + ": the first " + std::to_string(*u.delay) +
                          " excess requests pass at once and the rest are delayed; RateLab's leaky_bucket delays "
                          "every queued request (the same requests are admitted)");
  if (z.perMinute && z.thousandths % 1000 != 0)
    d.notes.push_back("nginx stores the rate as " + std::to_string(z.thousandths) +
                      " thousandths of a request per second (truncated)");
  return d;
}

// Statements of the config: comments dropped, block openers and closers skipped.
std::vector<std::string> statements(std::string_view text) {
  std::string clean;
  bool comment = false;
  for (char c : text) {
    if (c == '#') comment = true;
    if (c == '\n') comment = false;
    if (!comment) clean += (c == '{' || c == '}') ? ';' : c;
  }
  std::vector<std::string> out;
  for (auto s : split(clean, ';')) out.emplace_back(s);
  return out;
}
}  // namespace

Result<std::vector<DialectQuota>> parseNginx(std::string_view text) {
  std::map<std::string, Zone> zones;
  std::vector<Use> uses;
  std::vector<std::string> shared;  // limit_req_status, dry run, log level: apply to every use
  std::vector<std::string> sharedUnmodeled;
  for (const std::string& stmt : statements(text)) {
    const auto w = words(stmt);
    if (w[0] == "limit_req_zone") {
      auto z = parseZone(w, stmt);
      if (!z) return z.error();
      zones[z->first] = z->second;
    } else if (w[0] == "limit_req") {
      auto u = parseUse(w, stmt);
      if (!u) return u.error();
      uses.push_back(u.value());
    } else if (w[0] == "limit_req_status" && w.size() == 2) {
      shared.push_back("limit_req_status " + std::string(w[1]) + ": the status of a denied request");
    } else if (w[0] == "limit_req_dry_run" && w.size() == 2) {
      if (w[1] == "on") sharedUnmodeled.push_back("limit_req_dry_run on: nothing is denied, excess requests are only logged");
    } else if (w[0] == "limit_req_log_level" && w.size() == 2) {
      shared.push_back("limit_req_log_level " + std::string(w[1]) + ": logging only");
    } else if (w[0].starts_with("limit_req")) {
      return tokenError(kName, stmt, "limit_req_zone, limit_req, limit_req_status N, limit_req_dry_run on|off or limit_req_log_level L");
    }
  }
  if (zones.empty()) return tokenError(kName, trim(text).substr(0, 60), "a limit_req_zone KEY zone=NAME:SIZE rate=Nr/s directive");
  std::vector<DialectQuota> out;
  if (uses.empty())
    for (const auto& [name, z] : zones) {
      Use u;
      u.zone = name;
      out.push_back(quotaOf(name, z, u));
      out.back().notes.push_back("no limit_req uses zone " + name + ": shown with limit_req's defaults");
    }
  for (const Use& u : uses) {
    auto z = zones.find(u.zone);
    if (z == zones.end()) return tokenError(kName, "zone=" + u.zone, "a zone defined by limit_req_zone");
    out.push_back(quotaOf(u.zone, z->second, u));
  }
  for (DialectQuota& d : out) {
    d.notes.insert(d.notes.end(), shared.begin(), shared.end());
    d.unmodeled.insert(d.unmodeled.end(), sharedUnmodeled.begin(), sharedUnmodeled.end());
    if (auto ok = checkQuota(kName, d.name, d.algorithm, d.quota); !ok) return ok.error();
  }
  return out;
}

namespace {
// nginx's rate for `perSecond`: "Nr/s" when whole, else the nearest "Nr/m"; differences appended.
std::string rateText(double perSecond, std::vector<std::string>& differences) {
  const double perMinute = perSecond * 60;
  if (std::abs(perSecond - std::round(perSecond)) < 1e-9 && perSecond >= 1)
    return std::to_string(std::llround(perSecond)) + "r/s";
  const std::int64_t n = std::max<std::int64_t>(1, std::llround(perMinute));
  if (std::abs(perMinute - static_cast<double>(n)) > 1e-9)
    differences.push_back("nginx takes whole requests per second or minute: " + std::to_string(n) + "r/m, not " +
                          std::to_string(perMinute) + "r/m");
  const std::int64_t thousandths = n * 1000 / 60;
  if (thousandths * 60 != n * 1000) {
    // Enough significant digits that the two intervals read differently.
    const double stored = 1000.0 / static_cast<double>(thousandths), meant = 60.0 / static_cast<double>(n);
    char a[32], b[32];
    for (int digits = 4; digits <= 12; ++digits) {
      std::snprintf(a, sizeof a, "%.*g", digits, stored);
      std::snprintf(b, sizeof b, "%.*g", digits, meant);
      if (std::string_view(a) != b) break;
    }
    differences.push_back("nginx stores " + std::to_string(n) + "r/m as " + std::to_string(thousandths) +
                          " thousandths of a request per second (truncated): one request every " + a + " s, not " + b +
                          " s");
  }
  return std::to_string(n) + "r/m";
}
}  // namespace

Emitted emitNginx(Algorithm a, const Quota& q) {
  Emitted e;
  const std::string rate = rateText(q.ratePerSecond(), e.differences);
  const bool delayed = a == Algorithm::LeakyBucket;
  if (!isRateBased(a)) e.differences.push_back(windowVersusRate(a, "nginx"));
  e.text = "limit_req_zone $binary_remote_addr zone=ratelab:10m rate=" + rate + ";  # in http { }\n" +
           "limit_req zone=ratelab burst=" + std::to_string(q.limit - 1) + (delayed ? "" : " nodelay") +
           ";  # in server { } or location { }\n" + "limit_req_status 429;\n";
  return e;
}

}  // namespace rl::dialect
