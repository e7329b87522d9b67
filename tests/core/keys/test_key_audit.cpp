// The key audit on keys built as values: counts per prefix and library, keys
// without a TTL and with a TTL far beyond their window named, the biggest and
// hottest keys, the volatile-* eviction warning, unknown keys, --require and
// the JSON. No server (core/keys).

#include <QtTest>

#include "keys/key_audit.hpp"

using namespace rl;

namespace {
constexpr std::int64_t kNowUs = 1'750'000'000'000'000;

KeyInfo str(std::string name, std::string value, std::int64_t pttl, std::optional<std::int64_t> bytes = {}) {
  KeyInfo k;
  k.name = std::move(name);
  k.type = "string";
  k.value = std::move(value);
  k.pttlMs = pttl;
  k.memoryBytes = bytes;
  return k;
}

KeyAuditReport audit(const std::vector<KeyInfo>& keys, ServerMemory server, KeyAssumptions assume = {}) {
  KeyAudit a(KeyAuditLimits{2, 2});
  for (const KeyInfo& k : keys) a.add(k, readKey(k, kNowUs, assume));
  a.addServer(std::move(server));
  return a.report();
}

const KeyAuditGroup* group(const KeyAuditReport& r, std::string_view library) {
  for (const KeyAuditGroup& g : r.groups)
    if (g.library == library) return &g;
  return nullptr;
}

std::vector<KeyInfo> mixedKeys() {
  return {str("rl:10.0.0.1", "3", 40'000, 56), str("rl:10.0.0.2", "9", 41'000, 64),
          str("fastify-rate-limit-127.0.0.1", "12", 50'000, 72),
          str("LIMITER/ok/10/1/minute", "2", 45'000), str("LIMITER/forever/10/1/minute", "10", -1),
          str("LIMITER/daylong/10/1/minute", "1", 86'400'000), str("cache:page1", "<html>", -1, 900)};
}
}  // namespace

class KeyAuditTest : public QObject {
  Q_OBJECT
 private slots:
  void countsPerLibraryAndNamesTheBadKeys();
  void biggestAndHottestAreRanked();
  void volatilePolicyWarns();
  void requireNamesTheFailedChecks();
  void jsonCarriesTheVerdict();
  void namesAreCapped();
};

void KeyAuditTest::countsPerLibraryAndNamesTheBadKeys() {
  const auto r = audit(mixedKeys(), {"127.0.0.1:7000", 0, "noeviction", 7, 5, "7.0.15"});
  QCOMPARE(r.scanned, std::int64_t{7});
  QCOMPARE(r.limiterKeys, std::int64_t{6});
  const auto* limits = group(r, "limits (Python)");
  QVERIFY(limits);
  QCOMPARE(limits->prefix, std::string("LIMITER/"));
  QCOMPARE(limits->count, std::int64_t{3});
  QCOMPARE(limits->noTtl, std::int64_t{1});
  QCOMPARE(limits->noTtlNames, std::vector<std::string>{"LIMITER/forever/10/1/minute"});
  QCOMPARE(limits->longTtl, std::int64_t{1});
  QCOMPARE(limits->longTtlKeys[0].name, std::string("LIMITER/daylong/10/1/minute"));
  QCOMPARE(limits->longTtlKeys[0].boundMs, std::int64_t{60'000});
  QCOMPARE(limits->ttlHistogram[static_cast<std::size_t>(TtlBin::Beyond)], std::int64_t{1});
  QCOMPARE(limits->ttlHistogram[static_cast<std::size_t>(TtlBin::Bound)], std::int64_t{1});
  QCOMPARE(limits->ttlHistogram[static_cast<std::size_t>(TtlBin::NoTtl)], std::int64_t{1});
  QCOMPARE(group(r, "rate-limit-redis")->count, std::int64_t{2});
  QCOMPARE(group(r, "@fastify/rate-limit")->prefix, std::string("fastify-rate-limit-"));
  const KeyAuditGroup& unknown = r.groups.back();  // unknown keys come last
  QVERIFY(unknown.library.empty());
  QCOMPARE(unknown.prefix, std::string("cache:"));
  QCOMPARE(unknown.unknownNames, std::vector<std::string>{"cache:page1"});
  QVERIFY(r.warnings.empty());  // noeviction: a note, not a warning
  QCOMPARE(r.notes.size(), std::size_t{1});
  QVERIFY2(r.notes[0].find("maxmemory is 0") != std::string::npos, r.notes[0].c_str());
}

void KeyAuditTest::biggestAndHottestAreRanked() {
  KeyAssumptions limit10;
  limit10.limit = 10;
  const auto r = audit(mixedKeys(), {"", 0, "noeviction", 7, 5, "7.0.15"}, limit10);
  const auto* express = group(r, "rate-limit-redis");
  QCOMPARE(express->memorySampled, std::int64_t{2});
  QCOMPARE(express->memoryBytes, std::int64_t{120});
  QCOMPARE(express->biggest[0].name, std::string("rl:10.0.0.2"));
  QCOMPARE(express->hottest.size(), std::size_t{2});
  QCOMPARE(express->hottest[0].name, std::string("rl:10.0.0.2"));
  QCOMPARE(express->hottest[0].score, 0.9);
  QCOMPARE(group(r, "@fastify/rate-limit")->hottest[0].used, std::int64_t{12});
}

void KeyAuditTest::volatilePolicyWarns() {
  const auto r = audit(mixedKeys(), {"127.0.0.1:7000", 100'000'000, "volatile-lru", 50, 10, "7.0.15"});
  QCOMPARE(r.warnings.size(), std::size_t{1});
  QVERIFY2(r.warnings[0].starts_with("maxmemory-policy volatile-lru on 127.0.0.1:7000 evicts only keys with a TTL: the 5 "
                                     "limiter key(s) with one are the candidates while the 40 key(s) without a TTL"),
           r.warnings[0].c_str());
  const auto allkeys = audit(mixedKeys(), {"", 100'000'000, "allkeys-lru", 50, 10, "7.0.15"});
  QVERIFY(allkeys.warnings.empty());
  QVERIFY(allkeys.notes[0].find("evicted like any other key") != std::string::npos);
}

void KeyAuditTest::requireNamesTheFailedChecks() {
  const auto r = audit(mixedKeys(), {"", 100'000'000, "volatile-ttl", 50, 10, "7.0.15"});
  QCOMPARE(failedAuditChecks(r, {}), std::vector<std::string>{"ttl: 1 limiter key(s) have no TTL"});
  const auto all = failedAuditChecks(r, {"ttl-bound", "known", "eviction"});
  QCOMPARE(all.size(), std::size_t{4});
  QCOMPARE(all[1], std::string("ttl-bound: 1 limiter key(s) have a TTL far beyond their window or refill"));
  QCOMPARE(all[2], std::string("known: 1 key(s) no reader knows"));
  QVERIFY(all[3].starts_with("eviction: maxmemory-policy volatile-ttl"));
  const auto clean = audit({str("rl:a", "1", 1000)}, {"", 0, "noeviction", 1, 1, "7.0.15"});
  QVERIFY(failedAuditChecks(clean, {"ttl-bound", "known", "eviction"}).empty());
  QCOMPARE(parseAuditChecks("ttl-bound,known")->size(), std::size_t{2});
  const auto bad = parseAuditChecks("ttl,fast");
  QVERIFY(!bad);
  QCOMPARE(QString::fromStdString(bad.error().message),
           QString("'fast' is not a check: allowed ttl, ttl-bound, known, eviction (comma-separated)"));
}

void KeyAuditTest::jsonCarriesTheVerdict() {
  const auto r = audit(mixedKeys(), {"n1", 0, "noeviction", 7, 5, "7.0.15"});
  const Json j = keyAuditJson(r, failedAuditChecks(r, {}));
  QCOMPARE(j["verdict"].get<std::string>(), std::string("fail"));
  QCOMPARE(j["scanned"].get<std::int64_t>(), std::int64_t{7});
  const Json& limits = j["groups"][0];
  QCOMPARE(limits["library"].get<std::string>(), std::string("limits (Python)"));
  QCOMPARE(limits["no_ttl_keys"][0].get<std::string>(), std::string("LIMITER/forever/10/1/minute"));
  QCOMPARE(limits["long_ttl_keys"][0]["expected_max_ms"].get<std::int64_t>(), std::int64_t{60'000});
  QVERIFY(j["groups"].back()["library"].is_null());
  QCOMPARE(j["servers"][0]["maxmemory_policy"].get<std::string>(), std::string("noeviction"));
}

void KeyAuditTest::namesAreCapped() {
  std::vector<KeyInfo> keys;
  for (int i = 0; i < 50; ++i) keys.push_back(str("rl:c" + std::to_string(i), "1", -1));
  const auto r = audit(keys, {});
  QCOMPARE(r.groups[0].noTtl, std::int64_t{50});
  QCOMPARE(r.groups[0].noTtlNames.size(), std::size_t{2});
}

QTEST_GUILESS_MAIN(KeyAuditTest)
#include "test_key_audit.moc"
