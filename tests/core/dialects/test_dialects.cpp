// Every dialect as a table: config text -> RateLab quota (algorithm, limit,
// window, refill, how many settings named as not modeled), malformed text ->
// its exact error line; emit -> parse round trips; and the explanation's
// numbers, found by the limiter itself.

#include <QtTest>

#include "dialects/dialect.hpp"
#include "dialects/quota_explanation.hpp"

using namespace rl;

namespace {
constexpr double kNoRefill = -1;
// One row: a config and the quota at `index` it must give (or its error line).
void row(const char* name, const char* dialect, const char* text, int index, const char* algorithm, qint64 limit,
         qint64 windowMs, double refill, int unmodeled) {
  QTest::newRow(name) << QString(dialect) << QString(text) << index << QString(algorithm) << limit << windowMs << refill
                      << unmodeled << QString();
}
void bad(const char* name, const char* dialect, const char* text, const char* error) {
  QTest::newRow(name) << QString(dialect) << QString(text) << 0 << QString() << qint64(0) << qint64(0) << 0.0 << 0
                      << QString(error);
}
void columns() {
  QTest::addColumn<QString>("dialect");
  QTest::addColumn<QString>("text");
  QTest::addColumn<int>("index");
  QTest::addColumn<QString>("algorithm");
  QTest::addColumn<qint64>("limit");
  QTest::addColumn<qint64>("windowMs");
  QTest::addColumn<double>("refill");
  QTest::addColumn<int>("unmodeled");
  QTest::addColumn<QString>("error");
}
}  // namespace

class DialectsTest : public QObject {
  Q_OBJECT
 private slots:
  void nginx_data();
  void nginx() { check(); }
  void envoy_data();
  void envoy() { check(); }
  void traefik_data();
  void traefik() { check(); }
  void express_data();
  void express() { check(); }
  void flexible_data();
  void flexible() { check(); }
  void limits_data();
  void limits() { check(); }
  void redisRate_data();
  void redisRate() { check(); }
  void roundTrip_data();
  void roundTrip();
  void inexactEmissionSaysWhatDiffers();
  void unknownDialectNamesTheAllowedOnes();
  void explanation_data();
  void explanation();

 private:
  void check();
};

void DialectsTest::check() {
  QFETCH(QString, dialect);
  QFETCH(QString, text);
  QFETCH(int, index);
  QFETCH(QString, algorithm);
  QFETCH(qint64, limit);
  QFETCH(qint64, windowMs);
  QFETCH(double, refill);
  QFETCH(int, unmodeled);
  QFETCH(QString, error);
  const auto r = parseDialect(dialect.toStdString(), text.toStdString());
  if (!error.isEmpty()) {
    QVERIFY2(!r, "parsed what should be an error");
    QCOMPARE(QString::fromStdString(r.error().message), error);
    return;
  }
  QVERIFY2(r, r ? "" : r.error().message.c_str());
  QVERIFY(index < static_cast<int>(r->size()));
  const DialectQuota& d = r.value()[static_cast<std::size_t>(index)];
  QCOMPARE(QString::fromStdString(std::string(algorithmName(d.algorithm))), algorithm);
  QCOMPARE(d.quota.limit, limit);
  QCOMPARE(d.quota.window.count(), windowMs * 1000);
  if (refill == kNoRefill) QVERIFY(!d.quota.refillPerSecond);
  else QVERIFY2(d.quota.refillPerSecond && std::abs(*d.quota.refillPerSecond - refill) < 1e-9,
                qPrintable(QString::number(d.quota.refillPerSecond.value_or(-1), 'g', 12)));
  QCOMPARE(static_cast<int>(d.unmodeled.size()), unmodeled);
  QVERIFY(d.quota.validate(d.algorithm));
}

void DialectsTest::nginx_data() {
  columns();
  // The example: 6000r/m with nginx's default burst 0 is one request per 10 ms.
  row("6000r/m, no burst", "nginx", "limit_req_zone $binary_remote_addr zone=z:10m rate=6000r/m; limit_req zone=z;", 0,
      "leaky_bucket", 1, 60000, 100, 0);
  row("burst nodelay is gcra", "nginx", "limit_req_zone $binary_remote_addr zone=z:1m rate=10r/s;\nlimit_req zone=z burst=5 nodelay;",
      0, "gcra", 6, 1000, 10, 0);
  row("7r/m in thousandths", "nginx", "limit_req_zone $k zone=z:1m rate=7r/m; limit_req zone=z burst=1;", 0, "leaky_bucket", 2,
      60000, 0.116, 0);
  row("delay= is named", "nginx", "limit_req_zone $k zone=z:1m rate=5r/s; limit_req zone=z burst=10 delay=3;", 0, "leaky_bucket",
      11, 1000, 5, 1);
  row("whole config", "nginx",
      "http {\n  # per address\n  limit_req_zone $binary_remote_addr zone=api:10m rate=20r/s;\n  server {\n    location / {\n"
      "      limit_req zone=api burst=20 nodelay; limit_req_status 429;\n      root /srv;\n    }\n  }\n}\n",
      0, "gcra", 21, 1000, 20, 0);
  row("dry run is named", "nginx", "limit_req_zone $k zone=z:1m rate=1r/s; limit_req zone=z; limit_req_dry_run on;", 0,
      "leaky_bucket", 1, 1000, 1, 1);
  row("zone without limit_req", "nginx", "limit_req_zone $k zone=z:1m rate=2r/s;", 0, "leaky_bucket", 1, 1000, 2, 0);
  bad("rate per hour", "nginx", "limit_req_zone $binary_remote_addr zone=z:10m rate=10r/h;",
      "nginx: 'rate=10r/h': expected rate=Nr/s or rate=Nr/m with N a whole number");
  bad("undefined zone", "nginx", "limit_req_zone $k zone=z:1m rate=1r/s; limit_req zone=y;",
      "nginx: 'zone=y': expected a zone defined by limit_req_zone");
  bad("negative burst", "nginx", "limit_req_zone $k zone=z:1m rate=1r/s; limit_req zone=z burst=-1;",
      "nginx: 'burst=-1': expected burst=N with N a whole number from 0 to 1000000");
  bad("no zone directive", "nginx", "limit_req zone=z;",
      "nginx: 'limit_req zone=z;': expected a limit_req_zone KEY zone=NAME:SIZE rate=Nr/s directive");
  bad("zone without size", "nginx", "limit_req_zone $k zone=z rate=1r/s;", "nginx: 'zone=z': expected zone=NAME:SIZE");
  bad("zero rate", "nginx", "limit_req_zone $k zone=z:1m rate=0r/m;", "nginx: 'rate=0r/m': expected a rate of at least 1r/m (nginx stores 0)");
  bad("unknown option", "nginx", "limit_req_zone $k zone=z:1m rate=1r/s; limit_req zone=z burst=2 nodleay;",
      "nginx: 'nodleay': expected zone=NAME, burst=N, nodelay or delay=N");
}

void DialectsTest::envoy_data() {
  columns();
  const char* config =
      "domain: edge\n"
      "descriptors:\n"
      "  - key: remote_address\n"
      "    rate_limit:\n"
      "      unit: second\n"
      "      requests_per_unit: 10\n"
      "  - key: path\n"
      "    value: /login\n"
      "    shadow_mode: true\n"
      "    rate_limit: {unit: minute, requests_per_unit: 5}\n"
      "    descriptors:\n"
      "      - key: user\n"
      "        rate_limit: {unit: HOUR, requests_per_unit: 100}\n";
  row("per second", "envoy", config, 0, "fixed_window", 10, 1000, kNoRefill, 0);
  row("shadow_mode is named", "envoy", config, 1, "fixed_window", 5, 60000, kNoRefill, 1);
  row("nested descriptor", "envoy", config, 2, "fixed_window", 100, 3600000, kNoRefill, 0);
  bad("unknown unit", "envoy", "domain: d\ndescriptors:\n  - key: k\n    rate_limit: {unit: fortnight, requests_per_unit: 1}\n",
      "envoy: 'unit: fortnight': expected second, minute, hour, day, week, month or year");
  bad("words for a number", "envoy", "domain: d\ndescriptors:\n  - key: k\n    rate_limit: {unit: second, requests_per_unit: ten}\n",
      "envoy: 'requests_per_unit: ten': expected a whole number >= 1");
  bad("no descriptors", "envoy", "domain: d\n", "envoy: 'domain: d': expected a map with domain: NAME and descriptors: [...]");
  bad("broken YAML", "envoy", "domain: d\ndescriptors: [\n", "envoy: 'line 3, column 1': expected YAML (end of sequence flow not found)");
  bad("descriptor without key", "envoy", "domain: d\ndescriptors:\n  - value: v\n",
      "envoy: 'domain d: descriptors': expected each descriptor a map with key: NAME");
}

void DialectsTest::traefik_data() {
  columns();
  // traefik#8330: average 6 per minute is one request every 10 s (burst defaults to 1).
  row("average per minute", "traefik", "average: 6\nperiod: 1m\n", 0, "token_bucket", 1, 60000, 0.1, 1);
  row("YAML middleware", "traefik",
      "http:\n  middlewares:\n    test-ratelimit:\n      rateLimit:\n        average: 100\n        burst: 200\n", 0,
      "token_bucket", 200, 1000, 100, 1);
  row("labels", "traefik",
      "traefik.http.middlewares.rl.ratelimit.average=100\ntraefik.http.middlewares.rl.ratelimit.burst=50\n", 0,
      "token_bucket", 50, 1000, 100, 1);
  // 200 tokens at 10/s take 20 s to refill, but Traefik forgets a bucket idle for 2 s: named too.
  row("TOML", "traefik", "[http.middlewares.test-ratelimit.rateLimit]\n  average = 100\n  burst = 200\n  period = \"10s\"\n", 0,
      "token_bucket", 200, 10000, 10, 2);
  bad("words for average", "traefik", "average: six\n", "traefik: 'average: six': expected a whole number >= 1 (0 turns the limiter off)");
  bad("unknown period unit", "traefik", "average: 5\nperiod: 1fortnight\n",
      "traefik: 'period: 1fortnight': expected a duration such as 1s, 1m, 10s or 500ms (whole ms, > 0)");
  bad("no average", "traefik", "burst: 5", "traefik: 'burst: 5': expected average: N (requests per period)");
}

void DialectsTest::express_data() {
  columns();
  row("windowMs product", "express-rate-limit",
      "const limiter = rateLimit({\n  windowMs: 15 * 60 * 1000, // 15 minutes\n  limit: 100,\n  standardHeaders: 'draft-8',\n"
      "  legacyHeaders: false,\n})",
      0, "fixed_window", 100, 900000, kNoRefill, 0);
  row("max and skip", "express-rate-limit", "{ windowMs: 60000, max: 10, skipSuccessfulRequests: true }", 0, "fixed_window", 10,
      60000, kNoRefill, 1);
  row("defaults", "express-rate-limit", "rateLimit({})", 0, "fixed_window", 5, 60000, kNoRefill, 0);
  bad("a call for windowMs", "express-rate-limit", "rateLimit({ windowMs: ms('15m') })",
      "express-rate-limit: 'windowMs: ms('15m')': expected a number of milliseconds >= 1 (or a product like 15 * 60 * 1000)");
  bad("shorthand property", "express-rate-limit", "rateLimit({ limit })", "express-rate-limit: 'limit': expected key: value");
  bad("unclosed object", "express-rate-limit", "rateLimit({ windowMs: 1000",
      "express-rate-limit: '{ windowMs: 1000': expected a closing } of the options object");
}

void DialectsTest::flexible_data() {
  columns();
  row("blockDuration and execEvenly are named", "rate-limiter-flexible",
      "const limiter = new RateLimiterRedis({ storeClient: redis, points: 10, duration: 1, blockDuration: 60, execEvenly: true });",
      0, "fixed_window", 10, 1000, kNoRefill, 2);
  row("product duration", "rate-limiter-flexible", "{ points: 5, duration: 60 * 60 }", 0, "fixed_window", 5, 3600000, kNoRefill, 0);
  row("defaults", "rate-limiter-flexible", "new RateLimiterMemory({})", 0, "fixed_window", 4, 1000, kNoRefill, 0);
  bad("zero points", "rate-limiter-flexible", "{ points: 0 }", "rate-limiter-flexible: 'points: 0': expected a whole number >= 1");
  bad("never resets", "rate-limiter-flexible", "{ points: 3, duration: 0 }",
      "rate-limiter-flexible: 'duration: 0': expected seconds > 0 in whole milliseconds (0, never reset, can't be modeled)");
}

void DialectsTest::limits_data() {
  columns();
  row("slash", "limits", "10/minute", 0, "fixed_window", 10, 60000, kNoRefill, 0);
  row("per", "limits", "5 per second", 0, "fixed_window", 5, 1000, kNoRefill, 0);
  row("multiples", "limits", "1 per 2 minutes", 0, "fixed_window", 1, 120000, kNoRefill, 0);
  row("several, second one", "limits", "100/day;10 per hour", 1, "fixed_window", 10, 3600000, kNoRefill, 0);
  row("month is 30 days", "limits", "3/month", 0, "fixed_window", 3, 2592000000, kNoRefill, 0);
  bad("unknown unit", "limits", "10/fortnight",
      "limits: '10/fortnight': expected N/unit or N per [M] unit, unit one of second, minute, hour, day, month, year");
  bad("words for a number", "limits", "ten/minute",
      "limits: 'ten/minute': expected N/unit or N per [M] unit, unit one of second, minute, hour, day, month, year");
  bad("no separator", "limits", "10 minute",
      "limits: '10 minute': expected '/' or 'per' after the amount (N/unit or N per [M] unit, unit one of second, minute, hour, "
      "day, month, year)");
}

void DialectsTest::redisRate_data() {
  columns();
  row("PerSecond", "redis_rate", "redis_rate.PerSecond(10)", 0, "gcra", 10, 1000, 10, 0);
  row("Limit", "redis_rate", "redis_rate.Limit{Rate: 10, Burst: 20, Period: time.Second}", 0, "gcra", 20, 1000, 10, 0);
  row("two minutes", "redis_rate", "Limit{Rate: 1, Burst: 5, Period: 2 * time.Minute}", 0, "gcra", 5, 120000, 1.0 / 120, 0);
  bad("burst zero", "redis_rate", "redis_rate.Limit{Rate: 10, Burst: 0, Period: time.Second}",
      "redis_rate: 'Burst: 0': expected a whole number >= 1 (Burst 0 admits nothing)");
  bad("unknown period", "redis_rate", "Limit{Rate: 10, Burst: 10, Period: time.Fortnight}",
      "redis_rate: 'Period: time.Fortnight': expected time.Second, time.Minute, time.Hour or N * time.Millisecond");
  bad("no period", "redis_rate", "Limit{Rate: 10, Burst: 10}",
      "redis_rate: 'Limit{Rate: 10, Burst: 10}': expected Period: ... in the Limit (redis_rate has no default)");
  bad("no limit at all", "redis_rate", "ten per second",
      "redis_rate: 'ten per second': expected Limit{Rate: N, Burst: N, Period: time.Second} or PerSecond(N), PerMinute(N), "
      "PerHour(N)");
}

void DialectsTest::roundTrip_data() {
  QTest::addColumn<QString>("dialect");
  QTest::addColumn<QString>("algorithm");
  QTest::addColumn<qint64>("limit");
  QTest::addColumn<qint64>("windowMs");
  QTest::addColumn<double>("refill");
  QTest::addColumn<int>("differences");
  auto add = [](const char* name, const char* d, const char* a, qint64 limit, qint64 windowMs, double refill, int differences) {
    QTest::newRow(name) << QString(d) << QString(a) << limit << windowMs << refill << differences;
  };
  add("nginx delayed", "nginx", "leaky_bucket", 1, 1000, 100, 0);
  add("nginx nodelay", "nginx", "gcra", 6, 1000, 10, 0);
  add("nginx per minute", "nginx", "leaky_bucket", 2, 1000, 0.5, 0);
  add("envoy second", "envoy", "fixed_window", 10, 1000, kNoRefill, 0);
  add("envoy minute", "envoy", "fixed_window", 5, 60000, kNoRefill, 0);
  add("traefik", "traefik", "token_bucket", 20, 1000, 10, 0);
  add("traefik per minute", "traefik", "token_bucket", 1, 1000, 0.1, 0);
  add("express", "express-rate-limit", "fixed_window", 100, 900000, kNoRefill, 1);  // window alignment
  add("rlf", "rate-limiter-flexible", "fixed_window", 10, 1000, kNoRefill, 1);       // window alignment
  add("limits", "limits", "fixed_window", 10, 60000, kNoRefill, 0);
  add("limits two minutes", "limits", "fixed_window", 1, 120000, kNoRefill, 0);
  add("redis_rate PerSecond", "redis_rate", "gcra", 10, 1000, 10, 0);
  add("redis_rate Limit", "redis_rate", "gcra", 20, 1000, 10, 0);
  add("redis_rate per minute", "redis_rate", "gcra", 5, 1000, 1.0 / 60, 0);
}

void DialectsTest::roundTrip() {
  QFETCH(QString, dialect);
  QFETCH(QString, algorithm);
  QFETCH(qint64, limit);
  QFETCH(qint64, windowMs);
  QFETCH(double, refill);
  QFETCH(int, differences);
  const Algorithm a = *parseAlgorithm(algorithm.toStdString());
  Quota q = Quota::perWindow(limit, Micros{windowMs * 1000});
  if (refill != kNoRefill) q = q.withRefill(refill), q.limit = limit;
  const Dialect* d = findDialect(dialect.toStdString());
  QVERIFY(d);
  const Emitted e = d->emitConfig(a, q);
  QCOMPARE(static_cast<int>(e.differences.size()), differences);
  const auto back = d->parse(e.text);
  QVERIFY2(back, qPrintable(QString::fromStdString((back ? "" : back.error().message) + "\n" + e.text)));
  const DialectQuota& p = back.value()[0];
  QCOMPARE(p.algorithm, a);
  QCOMPARE(p.quota.limit, limit);
  if (isRateBased(a)) QVERIFY2(std::abs(p.quota.ratePerSecond() - refill) < 1e-9, e.text.c_str());
  else QCOMPARE(p.quota.window.count(), windowMs * 1000);
}

void DialectsTest::inexactEmissionSaysWhatDiffers() {
  // A sliding log in nginx (120 per minute): the closest setting, 2r/s, and what differs.
  const Emitted e = findDialect("nginx")->emitConfig(Algorithm::SlidingLog, Quota::perWindow(120, 60 * kSecond));
  QVERIFY(QString::fromStdString(e.text).contains("rate=2r/s"));
  QVERIFY(QString::fromStdString(e.text).contains("burst=119 nodelay"));
  QCOMPARE(e.differences.size(), std::size_t{1});
  QVERIFY(QString::fromStdString(e.differences[0]).startsWith("sliding_log counts in windows; nginx refills steadily"));
  // 7/min is 7r/m, which nginx keeps as 116 thousandths per second.
  const Emitted seven = findDialect("nginx")->emitConfig(Algorithm::LeakyBucket, Quota::perWindow(2, 60 * kSecond).withRefill(7.0 / 60));
  QCOMPARE(seven.differences.size(), std::size_t{1});
  QCOMPARE(QString::fromStdString(seven.differences[0]),
           QString("nginx stores 7r/m as 116 thousandths of a request per second (truncated): one request every 8.621 s, "
                   "not 8.571 s"));
  // Envoy has no 10 s unit: the closest is a minute, at the same rate.
  const Emitted envoy = findDialect("envoy")->emitConfig(Algorithm::FixedWindow, Quota::perWindow(50, 10 * kSecond));
  QVERIFY(QString::fromStdString(envoy.text).contains("unit: minute\n      requests_per_unit: 300\n"));
  QCOMPARE(envoy.differences.size(), std::size_t{1});
}

void DialectsTest::unknownDialectNamesTheAllowedOnes() {
  const auto r = parseDialect("haproxy", "x");
  QVERIFY(!r);
  QCOMPARE(QString::fromStdString(r.error().message),
           QString("unknown dialect 'haproxy': allowed nginx, envoy, traefik, express-rate-limit, rate-limiter-flexible, "
                   "limits, redis_rate"));
}

void DialectsTest::explanation_data() {
  QTest::addColumn<QString>("dialect");
  QTest::addColumn<QString>("text");
  QTest::addColumn<qint64>("intervalUs");
  QTest::addColumn<qint64>("passed");
  QTest::addColumn<qint64>("delayed");
  QTest::addColumn<qint64>("denied");
  QTest::addColumn<qint64>("maxSecond");
  QTest::addColumn<qint64>("maxMinute");
  QTest::newRow("nginx 6000r/m") << "nginx" << "limit_req_zone $binary_remote_addr zone=z:10m rate=6000r/m; limit_req zone=z;"
                                 << qint64(10'000) << qint64(1) << qint64(0) << qint64(9) << qint64(100) << qint64(6000);
  // burst=4 without nodelay: 5 admitted at once, 4 of them queued 10..40 ms.
  QTest::newRow("nginx burst, delayed") << "nginx" << "limit_req_zone $k zone=z:1m rate=100r/s; limit_req zone=z burst=4;"
                                        << qint64(10'000) << qint64(1) << qint64(4) << qint64(5) << qint64(104) << qint64(6004);
  QTest::newRow("traefik 6 per minute") << "traefik" << "average: 6\nperiod: 1m" << qint64(10'000'000) << qint64(1) << qint64(0)
                                        << qint64(9) << qint64(1) << qint64(6);
  // A fixed window passes its limit twice across a boundary: 20 in one second.
  QTest::newRow("limits 10 per second") << "limits" << "10/second" << qint64(100'000) << qint64(10) << qint64(0) << qint64(10)
                                        << qint64(20) << qint64(610);
}

void DialectsTest::explanation() {
  QFETCH(QString, dialect);
  QFETCH(QString, text);
  QFETCH(qint64, intervalUs);
  QFETCH(qint64, passed);
  QFETCH(qint64, delayed);
  QFETCH(qint64, denied);
  QFETCH(qint64, maxSecond);
  QFETCH(qint64, maxMinute);
  const auto r = parseDialect(dialect.toStdString(), text.toStdString());
  QVERIFY2(r, r ? "" : r.error().message.c_str());
  const DialectQuota& d = r.value()[0];
  const QuotaExplanation e = explainQuota(d.algorithm, d.quota, defaultSimultaneous(d.quota));
  QCOMPARE(e.emissionInterval.count(), intervalUs);
  QCOMPARE(e.simultaneous, passed + delayed + denied);
  QCOMPARE(e.passed, passed);
  QCOMPARE(e.delayed, delayed);
  QCOMPARE(e.denied, denied);
  QCOMPARE(e.maxInSecond, maxSecond);
  QCOMPARE(e.maxInMinute, maxMinute);
  QVERIFY(!e.capped);
}

QTEST_GUILESS_MAIN(DialectsTest)
#include "test_dialects.moc"
