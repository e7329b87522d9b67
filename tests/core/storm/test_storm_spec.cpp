// StormSpec: validation messages name the flag and the allowed range; scenario
// files reject unknown keys and bad values by name; flags override files; the
// traffic plan places every request exactly.

#include <QtTest>

#include <functional>
#include <set>

#include "storm/run_tag.hpp"
#include "storm/storm_settings.hpp"
#include "storm/storm_runner.hpp"
#include "storm/traffic_plan.hpp"

using namespace rl;

using Mutator = std::function<void(StormSpec&)>;
Q_DECLARE_METATYPE(Mutator)

class StormSpecTest : public QObject {
  Q_OBJECT
 private slots:
  void validateNamesTheFlag_data();
  void validateNamesTheFlag();
  void defaultsAreValid();
  void settingsRejectBadText_data();
  void settingsRejectBadText();
  void scenarioRejectsUnknownKey();
  void scenarioRejectsBadValue();
  void scenarioRoundTrips();
  void shippedScenariosLoad_data();
  void shippedScenariosLoad();
  void boundaryStraddlesTheEdge();
  void constantAndRampTimes();
  void poissonIsSeeded();
  void roundRobinReplicasAndClients();
  void runTagsNeverRepeat();
};

void StormSpecTest::validateNamesTheFlag_data() {
  QTest::addColumn<Mutator>("mutate");
  QTest::addColumn<QString>("message");
  QTest::newRow("limit") << Mutator([](StormSpec& s) { s.quota.limit = 0; })
                         << "--limit: limit 0 is out of range: allowed 1 to 1000000000000";
  QTest::newRow("replicas") << Mutator([](StormSpec& s) { s.replicas = 65; })
                            << "--replicas 65 is out of range: allowed 1 to 64";
  QTest::newRow("clients") << Mutator([](StormSpec& s) { s.clients = 0; })
                           << "--clients 0 is out of range: allowed 1 to 1000000";
  QTest::newRow("concurrency") << Mutator([](StormSpec& s) { s.concurrency = 0; })
                               << "--concurrency 0 is out of range: allowed 1 to 512";
  QTest::newRow("http method") << Mutator([](StormSpec& s) { s.http.method = "GE T"; })
                               << "--http-method 'GE T' is not valid: allowed a method token such as GET or POST";
  QTest::newRow("http header") << Mutator([](StormSpec& s) { s.http.headers = {"no colon"}; })
                               << "--http-header 'no colon' is not valid: allowed 'Name: value' (a header token, printable value)";
  QTest::newRow("http key") << Mutator([](StormSpec& s) { s.http.key = "cookie"; })
                            << "--http-key 'cookie' is not valid: allowed header:NAME (e.g. header:x-api-key) or source-addr";
  QTest::newRow("deny 2xx") << Mutator([](StormSpec& s) { s.http.denyStatus = {200}; })
                            << "--http-deny-status 200 is not valid: allowed 400 to 599";
  QTest::newRow("http timeout 0") << Mutator([](StormSpec& s) { s.http.timeout = Micros{0}; })
                                  << "--http-timeout-ms 0 is out of range: allowed 1 to 60000 ms";
  QTest::newRow("http timeout 61 s") << Mutator([](StormSpec& s) { s.http.timeout = Micros{61'000'000}; })
                                     << "--http-timeout-ms 61000 is out of range: allowed 1 to 60000 ms";
  QTest::newRow("script needed") << Mutator([](StormSpec& s) { s.backend = Backend::RedisScript; })
                                 << "--script is required by --backend redis-script: allowed a readable Lua file";
  QTest::newRow("compare self") << Mutator([](StormSpec& s) { s.compareBackends = {Backend::Memory}; })
                                << "--compare-backend memory: allowed memory, redis-lua, redis-naive, redis-watch or redis-script, other than --backend";
  QTest::newRow("requests") << Mutator([](StormSpec& s) { s.requests = 20'000'001; })
                            << "--requests 20000001 is out of range: allowed 1 to 20000000";
  QTest::newRow("rate needed") << Mutator([](StormSpec& s) { s.pattern = Pattern::Poisson; })
                               << "--rate is required by --pattern poisson: allowed a rate > 0 requests/s";
  QTest::newRow("skew count") << Mutator([](StormSpec& s) { s.replicas = 2; s.skew = {Micros{0}}; })
                              << "--skew-ms has 1 values: allowed one per replica (2)";
  QTest::newRow("skew range") << Mutator([](StormSpec& s) { s.skew = {Micros{86'400'001'000}}; })
                              << "--skew-ms is out of range: allowed -86400000 to 86400000 ms";
  QTest::newRow("no algorithm") << Mutator([](StormSpec& s) { s.algorithms.clear(); })
                                << "--algorithm is empty: allowed one or more of fixed_window, sliding_log, "
                                   "sliding_counter, token_bucket, leaky_bucket, gcra, or all";
  QTest::newRow("twice") << Mutator([](StormSpec& s) { s.algorithms = {Algorithm::Gcra, Algorithm::Gcra}; })
                         << "--algorithm lists an algorithm twice: allowed each at most once";
  QTest::newRow("span") << Mutator([](StormSpec& s) { s.pattern = Pattern::Constant; s.rate = 0.0001; })
                        << "--rate 0.0001 with --requests 10 spans more than a day: allowed requests / rate <= 86400 s (43200 s for ramp)";
  QTest::newRow("connections") << Mutator([](StormSpec& s) { s.backend = Backend::RedisLua; s.concurrency = 512; s.replicas = 8; })
                               << "--concurrency x --replicas is 4096 Redis connections: allowed at most 2048";
  QTest::newRow("cost") << Mutator([](StormSpec& s) { s.cost = 101; })
                        << "--cost: cost 101 is out of range: allowed 1 to 100 (the limit)";
  QTest::newRow("too many decisions")
      << Mutator([](StormSpec& s) { s.requests = 5'000'000; s.algorithms.assign(kAllAlgorithms.begin(), kAllAlgorithms.end()); })
      << "--requests x algorithms is 5000000 x 6: allowed at most 20000000 decisions per run";
}

void StormSpecTest::validateNamesTheFlag() {
  QFETCH(Mutator, mutate);
  QFETCH(QString, message);
  StormSpec s;
  s.requests = 10;
  mutate(s);
  const auto ok = validate(s);
  QVERIFY(!ok);
  QCOMPARE(QString::fromStdString(ok.error().message), message);
  QCOMPARE(ok.error().code, ErrorCode::InvalidArgument);
}

void StormSpecTest::defaultsAreValid() {
  StormSpec s;
  QVERIFY(!validate(s));  // no request count: says so
  QCOMPARE(QString::fromStdString(validate(s).error().message),
           QString("--requests is missing: give --requests N (1 to 20000000), or --duration-ms with --rate"));
  s.requests = 1;
  QVERIFY(validate(s).ok());
}

void StormSpecTest::settingsRejectBadText_data() {
  QTest::addColumn<QString>("key");
  QTest::addColumn<QString>("text");
  QTest::addColumn<QString>("message");
  QTest::newRow("limit") << "limit" << "ten" << "--limit: 'ten' is not valid: allowed an integer 1 to 1000000000000";
  QTest::newRow("window") << "window_ms" << "-5" << "--window-ms: '-5' is not valid: allowed an integer 1 to 31536000000 (ms)";
  QTest::newRow("backend") << "backend" << "redis" << "--backend: 'redis' is not valid: allowed memory, redis-lua, redis-naive, redis-watch, redis-script or http";
  QTest::newRow("pattern") << "pattern" << "wave" << "--pattern: 'wave' is not valid: allowed burst, constant, boundary, ramp or poisson";
  QTest::newRow("clock") << "clock" << "ntp" << "--clock: 'ntp' is not valid: allowed server, client or virtual";
  QTest::newRow("algorithm") << "algorithm" << "fixed_window,leaky" << "--algorithm: 'leaky' is not valid: allowed fixed_window, sliding_log, sliding_counter, token_bucket, leaky_bucket, gcra (comma-separated) or all";
  QTest::newRow("skew") << "skew_ms" << "0,x" << "--skew-ms: 'x' is not valid: allowed comma-separated integer milliseconds, one per replica";
  QTest::newRow("policy") << "on_redis_error" << "maybe" << "--on-redis-error: 'maybe' is not valid: allowed open, closed or local";
  QTest::newRow("refill") << "refill_rate" << "0" << "--refill-rate: '0' is not valid: allowed a number > 0 and <= 1000000 (tokens per second)";
  QTest::newRow("deny status") << "http_deny_status" << "429,many" << "--http-deny-status: 'many' is not valid: allowed comma-separated HTTP statuses 400 to 599, e.g. 429,503";
  QTest::newRow("http timeout") << "http_timeout_ms" << "soon" << "--http-timeout-ms: 'soon' is not valid: allowed an integer 1 to 60000 ms";
  QTest::newRow("compare") << "compare_backend" << "redis" << "--compare-backend: 'redis' is not valid: allowed comma-separated backends: memory, redis-lua, redis-naive, redis-watch, redis-script";
}

void StormSpecTest::settingsRejectBadText() {
  QFETCH(QString, key);
  QFETCH(QString, text);
  QFETCH(QString, message);
  StormSpec s;
  std::string flag = "--" + key.toStdString();
  std::replace(flag.begin(), flag.end(), '_', '-');
  const auto ok = applyStormSetting(s, key.toStdString(), text.toStdString(), flag);
  QVERIFY(!ok);
  QCOMPARE(QString::fromStdString(ok.error().message), message);
}

void StormSpecTest::scenarioRejectsUnknownKey() {
  const auto doc = parseJson(R"({"limit": 5, "windw_ms": 100})");
  QVERIFY(doc.ok());
  const auto spec = specFromJson(doc.value());
  QVERIFY(!spec);
  QVERIFY2(spec.error().message.starts_with("scenario key 'windw_ms' is unknown: allowed name, description, window, backend"),
           spec.error().message.c_str());
}

void StormSpecTest::scenarioRejectsBadValue() {
  auto spec = specFromJson(parseJson(R"({"limit": "many"})").value());
  QVERIFY(!spec);
  QCOMPARE(QString::fromStdString(spec.error().message),
           QString("scenario key 'limit': 'many' is not valid: allowed an integer 1 to 1000000000000"));
  spec = specFromJson(parseJson(R"({"pattern": {"x": 1}})").value());
  QVERIFY(!spec);
  QCOMPARE(QString::fromStdString(spec.error().message),
           QString("scenario key 'pattern': allowed a string, a number or an array"));
  const auto bad = parseJson("{\"limit\": 5,\n \"rate\": }");
  QVERIFY(!bad);
  QCOMPARE(QString::fromStdString(bad.error().message), QString("JSON line 2 column 10: unexpected '}'; expected '[', '{', or a literal"));
}

void StormSpecTest::scenarioRoundTrips() {
  StormSpec s;
  s.algorithms = {Algorithm::Gcra, Algorithm::SlidingLog};
  s.backend = Backend::RedisWatch;
  s.quota = Quota::perWindow(7, 3 * kSecond).withRefill(2.5);
  s.replicas = 3;
  s.skew = {Micros{0}, Micros{-5000}, Micros{12'000}};
  s.clock = ClockMode::Client;
  s.pattern = Pattern::Poisson;
  s.rate = 33.5;
  s.requests = 77;
  s.seed = 99;
  s.resilience.onRedisError = FailurePolicy::Closed;
  const auto back = specFromJson(parseJson(dumpJson(specToJson(s), 2)).value());
  QVERIFY2(back.ok(), back.ok() ? "" : back.error().message.c_str());
  QVERIFY(back->algorithms == s.algorithms);
  QCOMPARE(back->backend, s.backend);
  QVERIFY(back->quota == s.quota);
  QVERIFY(back->skew == s.skew);
  QCOMPARE(back->clock, s.clock);
  QCOMPARE(back->pattern, s.pattern);
  QCOMPARE(back->rate, 33.5);
  QCOMPARE(back->requests, 77);
  QCOMPARE(back->seed, std::uint64_t{99});
  QCOMPARE(back->resilience.onRedisError, FailurePolicy::Closed);
  // HTTP and script settings: headers keep their commas, paths and templates as written.
  StormSpec h;
  h.backend = Backend::Http;
  h.http.targets = {"http://127.0.0.1:8081/api"};
  h.http.method = "POST";
  h.http.headers = {"Accept: a, b", "X-Trace: 1"};
  h.http.key = "source-addr";
  h.http.denyStatus = {429, 503};
  h.script.file = "/tmp/s.lua";
  h.script.argv = "{now_ms} {cost}";
  h.compareBackends = {Backend::RedisLua};
  const auto hb = specFromJson(parseJson(dumpJson(specToJson(h), 2)).value());
  QVERIFY2(hb.ok(), hb.ok() ? "" : hb.error().message.c_str());
  QVERIFY(hb->http.headers == h.http.headers);
  QCOMPARE(hb->http.method, h.http.method);
  QCOMPARE(hb->http.key, h.http.key);
  QVERIFY(hb->http.denyStatus == h.http.denyStatus);
  QCOMPARE(hb->script.file, h.script.file);
  QCOMPARE(hb->script.argv, h.script.argv);
  QVERIFY(hb->compareBackends == h.compareBackends);
  // Flags override the file: a later setting wins.
  StormSpec over = back.value();
  QVERIFY(applyStormSetting(over, "limit", "50", "--limit").ok());
  QCOMPARE(over.quota.limit, 50);
}

void StormSpecTest::shippedScenariosLoad_data() {
  QTest::addColumn<QString>("file");
  for (const char* f : {"boundary", "replica_leak", "race", "clock_skew", "outage", "burst_tolerance", "seed_vs_token_bucket", "nginx_limit_req"})
    QTest::newRow(f) << QString(f);
}

void StormSpecTest::shippedScenariosLoad() {
  QFETCH(QString, file);
  const auto spec = loadScenario(std::string(RATELAB_SOURCE_DIR) + "/resources/scenarios/" + file.toStdString() + ".json");
  QVERIFY2(spec.ok(), spec.ok() ? "" : spec.error().message.c_str());
  const auto ok = validate(spec.value());
  QVERIFY2(ok.ok(), ok.ok() ? "" : ok.error().message.c_str());
}

void StormSpecTest::boundaryStraddlesTheEdge() {
  StormSpec s;
  s.pattern = Pattern::Boundary;
  s.quota = Quota::perWindow(100, 60 * kSecond);
  s.requests = 400;
  const auto plan = planRequests(s, kVirtualEpoch);
  QCOMPARE(plan.size(), std::size_t{400});
  const std::int64_t start = kVirtualEpoch.count();
  const std::int64_t edge = (start / 60'000'000 + 1) * 60'000'000;
  for (std::size_t i = 0; i < plan.size(); ++i) {
    const std::int64_t at = start + plan[i].intendedUs;
    if (i < 200) {
      QVERIFY(at < edge);
      QVERIFY(at >= edge - 1'000'000);  // within the 1 s gap before the edge
    } else {
      QVERIFY(at >= edge);
      QVERIFY(at < edge + 1'000'000);
    }
  }
}

void StormSpecTest::constantAndRampTimes() {
  StormSpec s;
  s.pattern = Pattern::Constant;
  s.rate = 4;
  s.duration = 2 * kSecond;  // 8 requests
  auto plan = planRequests(s, Micros{0});
  QCOMPARE(plan.size(), std::size_t{8});
  QCOMPARE(plan[1].intendedUs, 250'000);
  QCOMPARE(plan[7].intendedUs, 1'750'000);
  s.pattern = Pattern::Ramp;
  s.requests = 100;
  s.rate = 100;  // D = 2 s, t_i = sqrt(2 D i / rate) = sqrt(0.04 i)
  plan = planRequests(s, Micros{0});
  QCOMPARE(plan[25].intendedUs, 1'000'000);
  QCOMPARE(plan[99].intendedUs, 1'989'975);
  for (std::size_t i = 1; i < plan.size(); ++i) QVERIFY(plan[i].intendedUs > plan[i - 1].intendedUs);
}

void StormSpecTest::poissonIsSeeded() {
  StormSpec s;
  s.pattern = Pattern::Poisson;
  s.rate = 1000;
  s.requests = 10'000;
  s.seed = 7;
  const auto a = planRequests(s, Micros{0});
  const auto b = planRequests(s, Micros{0});
  s.seed = 8;
  const auto c = planRequests(s, Micros{0});
  QCOMPARE(a.back().intendedUs, b.back().intendedUs);
  QVERIFY(a.back().intendedUs != c.back().intendedUs);
  // 10,000 gaps of mean 1 ms: within 5 % of 10 s (the seeded draw is fixed; this documents it).
  QVERIFY(std::abs(a.back().intendedUs - 10'000'000) < 500'000);
}

void StormSpecTest::roundRobinReplicasAndClients() {
  StormSpec s;
  s.requests = 12;
  s.replicas = 3;
  s.clients = 2;
  const auto plan = planRequests(s, Micros{0});
  const int replicas[] = {0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2};
  const int clients[] = {0, 0, 0, 1, 1, 1, 0, 0, 0, 1, 1, 1};
  for (int i = 0; i < 12; ++i) {
    QCOMPARE(int(plan[static_cast<std::size_t>(i)].replica), replicas[i]);
    QCOMPARE(int(plan[static_cast<std::size_t>(i)].client), clients[i]);
  }
}

void StormSpecTest::runTagsNeverRepeat() {
  // Runs started in the same millisecond (two windows, or a test's back-to-back
  // storms) must not share keys: a full fixed window would deny the second run.
  std::set<std::string> tags;
  for (int i = 0; i < 1000; ++i) tags.insert(freshRunTag("r"));
  QCOMPARE(tags.size(), std::size_t{1000});
  QVERIFY(freshRunTag("race").starts_with("race"));
}

QTEST_GUILESS_MAIN(StormSpecTest)
#include "test_storm_spec.moc"
