// Every reader of the registry against keys built as values, at a fixed server
// time: the table says, per key, which library and algorithm it is and what
// limit, used, reset and TTL bound its reader states. No server: core/keys is
// pure decoding. (The real libraries write their keys in tests/core/redis/test_foreign_keys.)

#include <QtTest>

#include <set>

#include "keys/envoy_config.hpp"
#include "keys/key_reading.hpp"

using namespace rl;

namespace {
constexpr std::int64_t kNowUs = 1'750'000'000'000'000;  // 2025-06-15T15:06:40Z; a minute starts at 1749999960
constexpr std::int64_t kNone = -1;

struct Row {
  const char* tag;
  KeyInfo key;
  const char* assume;
  const char* library;    ///< nullptr: no reader knows the key
  const char* algorithm;
  std::int64_t limit, used, resetMs, boundMs;  ///< kNone: the reading has none
};

KeyInfo str(std::string name, std::string value, std::int64_t pttl) {
  KeyInfo k;
  k.name = std::move(name);
  k.type = "string";
  k.value = std::move(value);
  k.pttlMs = pttl;
  return k;
}

KeyInfo hash(std::string name, std::vector<std::pair<std::string, std::string>> fields, std::int64_t pttl) {
  KeyInfo k;
  k.name = std::move(name);
  k.type = "hash";
  k.fields = std::move(fields);
  k.pttlMs = pttl;
  return k;
}

KeyInfo zsetLog() {
  KeyInfo k;
  k.name = "log:bob";
  k.type = "zset";
  k.pttlMs = 60'000;
  k.zsetSize = 3;
  k.zsetHead = {{"a", "1749999999000"}, {"b", "1749999999500"}, {"c", "1749999999900"}};
  k.zsetLast = std::pair<std::string, std::string>{"c", "1749999999900"};
  return k;
}

const std::vector<Row>& rows() {
  static const std::vector<Row> kRows{
      {"express rate-limit-redis", str("rl:10.0.0.7", "4", 45'000), "", "rate-limit-redis", "fixed-window", kNone, 4, 45'000, kNone},
      {"express with window", str("rl:10.0.0.7", "4", 45'000), "limit=5 window=60s", "rate-limit-redis", "fixed-window", 5, 4, 45'000, 60'000},
      {"fastify", str("fastify-rate-limit-127.0.0.1", "3", 60'000), "limit=5", "@fastify/rate-limit", "fixed-window", 5, 3, 60'000, kNone},
      {"rate-limiter-flexible", str("rlflx:user42", "3", 59'000), "", "rate-limiter-flexible", "fixed-window", kNone, 3, 59'000, kNone},
      {"other counter", str("login:alice", "7", 30'000), "limit=5", "counter (rate-limiter-flexible shape)", "fixed-window", 5, 7, 30'000, kNone},
      {"limits fixed window", str("LIMITER/bob/10/1/minute", "4", 30'000), "", "limits (Python)", "fixed-window", 10, 4, 30'000, 60'000},
      {"limits without TTL", str("LIMITER/bob/10/1/minute", "4", -1), "", "limits (Python)", "fixed-window", 10, 4, kNone, 60'000},
      {"RateLab window", str("ratelab:{fixed_window:c1}:1750000000000000", "3", 500), "limit=5 window=1s", "RateLab", "fixed_window", 5, 3, 500, 1000},
      {"redis_rate", str("rate:user1", "266771201.5", 2000), "rate=1/s burst=5", "go-redis/redis_rate", "gcra", 5, 1, 1500, 5000},
      {"Kong minute", str("ratelimit:00000000-0000-0000-0000-000000000000:5fa0c1e2:1.2.3.4:1749999960000:minute", "9", 20'000),
       "limit=10", "Kong", "fixed-window", 10, 9, 20'000, 60'000},
      {"Kong identifier with colons", str("ratelimit:r1:s1:/api:v2:1750000000000:second", "1", 1000), "", "Kong", "fixed-window",
       kNone, 1, 1000, 1000},
      {"Envoy without config", str("api_remote_address_10.0.0.1_1749999960", "7", 60'000), "", "Envoy ratelimit", "fixed-window",
       kNone, 7, kNone, kNone},
      {"redis-cell", str("user123", "1750000002500000000", 2500), "rate=2/s burst=14", "redis-cell", "gcra", 15, 5, 2500, 7500},
      {"redis-cell without rate", str("user123", "1750000002500000000", 2500), "", "redis-cell", "gcra", kNone, kNone, 2500, kNone},
      {"Traefik", hash("rate:api-ratelimit@file:10.0.0.1", {{"last", "1749999999500000"}, {"tokens", "2.5"}}, 2000),
       "rate=10/s burst=20", "Traefik", "token_bucket", 20, 13, 1250, 2000},
      {"seed hash", hash("bucket:alice", {{"tokens", "3"}, {"last_refill", "1749999998"}}, 20'000), "limit=10 rate=1/s",
       "hash token bucket (seed script)", "token_bucket", 10, 5, 5000, 20'000},
      {"ZSET log in ms", zsetLog(), "limit=5", "sorted-set log (hand-written Lua)", "sliding-log", 5, 3, 60'000, kNone},
      {"unknown hash", hash("session:abc", {{"user", "alice"}}, -1), "", nullptr, nullptr, kNone, kNone, kNone, kNone},
      {"unknown string", str("greeting", "hello", -1), "", nullptr, nullptr, kNone, kNone, kNone, kNone},
  };
  return kRows;
}

std::int64_t orNone(const std::optional<std::int64_t>& v) { return v ? *v : kNone; }

constexpr const char* kEnvoyYaml = R"(
domain: api
descriptors:
  - key: remote_address
    rate_limit: {unit: minute, requests_per_unit: 10}
  - key: path
    value: /login
    descriptors:
      - key: user
        rate_limit: {unit: second, requests_per_unit: 2}
---
domain: nested
descriptors:
  - key: user
    rate_limit: {unit: minute, requests_per_unit: 100}
    descriptors:
      - key: path
        rate_limit: {unit: second, requests_per_unit: 2}
)";
}  // namespace

class KeyReadersTest : public QObject {
  Q_OBJECT
 private slots:
  void readers_data();
  void readers();
  void registryNamesEveryLibraryOnce();
  void noTtlWarns();
  void envoyWithItsConfig();
  void envoyConfigErrorsNameTheField();
  void assumptionsParse();
};

void KeyReadersTest::readers_data() {
  QTest::addColumn<int>("row");
  for (std::size_t i = 0; i < rows().size(); ++i) QTest::newRow(rows()[i].tag) << static_cast<int>(i);
}

void KeyReadersTest::readers() {
  QFETCH(int, row);
  const Row& t = rows()[static_cast<std::size_t>(row)];
  auto assume = parseKeyAssumptions(t.assume);
  QVERIFY(assume);
  const auto r = readKey(t.key, kNowUs, *assume);
  if (!t.library) {
    QVERIFY2(!r, r ? r->library.c_str() : "");
    return;
  }
  QVERIFY2(r, t.key.name.c_str());
  QCOMPARE(QString::fromStdString(r->library), QString(t.library));
  QCOMPARE(QString::fromStdString(r->algorithm), QString(t.algorithm));
  QCOMPARE(orNone(r->limit), t.limit);
  QCOMPARE(orNone(r->used), t.used);
  QCOMPARE(orNone(r->resetMs), t.resetMs);
  QCOMPARE(orNone(r->ttlBoundMs), t.boundMs);
  QVERIFY(!r->words.empty());
  QVERIFY2(!r->prefix.empty() || r->library == "redis-cell", r->words.c_str());
  QVERIFY2(!r->assumed.empty() || r->library == "RateLab", r->library.c_str());
  if (t.limit == kNone) QVERIFY2(!r->needs.empty() || r->library == "Envoy ratelimit", r->words.c_str());
}

void KeyReadersTest::registryNamesEveryLibraryOnce() {
  std::set<std::string_view> names;
  for (const KeyReaderRow& row : keyReaders()) QVERIFY2(names.insert(row.library).second, row.library.data());
  for (const Row& t : rows())
    if (t.library) QVERIFY2(names.count(t.library), t.library);
  QCOMPARE(keyReaders().back().library, std::string_view("counter (rate-limiter-flexible shape)"));  // the catch-all is last
  QCOMPARE(keyReaders().size(), std::size_t{13});
}

void KeyReadersTest::noTtlWarns() {
  const auto r = readKey(str("LIMITER/bob/10/1/minute", "10", -1), kNowUs, {});
  QVERIFY(r);
  QCOMPARE(r->warnings.size(), std::size_t{1});
  QVERIFY(r->warnings[0].starts_with("No TTL: this key never expires"));
  QVERIFY2(r->words.find("never resets") != std::string::npos, r->words.c_str());
  const auto leak = readKey(hash("bucket:x", {{"tokens", "1"}, {"last_refill", "1749999998"}}, -1), kNowUs, {});
  QVERIFY(leak);
  QVERIFY(leak->warnings[0].starts_with("No TTL: this key is never removed"));
}

void KeyReadersTest::envoyWithItsConfig() {
  auto config = parseEnvoyConfig(kEnvoyYaml);
  QVERIFY2(config, config ? "" : config.error().message.c_str());
  QCOMPARE(config->domains.size(), std::size_t{2});
  const ReadContext ctx{kNowUs, {}, &*config};
  const auto ip = readKey(str("api_remote_address_10.0.0.1_1749999960", "7", 300'000), ctx);
  QVERIFY(ip);
  QCOMPARE(QString::fromStdString(ip->library), QString("Envoy ratelimit"));
  QCOMPARE(orNone(ip->limit), std::int64_t{10});
  QCOMPARE(orNone(ip->used), std::int64_t{7});
  QCOMPARE(orNone(ip->resetMs), std::int64_t{20'000});  // the minute ends at 1750000020
  QCOMPARE(orNone(ip->ttlBoundMs), std::int64_t{60'000});
  QCOMPARE(QString::fromStdString(ip->prefix), QString("api_"));
  QVERIFY2(ip->words.find("remote_address=10.0.0.1") != std::string::npos, ip->words.c_str());
  const auto user = readKey(str("api_path_/login_user_bob_smith_1750000000", "1", 1000), ctx);  // '_' in the value
  QVERIFY(user);
  QCOMPARE(orNone(user->limit), std::int64_t{2});
  QVERIFY2(user->words.find("path=/login, user=bob_smith") != std::string::npos, user->words.c_str());
  const auto both = readKey(str("nested_user_a_path_b_1749999960", "3", 1000), ctx);  // user=a/path=b or user=a_path_b
  QVERIFY(both);
  QVERIFY(!both->limit);
  QVERIFY2(both->words.find("ambiguous") != std::string::npos, both->words.c_str());
  const auto none = readKey(str("other_thing_1749999960", "3", 1000), ctx);
  QVERIFY(none);
  QVERIFY2(none->words.find("no descriptor of --envoy-config matches") != std::string::npos, none->words.c_str());
}

void KeyReadersTest::envoyConfigErrorsNameTheField() {
  const auto bad = parseEnvoyConfig("domain: api\ndescriptors:\n  - key: ip\n    rate_limit: {unit: fortnight, requests_per_unit: 3}\n");
  QVERIFY(!bad);
  QCOMPARE(QString::fromStdString(bad.error().message),
           QString("document 1 (domain api), descriptor 1 (ip): rate_limit.unit 'fortnight' is not allowed: allowed second, "
                   "minute, hour, day, week, month, year"));
  QVERIFY(!parseEnvoyConfig("descriptors: []\n"));
  const auto yaml = parseEnvoyConfig("domain: [unclosed\n");
  QVERIFY(!yaml);
  QVERIFY(yaml.error().message.starts_with("not valid YAML"));
}

void KeyReadersTest::assumptionsParse() {
  auto a = parseKeyAssumptions("rate=6/m, burst=3 limit=4 window=90s");
  QVERIFY(a);
  QCOMPARE(*a->ratePerSecond, 0.1);
  QCOMPARE(*a->burst, std::int64_t{3});
  QCOMPARE(*a->windowMs, std::int64_t{90'000});
  QCOMPARE(*parseKeyAssumptions("window=250ms")->windowMs, std::int64_t{250});
  const auto bad = parseKeyAssumptions("window=soon");
  QVERIFY(!bad);
  QVERIFY(bad.error().message.starts_with("'window=soon' is not valid: allowed"));
}

QTEST_GUILESS_MAIN(KeyReadersTest)
#include "test_key_readers.moc"
