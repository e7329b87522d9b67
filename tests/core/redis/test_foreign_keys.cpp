// Foreign limiter keys: the REAL libraries (Python limits, rate-limiter-flexible,
// rate-limit-redis) write keys into a private redis-server; the inspector must
// name the library and algorithm and agree with the library's own limit, used
// and reset (within 1 s). go-redis/redis_rate cannot run here: its documented
// key format is written by this test's own GCRA script.

#include <QtTest>

#include <cmath>

#include "keys/key_reading.hpp"
#include "redis/key_inspector.hpp"
#include "redis/redis_store.hpp"
#include "support/peer_libraries.hpp"
#include "support/redis_test_server.hpp"

using namespace rl;

namespace {
// GCRA in the go-redis/redis_rate key format (rate:<key>, TAT in float seconds
// since 2017-01-01, EX ceil(TAT - now)), written for this test from the format.
// ARGV: burst, rate, period_s, cost. Returns {allowed, remaining, reset_after_s as text}.
constexpr const char* kRedisRateFormatGcra = R"(
local t = redis.call('TIME')
local now = (tonumber(t[1]) - 1483228800) + tonumber(t[2]) / 1e6
local burst, rate, period, cost = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local T = period / rate
local tat = math.max(tonumber(redis.call('GET', KEYS[1]) or now), now)
local after = tat + cost * T
local left = math.floor((now - (after - burst * T)) / T + 0.5)
if left < 0 then return {0, 0, tostring(tat - now)} end
redis.call('SET', KEYS[1], string.format('%.6f', after), 'EX', math.ceil(after - now))
return {1, left, tostring(after - now)}
)";
}  // namespace

class ForeignKeysTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase();
  void pythonLimits();
  void rateLimiterFlexibleAndRateLimitRedis();
  void redisRateGcra();
  void rateLabTokenBucketInWords();
  void rateLabStringsInWords();
  void unknownKeysStayRaw();
  void keyWithoutTtlIsAWarning();
  void sortedSetLogInItsOwnUnit();
  void seedScriptHashIsATokenBucket();
  void assumptionsAreChecked();
  void deleteStaysInsideForeignPrefix();

 private:
  // The key named `name` as scanned under `prefix`, decoded with `assume`.
  std::optional<KeyReading> read(const std::string& prefix, const std::string& name, const KeyAssumptions& assume,
                                 KeyInfo* info = nullptr);
  void compare(const QJsonObject& lib, const std::optional<KeyReading>& r, const QString& library);
  std::unique_ptr<test::RedisTestServer> redis_;
  std::optional<RedisConnection> conn_;
};

void ForeignKeysTest::initTestCase() {
  redis_ = std::make_unique<test::RedisTestServer>();
  RL_REQUIRE_REDIS(*redis_);
  auto c = redis_->connect();
  QVERIFY(c);
  conn_.emplace(std::move(c).value());
}

std::optional<KeyReading> ForeignKeysTest::read(const std::string& prefix, const std::string& name,
                                                const KeyAssumptions& assume, KeyInfo* info) {
  auto keys = scanAllLimiterKeys(*conn_, prefix);
  auto now = serverTimeUs(*conn_);
  if (!keys || !now) return std::nullopt;
  for (const KeyInfo& k : keys.value())
    if (k.name == name) {
      if (info) *info = k;
      return readKey(k, now.value(), assume);
    }
  return std::nullopt;
}

void ForeignKeysTest::compare(const QJsonObject& lib, const std::optional<KeyReading>& r, const QString& library) {
  const QString key = lib["key"].toString();
  QVERIFY2(r, qPrintable("not recognised: " + key));
  QCOMPARE(QString::fromStdString(r->library), library);
  QVERIFY2(r->used, qPrintable(key));
  QCOMPARE(*r->used, lib["used"].toInteger());
  QVERIFY2(r->resetMs, qPrintable(key));
  const auto diff = std::abs(*r->resetMs - lib["reset_ms"].toInteger());
  QVERIFY2(diff <= 1000, qPrintable(QString("%1: reset %2 ms, the library says %3 ms")
                                        .arg(key).arg(*r->resetMs).arg(lib["reset_ms"].toInteger())));
  QVERIFY2(!r->words.empty(), qPrintable(key));
}

void ForeignKeysTest::pythonLimits() {
  const auto out = test::runPeer("/usr/bin/python3", {RATELAB_SOURCE_DIR "/tests/peers/python/limits_keys.py",
                                                      QString::number(redis_->endpoint().port)});
  QVERIFY2(out.error.isEmpty(), qPrintable(out.error + " (Debian python3-limits and python3-redis are needed)"));
  QCOMPARE(out.lines.size(), 4);
  for (const QJsonObject& lib : out.lines) {
    const auto r = read("LIMITER/", lib["key"].toString().toStdString(), {});
    compare(lib, r, "limits (Python)");
    const QString strategy = lib["strategy"].toString();
    QCOMPARE(QString::fromStdString(r->algorithm), strategy.startsWith("fixed") ? QString("fixed-window") : strategy);
    QVERIFY(r->limit);
    QCOMPARE(*r->limit, lib["limit"].toInteger());
  }
}

void ForeignKeysTest::rateLimiterFlexibleAndRateLimitRedis() {
  QString error;
  const QString dir = test::nodePeersDir(error);
  QVERIFY2(!dir.isEmpty(), qPrintable(error));
  const auto out = test::runPeer("node", {dir + "/rlf_keys.js", QString::number(redis_->endpoint().port)}, dir);
  QVERIFY2(out.error.isEmpty(), qPrintable(out.error));
  QCOMPARE(out.lines.size(), 5);
  for (const QJsonObject& lib : out.lines) {
    const std::string key = lib["key"].toString().toStdString();
    const std::int64_t limit = lib["limit"].toInteger();
    KeyAssumptions assume;
    if (limit > 0) assume.limit = limit;
    const auto r = read(key.substr(0, key.find(':') + 1), key, assume);
    compare(lib, r, lib["library"].toString());
    QCOMPARE(QString::fromStdString(r->algorithm), QString("fixed-window"));
    QCOMPARE(r->limit.has_value(), limit > 0);  // the key does not hold it: only what was assumed
    if (limit > 0) QCOMPARE(*r->limit, limit);
  }
  // Without an assumption the limit is unknown, never guessed.
  const auto bare = read("rlflx:", "rlflx:user42", {});
  QVERIFY(bare && !bare->limit);
  const auto blocked = read("rlflx-block:", "rlflx-block:mallory", KeyAssumptions{{}, {}, 2, {}});
  QVERIFY(blocked && blocked->words.find("blocked") != std::string::npos);
}

void ForeignKeysTest::redisRateGcra() {
  // rate 10/s, burst 20: seven requests at once leave 13, reset 0.7 s.
  std::optional<std::int64_t> remaining;
  std::string resetAfter;
  for (int i = 0; i < 7; ++i) {
    auto r = conn_->command({"EVAL", kRedisRateFormatGcra, "1", "rate:api:user9", "20", "10", "1", "1"});
    QVERIFY2(r && r->isArray(), r ? r->describe().c_str() : r.error().message.c_str());
    QCOMPARE((*r)[0].integer(), 1);
    remaining = (*r)[1].integer();
    resetAfter = std::string((*r)[2].str());
  }
  QCOMPARE(*remaining, 13);
  auto assume = parseKeyAssumptions("rate=10/s burst=20");
  QVERIFY(assume);
  const auto r = read("rate:", "rate:api:user9", assume.value());
  QVERIFY(r);
  QCOMPARE(QString::fromStdString(r->library), QString("go-redis/redis_rate"));
  QCOMPARE(QString::fromStdString(r->algorithm), QString("gcra"));
  QCOMPARE(*r->limit, 20);
  QCOMPARE(*r->used, 7);
  QVERIFY(std::abs(*r->resetMs - std::llround(std::stod(resetAfter) * 1000)) <= 1000);
  QVERIFY(*r->resetMs <= 700 && *r->resetMs >= 500);
  // Rate and burst unknown: no limit or use is invented.
  const auto bare = read("rate:", "rate:api:user9", {});
  QVERIFY(bare && !bare->limit && !bare->used && bare->resetMs);
}

void ForeignKeysTest::rateLabTokenBucketInWords() {
  auto store = RedisLuaStore::make(redis_->storeOptions("rlwords:"));
  QVERIFY(store);
  const Quota q = Quota::perSecond(1).withBurst(10);
  for (int i = 0; i < 3; ++i) QVERIFY((*store)->decide({Algorithm::TokenBucket, "c", q, 1, Micros{0}}));
  auto assume = parseKeyAssumptions("limit=10 rate=1/s");
  QVERIFY(assume);
  const auto r = read("rlwords:", "rlwords:{token_bucket:c}", assume.value());
  QVERIFY(r);
  QCOMPARE(QString::fromStdString(r->library), QString("RateLab"));
  QCOMPARE(QString::fromStdString(r->algorithm), QString("token_bucket"));
  QCOMPARE(*r->used, 3);
  QVERIFY2(r->words.starts_with("7 tokens of 10, full in "), r->words.c_str());
  QVERIFY(*r->resetMs > 2000 && *r->resetMs <= 3000);
  // The key holds the quota it was written under: no assumption needed.
  const auto own = read("rlwords:", "rlwords:{token_bucket:c}", KeyAssumptions{});
  QVERIFY(own);
  QCOMPARE(*own->used, 3);
  QCOMPARE(*own->limit, 10);
  QVERIFY2(own->words.starts_with("7 tokens of 10, full in "), own->words.c_str());
}

void ForeignKeysTest::rateLabStringsInWords() {
  // sliding_log, leaky_bucket and gcra keys are strings too; each reads back in words.
  auto store = RedisLuaStore::make(redis_->storeOptions("rlstr:"));
  QVERIFY(store);
  const Quota q = Quota::perSecond(10);
  for (const Algorithm a : {Algorithm::SlidingLog, Algorithm::LeakyBucket, Algorithm::Gcra})
    for (int i = 0; i < 4; ++i) QVERIFY((*store)->decide({a, "c", q, 1, Micros{0}}));
  auto assume = parseKeyAssumptions("limit=10 rate=10/s");
  QVERIFY(assume);
  const auto log = read("rlstr:", "rlstr:{sliding_log:c}", assume.value());
  QVERIFY(log);
  QCOMPARE(*log->used, 4);
  QVERIFY2(log->words.starts_with("4 of 10 requests logged; the log empties in "), log->words.c_str());
  QVERIFY(*log->resetMs > 900 && *log->resetMs <= 1000);
  for (const char* key : {"rlstr:{leaky_bucket:c}", "rlstr:{gcra:c}"}) {
    const auto r = read("rlstr:", key, assume.value());
    QVERIFY2(r, key);
    QCOMPARE(*r->used, 4);  // 4 intervals of 100 ms queued / ahead
    QVERIFY(*r->resetMs > 300 && *r->resetMs <= 400);
  }
}

void ForeignKeysTest::unknownKeysStayRaw() {
  QVERIFY(conn_->command({"SET", "misc:greeting", "hello", "PX", "60000"}));
  QVERIFY(conn_->command({"HSET", "misc:profile", "name", "x"}));
  KeyInfo info;
  QVERIFY(!read("misc:", "misc:greeting", {}, &info));
  QCOMPARE(QString::fromStdString(info.value), QString("hello"));
  QVERIFY(info.pttlMs > 0);
  QVERIFY(!read("misc:", "misc:profile", {}, &info));
  QCOMPARE(info.fields.size(), std::size_t{1});
}

void ForeignKeysTest::keyWithoutTtlIsAWarning() {
  // No TTL on a counter: it never resets, and its client is locked out once it reaches the limit.
  QVERIFY(conn_->command({"SET", "LIMITER/bob/10/1/minute", "3"}));
  const auto limits = read("LIMITER/bob", "LIMITER/bob/10/1/minute", {});
  QVERIFY(limits);
  QCOMPARE(*limits->used, 3);
  QCOMPARE(*limits->limit, 10);
  QVERIFY(!limits->resetMs);  // never, not "0 ms"
  QCOMPARE(QString::fromStdString(limits->words),
           QString("limits fixed window (or fixed window with elastic expiry: same key), 10 per minute: 3 used, 7 left; "
                   "the window never resets: the key has no TTL."));
  QCOMPARE(limits->warnings.size(), std::size_t{1});
  QVERIFY2(limits->warnings[0].starts_with("No TTL: this key never expires, so its count never resets and its client "
                                           "stays locked out once it reaches the limit."),
           limits->warnings[0].c_str());
  QVERIFY(conn_->command({"SET", "rlflx:carol", "12"}));  // any counter layout
  const auto counter = read("rlflx:carol", "rlflx:carol", KeyAssumptions{{}, {}, 10, {}});
  QVERIFY(counter);
  QCOMPARE(QString::fromStdString(counter->words),
           QString("rate-limiter-flexible counter: 12 of 10 used, never resets: the key has no TTL (over the limit: "
                   "blocked for good)."));
  QVERIFY(!counter->resetMs);
  QCOMPARE(counter->warnings.size(), std::size_t{1});
  // With a TTL: no warning, and the reset is the TTL.
  QVERIFY(conn_->command({"SET", "rlflx:dave", "2", "PX", "30000"}));
  const auto timed = read("rlflx:dave", "rlflx:dave", {});
  QVERIFY(timed && timed->warnings.empty() && timed->resetMs && *timed->resetMs > 29'000);
  QCOMPARE(timed->needs, std::string("limit=N"));
  QVERIFY(timed->words.find("--assume") == std::string::npos);
}

void ForeignKeysTest::sortedSetLogInItsOwnUnit() {
  // The usual hand-written sliding log: ZADD key <now> <member>. Scores in ms and in s are
  // both read as times near the server's clock; plain numbers are not a log.
  auto now = serverTimeUs(*conn_);
  QVERIFY(now);
  const std::int64_t ms = *now / 1000;
  QVERIFY(conn_->command({"ZADD", "zlog:ms", std::to_string(ms - 1500), "a", std::to_string(ms - 250), "b",
                          std::to_string(ms), "c"}));
  QVERIFY(conn_->command({"PEXPIRE", "zlog:ms", "60000"}));
  QVERIFY(conn_->command({"ZADD", "zlog:s", std::to_string(ms / 1000 - 30), "x"}));
  QVERIFY(conn_->command({"ZADD", "zlog:plain", "1", "p", "2", "q"}));
  const auto inMs = read("zlog:", "zlog:ms", KeyAssumptions{{}, {}, 5, {}});
  QVERIFY(inMs);
  QCOMPARE(QString::fromStdString(inMs->library), QString("sorted-set log (hand-written Lua)"));
  QCOMPARE(QString::fromStdString(inMs->algorithm), QString("sliding-log"));
  QCOMPARE(*inMs->used, 3);
  QCOMPARE(*inMs->limit, 5);
  QVERIFY2(inMs->words.starts_with("a sliding log in a sorted set, scores in ms: 3 of 5 requests logged, the oldest 1.5 s "
                                   "ago, the newest "),
           inMs->words.c_str());
  QVERIFY2(inMs->words.ends_with("; the key expires in 1 min."), inMs->words.c_str());
  QVERIFY(inMs->warnings.empty());
  const auto inS = read("zlog:", "zlog:s", {});
  QVERIFY(inS);
  QVERIFY2(inS->words.starts_with("a sliding log in a sorted set, scores in s: 1 requests logged, the oldest 3"),
           inS->words.c_str());
  QCOMPARE(inS->needs, std::string("limit=N"));
  QCOMPARE(inS->warnings.size(), std::size_t{1});  // no TTL: a leak, not a lockout
  QVERIFY(inS->warnings[0].starts_with("No TTL: this key is never removed"));
  QVERIFY(!read("zlog:", "zlog:plain", {}));
  QCOMPARE(timestampUnitUs(static_cast<double>(ms), *now), std::int64_t{1000});
  QCOMPARE(timestampUnitUs(static_cast<double>(ms / 1000), *now), std::int64_t{1'000'000});
  QCOMPARE(timestampUnitUs(static_cast<double>(*now), *now), std::int64_t{1});
  QCOMPARE(timestampUnitUs(42.0, *now), std::int64_t{0});
}

void ForeignKeysTest::seedScriptHashIsATokenBucket() {
  // The seed article's own script (resources/examples) writes the hash: capacity 10, 1 token/s,
  // three requests at one instant leave 7 tokens at last_refill.
  QFile file(RATELAB_SOURCE_DIR "/resources/examples/seed_token_bucket.lua");
  QVERIFY(file.open(QIODevice::ReadOnly));
  const std::string script = file.readAll().toStdString();
  auto now = serverTimeUs(*conn_);
  QVERIFY(now);
  const std::string nowS = std::to_string(*now / 1'000'000) + "." + std::to_string(*now % 1'000'000 / 1000 + 1000).substr(1);
  for (int i = 0; i < 3; ++i) QVERIFY(conn_->command({"EVAL", script, "1", "seed:{alice}", "10", "1", nowS, "1"}));
  const auto bare = read("seed:", "seed:{alice}", {});
  QVERIFY(bare);
  QCOMPARE(QString::fromStdString(bare->library), QString("hash token bucket (seed script)"));
  QCOMPARE(QString::fromStdString(bare->algorithm), QString("token_bucket"));
  QVERIFY2(bare->words.starts_with("a token bucket in a hash (tokens, last_refill in s): 7 tokens left at the last request, "),
           bare->words.c_str());
  QVERIFY2(bare->words.ends_with("; the key expires in 20.0 s.") || bare->words.ends_with("; the key expires in 19.9 s."),
           bare->words.c_str());
  QCOMPARE(bare->needs, std::string("limit=N rate=R/s"));
  QVERIFY(!bare->used && !bare->resetMs);
  const auto known = read("seed:", "seed:{alice}", KeyAssumptions{1.0, {}, 10, {}});
  QVERIFY(known);
  QCOMPARE(*known->used, 3);
  QCOMPARE(*known->limit, 10);
  QVERIFY2(*known->resetMs > 2'500 && *known->resetMs <= 3'000, qPrintable(QString::number(*known->resetMs)));
  QVERIFY2(known->words.find("; 7 of 10 now, full in ") != std::string::npos, known->words.c_str());
  QVERIFY(known->needs.empty());
}

void ForeignKeysTest::assumptionsAreChecked() {
  QVERIFY(parseKeyAssumptions("rate=30/m burst=5") && *parseKeyAssumptions("rate=30/m").value().ratePerSecond == 0.5);
  for (const char* bad : {"rate=0/s", "rate=10/d", "burst=-1", "limit=x", "speed=3", "rate"}) {
    auto a = parseKeyAssumptions(bad);
    QVERIFY2(!a, bad);
    QVERIFY(a.error().message.find("allowed rate=") != std::string::npos);
  }
}

void ForeignKeysTest::deleteStaysInsideForeignPrefix() {
  QVERIFY(conn_->command({"SET", "rlflx:keep", "1", "EX", "60"}));
  auto refused = deleteKeys(*conn_, "LIMITER/", {"LIMITER/x/1/1/second", "rlflx:keep"});
  QVERIFY(!refused);
  QCOMPARE(refused.error().code, ErrorCode::InvalidArgument);
  auto exists = conn_->command({"EXISTS", "rlflx:keep"});
  QVERIFY(exists);
  QCOMPARE(exists->integer(), 1);
  QVERIFY(!deleteKeys(*conn_, "", {"rlflx:keep"}));
}

QTEST_GUILESS_MAIN(ForeignKeysTest)
#include "test_foreign_keys.moc"
