// redis-script: a user's own Lua limiter as a store. The templates, the seed
// article's token bucket beside RateLab's token_bucket (where float refill
// decides differently, with the exact numbers), and wrong scripts: each gets
// one clear error naming the script and what it replied, never a crash and
// never a silent denial.

#include <QtTest>

#include <QTemporaryDir>

#include "redis/acl_user.hpp"
#include "redis/script_store.hpp"
#include "support/redis_test_server.hpp"

using namespace rl;

namespace {
constexpr std::int64_t kT0 = 1'700'000'040'000'000;  // the virtual clock's epoch
const std::string kSeed = RATELAB_SOURCE_DIR "/resources/examples/seed_token_bucket.lua";
}  // namespace

class ScriptStoreTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase();
  void templatesExpand();
  void templatesRefuseUnknownPlaceholders();
  void seedScriptBesideTokenBucket();
  void wrongScriptsAreNamedErrors_data();
  void wrongScriptsAreNamedErrors();
  void badFilesAndRepliesAreBadInput();
  void lostScriptIsReloaded();
  void keysOutsideThePrefixAreRefused_data();
  void keysOutsideThePrefixAreRefused();
  void serverWideCommandsAreNamed_data();
  void serverWideCommandsAreNamed();
  void shippedScriptsHaveNoWarnings();
  void aclUserConfinesScripts();

 private:
  ScriptStoreOptions options(const std::string& file, const std::string& prefix) const;
  std::string write(const char* name, const char* text);
  std::unique_ptr<test::RedisTestServer> redis_;
  QTemporaryDir dir_;
};

void ScriptStoreTest::initTestCase() {
  redis_ = std::make_unique<test::RedisTestServer>();
  RL_REQUIRE_REDIS(*redis_);
}

ScriptStoreOptions ScriptStoreTest::options(const std::string& file, const std::string& prefix) const {
  ScriptStoreOptions o;
  o.redis = redis_->storeOptions(prefix, false);
  o.file = file;
  return o;
}

std::string ScriptStoreTest::write(const char* name, const char* text) {
  const QString path = dir_.filePath(name);
  QFile f(path);
  f.open(QIODevice::WriteOnly);
  f.write(text);
  return path.toStdString();
}

void ScriptStoreTest::templatesExpand() {
  auto t = ScriptTemplate::parse("{prefix}{client}:x {limit} {window_ms} {window_s} {refill_rate} {now_us} {now_ms} {now_s} {cost} lit", "--script-argv");
  QVERIFY(t);
  const DecisionRequest r{Algorithm::TokenBucket, "c7", Quota::perWindow(10, Micros{1'500'000}).withRefill(2.5), 3,
                          Micros{kT0 + 1'100'042}};
  const auto words = t->expand(r, "p:");
  const std::vector<std::string> expected{"p:c7:x", "10", "1500", "1.5", "2.5", "1700000041100042",
                                          "1700000041100", "1700000041.100042", "3", "lit"};
  QCOMPARE(words, expected);
}

void ScriptStoreTest::templatesRefuseUnknownPlaceholders() {
  auto bad = ScriptTemplate::parse("{limit} {now}", "--script-argv");
  QVERIFY(!bad);
  QCOMPARE(QString::fromStdString(bad.error().message),
           QString("--script-argv: unknown placeholder {now}: allowed {client} {prefix} {limit} {window_ms} {window_s} "
                   "{refill_rate} {now_us} {now_ms} {now_s} {cost}"));
  QVERIFY(!ScriptTemplate::parse("{prefix", "--script-keys"));
}

void ScriptStoreTest::seedScriptBesideTokenBucket() {
  // Capacity 10, refill 10/s, a request every 50 ms from t0: both drain the
  // bucket in 500 ms. At 1100 ms (a refill instant) RateLab has exactly one
  // token again and admits; the seed script computed elapsed = 0.0499999523 s
  // twice (now_s is a double near 1.7e9 s: 0.24 us apart) and holds
  // 0.99999905 tokens: it denies, then admits the request at 1150 ms instead.
  auto o = options(kSeed, "seed:");
  o.argv = "{limit} {refill_rate} {now_s} {cost}";
  o.reply = "allowed,tokens";
  auto seed = RedisScriptStore::make(o);
  QVERIFY2(seed, seed ? "" : seed.error().message.c_str());
  auto lua = RedisLuaStore::make(redis_->storeOptions("lua:", false));
  QVERIFY(lua);
  const Quota q = Quota::perWindow(10, kSecond).withRefill(10);
  std::vector<std::int64_t> differ;
  int admittedSeed = 0, admittedLua = 0;
  for (std::int64_t i = 0; i < 40; ++i) {
    const DecisionRequest r{Algorithm::TokenBucket, "c", q, 1, Micros{kT0 + i * 50'000}};
    const auto a = (*seed)->decide(r);
    const auto b = (*lua)->decide(r);
    QVERIFY2(a && b, a ? "" : a.error().message.c_str());
    admittedSeed += a->allowed;
    admittedLua += b->allowed;
    if (a->allowed != b->allowed) differ.push_back(i * 50);
  }
  QCOMPARE(admittedSeed, 29);  // 10 at once, then one per 100 ms: the same count ...
  QCOMPARE(admittedLua, 29);   // ... but not the same requests
  QCOMPARE(differ, (std::vector<std::int64_t>{1100, 1150, 1300, 1350, 1600, 1650, 1800, 1850}));
}

void ScriptStoreTest::wrongScriptsAreNamedErrors_data() {
  QTest::addColumn<QByteArray>("source");
  QTest::addColumn<QString>("reply");
  QTest::addColumn<QString>("message");
  QTest::newRow("string") << QByteArray("return 'OK'") << "allowed"
      << "script wrong.lua did not return an integer or an array; it replied \"OK\" (expected an integer, or an array "
         "whose first element is an integer: non-zero = allowed)";
  QTest::newRow("string first") << QByteArray("return {'yes', 3}") << "allowed,remaining"
      << "script wrong.lua returned a non-integer first element; it replied [\"yes\", 3]";
  QTest::newRow("arity") << QByteArray("return {1}") << "allowed,remaining"
      << "script wrong.lua returned 1 element(s) but --script-reply names 2; it replied [1]";
  QTest::newRow("not a number") << QByteArray("return {1, 'many'}") << "allowed,remaining"
      << "script wrong.lua element 2 is not a number; it replied [1, \"many\"]";
  QTest::newRow("error") << QByteArray("return redis.call('INCR', KEYS[1], 'extra')") << "allowed"
      << "script wrong.lua failed: ERR Wrong number of args calling Redis command from script";
}

void ScriptStoreTest::wrongScriptsAreNamedErrors() {
  QFETCH(QByteArray, source);
  QFETCH(QString, reply);
  QFETCH(QString, message);
  auto o = options(write("wrong.lua", source.constData()), "wrong:");
  o.reply = reply.toStdString();
  auto s = RedisScriptStore::make(o);
  QVERIFY2(s, s ? "" : s.error().message.c_str());
  const auto d = (*s)->decide({Algorithm::TokenBucket, "c", Quota::perSecond(5), 1, Micros{kT0}});
  QVERIFY(!d);
  QCOMPARE(d.error().code, ErrorCode::Protocol);  // an error, never the failure policy's admit or a silent deny
  QVERIFY2(QString::fromStdString(d.error().message).startsWith(message), d.error().message.c_str());
}

void ScriptStoreTest::badFilesAndRepliesAreBadInput() {
  auto missing = RedisScriptStore::make(options("/nonexistent/x.lua", "bad:"));
  QVERIFY(!missing);
  QCOMPARE(QString::fromStdString(missing.error().message),
           QString("--script '/nonexistent/x.lua': cannot read it (No such file or directory): allowed a readable file"));
  auto zero = RedisScriptStore::make(options("/dev/zero", "bad:"));  // the whole-file cap (issue 25 item 11)
  QVERIFY(!zero);
  QVERIFY2(zero.error().message.rfind("--script '/dev/zero' is larger than the 4 MB cap", 0) == 0, zero.error().message.c_str());
  auto syntax = RedisScriptStore::make(options(write("syntax.lua", "return {1,"), "bad:"));
  QVERIFY(!syntax);
  QCOMPARE(syntax.error().code, ErrorCode::InvalidArgument);
  QVERIFY2(syntax.error().message.find("syntax.lua' does not load: ERR Error compiling script") != std::string::npos,
           syntax.error().message.c_str());
  auto o = options(kSeed, "bad:");
  o.reply = "remaining,allowed";
  auto order = RedisScriptStore::make(o);
  QVERIFY(!order);
  QCOMPARE(QString::fromStdString(order.error().message),
           QString("--script-reply 'remaining,allowed' must start with allowed (the reply's first element decides)"));
  o.reply = "allowed,left";
  QVERIFY(!RedisScriptStore::make(o));
}

void ScriptStoreTest::lostScriptIsReloaded() {
  auto s = RedisScriptStore::make(options(write("count.lua", "return redis.call('INCR', KEYS[1]) <= 3 and 1 or 0"), "flush:"));
  QVERIFY(s);
  const DecisionRequest r{Algorithm::FixedWindow, "c", Quota::perSecond(3), 1, Micros{kT0}};
  const auto allowed = [&] {
    const auto d = (*s)->decide(r);
    if (!d) qWarning("%s", d.error().message.c_str());
    return d && d->allowed;
  };
  QVERIFY(allowed());
  auto conn = redis_->connect();
  QVERIFY(conn && conn->command({"SCRIPT", "FLUSH"}));
  QVERIFY(allowed());  // NOSCRIPT: EVAL, then loaded again
  QVERIFY(allowed());
  QVERIFY(!allowed());  // the script's own limit: 3
}

void ScriptStoreTest::keysOutsideThePrefixAreRefused_data() {
  QTest::addColumn<QString>("keys");
  QTest::addColumn<bool>("outsideAllowed");
  QTest::addColumn<QString>("refusedWord");  // empty: accepted
  QTest::newRow("default") << "{prefix}{client}" << false << "";
  QTest::newRow("two keys in the prefix") << "{prefix}{client} {prefix}{client}:log" << false << "";
  QTest::newRow("client only") << "{client}" << false << "{client}";
  QTest::newRow("literal key") << "victim" << false << "victim";
  QTest::newRow("prefix not first") << "x{prefix}{client}" << false << "x{prefix}{client}";
  QTest::newRow("second key outside") << "{prefix}{client}  other:{client}" << false << "other:{client}";
  QTest::newRow("asked for") << "{client} victim" << true << "";
}

void ScriptStoreTest::keysOutsideThePrefixAreRefused() {
  QFETCH(QString, keys);
  QFETCH(bool, outsideAllowed);
  QFETCH(QString, refusedWord);
  auto o = options(kSeed, "pfx:");
  o.keys = keys.toStdString();
  o.keysOutsidePrefix = outsideAllowed;
  auto s = RedisScriptStore::make(o);
  if (refusedWord.isEmpty()) {
    QVERIFY2(s, s ? "" : s.error().message.c_str());
    return;
  }
  QVERIFY(!s);
  QCOMPARE(s.error().code, ErrorCode::InvalidArgument);
  const QString m = QString::fromStdString(s.error().message);
  QVERIFY2(m.startsWith("--script-keys '" + keys + "': key ") && m.contains("'" + refusedWord + "' does not start with {prefix}") &&
               m.contains("--script-keys-outside-prefix"),
           qPrintable(m));
}

void ScriptStoreTest::serverWideCommandsAreNamed_data() {
  QTest::addColumn<QString>("source");
  QTest::addColumn<QStringList>("named");  // "WORD line N", in FLUSHALL, FLUSHDB, CONFIG order
  QTest::newRow("call") << "redis.call('FLUSHALL')\nreturn 1" << QStringList{"FLUSHALL line 1"};
  QTest::newRow("pcall, lower case") << "local x = 1\nredis.pcall(\"flushdb\")" << QStringList{"FLUSHDB line 2"};
  QTest::newRow("config, mixed case") << "return redis.call('Config', 'SET', 'maxmemory', '1')" << QStringList{"CONFIG line 1"};
  QTest::newRow("a plain word") << "local c = 'x'\n\nlocal cmd = FLUSHALL" << QStringList{"FLUSHALL line 3"};
  QTest::newRow("all three, once each") << "redis.call('CONFIG','GET','x')\nredis.call('FLUSHDB')\nredis.call('FLUSHALL')\nredis.call('FLUSHALL')"
                                        << QStringList{"FLUSHALL line 3", "FLUSHDB line 2", "CONFIG line 1"};
  QTest::newRow("comment") << "-- never FLUSHALL or CONFIG here\nreturn 1" << QStringList{};
  QTest::newRow("block comment") << "--[[ FLUSHDB\nCONFIG ]] return 1" << QStringList{};
  QTest::newRow("longer words") << "local configured = ARGV[1]\nlocal reconfig = 2 local flushall_count = 0" << QStringList{};
  QTest::newRow("'--' in a string") << "local s = '--'\nredis.call('flushall')" << QStringList{"FLUSHALL line 2"};
}

void ScriptStoreTest::serverWideCommandsAreNamed() {
  QFETCH(QString, source);
  QFETCH(QStringList, named);
  const auto warnings = scriptWarnings(source.toStdString(), "mine.lua");
  QCOMPARE(static_cast<qsizetype>(warnings.size()), named.size());
  for (qsizetype i = 0; i < named.size(); ++i) {
    const QString w = QString::fromStdString(warnings[static_cast<std::size_t>(i)]);
    const QStringList parts = named[i].split(' ');
    QVERIFY2(w.startsWith("warning: script mine.lua line " + parts[2] + " names " + parts[0] + ", which ") &&
                 !w.contains('\n'),
             qPrintable(w));
  }
}

void ScriptStoreTest::shippedScriptsHaveNoWarnings() {
  for (const QString& dir : {QStringLiteral(RATELAB_SOURCE_DIR "/resources/examples"), QStringLiteral(RATELAB_SOURCE_DIR "/resources/lua")}) {
    const auto files = QDir(dir).entryInfoList({"*.lua"}, QDir::Files);
    QVERIFY(!files.isEmpty());
    for (const QFileInfo& f : files) {
      auto text = readScriptFile(f.absoluteFilePath().toStdString());
      QVERIFY(text);
      const auto warnings = scriptWarnings(*text, f.fileName().toStdString());
      QVERIFY2(warnings.empty(), warnings.empty() ? "" : warnings.front().c_str());
    }
  }
}

void ScriptStoreTest::aclUserConfinesScripts() {
  QCOMPARE(QString::fromStdString(aclSetUserLine("lab", "ratelab:")),
           QString("ACL SETUSER lab reset on >PASSWORD resetchannels ~ratelab:* +@all -@dangerous"));
  QCOMPARE(QString::fromStdString(aclSetUserLine("lab", "a*b:")),  // glob characters match themselves
           QString("ACL SETUSER lab reset on >PASSWORD resetchannels \"~a\\\\*b:*\" +@all -@dangerous"));
  QVERIFY(!checkAclUserName("bad name"));
  auto admin = redis_->connect();
  QVERIFY(admin);
  auto made = createAclUser(*admin, "lab", "acl:", "s3cret-pw");
  QVERIFY2(made, made ? "" : made.error().message.c_str());
  RedisEndpoint asLab = redis_->endpoint();
  asLab.user = "lab";
  asLab.password = "s3cret-pw";
  auto lab = RedisConnection::connect(asLab);
  QVERIFY2(lab, lab ? "" : lab.error().message.c_str());
  QVERIFY(lab->command({"EVAL", "return redis.call('SET', KEYS[1], 1)", "1", "acl:{c}"}));
  for (const char* script : {"return redis.call('SET', KEYS[1], 1)", "return redis.call('SET', 'victim', 1)",
                             "return redis.call('FLUSHALL')", "return redis.call('CONFIG', 'GET', 'maxmemory')"}) {
    auto r = lab->command({"EVAL", script, "1", "elsewhere"});
    QVERIFY2(!r && r.error().message.find("NOPERM") != std::string::npos, script);
  }
  auto victim = admin->command({"EXISTS", "victim"});
  QVERIFY(victim);
  QCOMPARE(victim->integer(), 0);
  // The store as that user: a script asked to write outside the prefix gets a counted error, not a write.
  const std::string out = write("outside.lua", "redis.call('SET', 'victim', 1) return 1");
  auto o = options(out, "acl:");
  o.redis.endpoint = asLab;
  auto store = RedisScriptStore::make(o);
  QVERIFY2(store, store ? "" : store.error().message.c_str());
  const DecisionRequest req{Algorithm::TokenBucket, "c", Quota::perWindow(10, Micros{1'000'000}), 1, Micros{kT0}};
  auto d = (*store)->decide(req);
  QVERIFY(!d);
  QCOMPARE(d.error().code, ErrorCode::Protocol);  // the script's fault: counted, never the failure policy
  QVERIFY2(d.error().message.find("can't access at least one of the keys") != std::string::npos, d.error().message.c_str());
  QVERIFY(admin->command({"ACL", "DELUSER", "lab"}));
}

QTEST_GUILESS_MAIN(ScriptStoreTest)
#include "test_script_store.moc"
