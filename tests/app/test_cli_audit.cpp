// `ratelab-cli audit` against real limiters, each started here on a free
// loopback port: express-rate-limit 8 + rate-limit-redis in four header
// dialects, @fastify/rate-limit 11 with Redis, nginx limit_req (with and
// without $limit_req_status as a header, and behind TLS with a certificate
// made here), RateLab's own `serve` (one replica, and two whose memory stores
// leak 2x), and this test's own broken limiters (tests/peers/node/
// audit_targets.js): check-then-increment, Retry-After in milliseconds,
// chunked answers. Each asserts the declared policy, the probes' verdicts, the
// fingerprint and the exit code. Windows are 1-2 s so the suite stays short.

#include <QtTest>

#include <csignal>

#include <QJsonArray>
#include <QRegularExpression>
#include <QProcess>

#include "support/cli_process.hpp"
#include "support/report_page.hpp"
#include "support/nginx_limit_req.hpp"
#include "support/peer_libraries.hpp"
#include "support/redis_test_server.hpp"
#include "support/checked.hpp"

using namespace rl;

namespace {

// A child that prints `<prefix> <something>` lines when ready; killed on destruction.
class Child {
 public:
  Child(const QString& program, const QStringList& args, const QProcessEnvironment& env = QProcessEnvironment::systemEnvironment()) {
    p_.setProcessEnvironment(env);
    p_.setProcessChannelMode(QProcess::SeparateChannels);
    p_.start(program, args);
  }
  ~Child() {
    p_.kill();
    p_.waitForFinished(3000);
  }
  /// The words after `prefix` on the first such stdout line (empty after 20 s or an exit).
  QStringList waitFor(const QString& prefix) {
    QElapsedTimer t;
    t.start();
    while (t.elapsed() < 20'000 && p_.state() != QProcess::NotRunning) {
      p_.waitForReadyRead(100);
      while (p_.canReadLine()) {
        const QString line = QString::fromUtf8(p_.readLine()).trimmed();
        seen_ += line + "\n";
        if (line.startsWith(prefix + " ")) return line.mid(prefix.size() + 1).split(' ');
      }
    }
    seen_ += QString::fromUtf8(p_.readAllStandardError());
    return {};
  }
  const QString& seen() const { return seen_; }

 private:
  QProcess p_;
  QString seen_;
};

QJsonObject check(const QJsonObject& doc, const QString& name) {
  for (const auto& c : doc["checks"].toArray())
    if (c.toObject()["name"].toString() == name) return c.toObject();
  return {};
}

QString verdictOf(const QJsonObject& doc, const QString& name) { return check(doc, name)["verdict"].toString(); }

}  // namespace

class CliAuditTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase();
  void expressDraft8();
  void expressDialects_data();
  void expressDialects();
  void fastifyWithRedis();
  void checkThenIncrementFailsBurst();
  void burstSplitByResetIsSentAgain();
  void retryAfterInMillisecondsIsNamed();
  void chunkedAnswersAreRead();
  void nginxRateFingerprint();
  void nginxStatusHeader();
  void nginxBehindTls();
  void ratelabServe();
  void ctrlCStopsAndKeepsWhatWasFound();
  void serveReplicasLeak();
  void badInputAndUnreachable();
  void runKeysAreFreshPerRunAndLane();

 private:
  // `node audit_targets.js args`: its URL (empty on failure, with the output in `why`).
  QString startNode(std::unique_ptr<Child>& child, const QStringList& args, QString& why);
  test::CliRun audit(const QString& url, const QStringList& extra);

  std::unique_ptr<test::RedisTestServer> redis_;
  QString peers_;
};

void CliAuditTest::initTestCase() {
  redis_ = std::make_unique<test::RedisTestServer>();
  RL_REQUIRE_REDIS(*redis_);
  QString error;
  peers_ = test::nodePeersDir(error);
  QVERIFY2(!peers_.isEmpty(), qPrintable(error));
}

QString CliAuditTest::startNode(std::unique_ptr<Child>& child, const QStringList& args, QString& why) {
  auto env = QProcessEnvironment::systemEnvironment();
  env.insert("NODE_PATH", peers_ + "/node_modules");  // the script stays in the source tree
  child = std::make_unique<Child>("node", QStringList{RATELAB_SOURCE_DIR "/tests/peers/node/audit_targets.js"} + args, env);
  const QStringList port = child->waitFor("listening");
  why = child->seen();
  return port.isEmpty() ? QString() : QString("http://127.0.0.1:%1/").arg(port.front());
}

test::CliRun CliAuditTest::audit(const QString& url, const QStringList& extra) {
  return test::runCli(QStringList{"audit", "--http-target", url, "--json", "--budget-s", "30"} + extra, 60'000);
}

void CliAuditTest::expressDraft8() {
  std::unique_ptr<Child> node;
  QString why;
  const QString url = startNode(node, {"express", "draft-8", "5", "1000", QString::number(redis_->endpoint().port)}, why);
  QVERIFY2(!url.isEmpty(), qPrintable(why));
  const auto c = audit(url, {});
  QVERIFY2(c.exitCode == 0, c.err.constData());  // warnings only: a fixed window's boundary
  const QJsonObject doc = c.json();
  QCOMPARE(doc["declared"]["dialect"].toString(), QString("ietf-draft-8"));
  QCOMPARE(doc["declared"]["name"].toString(), QString("5-in-1sec"));
  QCOMPARE(doc["declared"]["limit"].toInt(), 5);
  QCOMPARE(doc["declared"]["window_s"].toInt(), 1);
  QCOMPARE(verdictOf(doc, "discover"), QString("pass"));
  QCOMPARE(verdictOf(doc, "burst"), QString("pass"));
  QCOMPARE(check(doc, "burst")["max_admitted"].toInt(), 5);
  QCOMPARE(verdictOf(doc, "headers"), QString("pass"));
  QCOMPARE(verdictOf(doc, "retry_after"), QString("pass"));
  QCOMPARE(verdictOf(doc, "boundary"), QString("warn"));  // windows from the first request: 2x at a boundary
  QVERIFY2(check(doc, "boundary")["admitted"].toInt() >= 9, c.out.constData());
  QVERIFY(verdictOf(doc, "sustained") != "fail");
  QVERIFY(check(doc, "sustained")["max_in_any_window"].toInt() <= 6);
  QCOMPARE(verdictOf(doc, "identity"), QString("pass"));
  QCOMPARE(verdictOf(doc, "replicas"), QString("skip"));
  const QJsonObject fp = doc["fingerprint"].toObject();
  QCOMPARE(fp["algorithm"].toString(), QString("fixed_window"));
  QCOMPARE(fp["limit"].toInt(), 5);
  QCOMPARE(fp["window_ms"].toInt(), 1000);
  QCOMPARE(fp["alignment"].toString(), QString("first_request"));
  QVERIFY2(fp["explained"].toInt() * 100 >= fp["decisions"].toInt() * 95, qPrintable(fp["summary"].toString()));
  QCOMPARE(doc["verdict"].toString(), QString("warn"));
}

void CliAuditTest::expressDialects_data() {
  QTest::addColumn<QString>("standard");
  QTest::addColumn<QString>("dialect");
  QTest::addColumn<int>("windowS");  // -1: not declared
  QTest::newRow("draft-7") << "draft-7" << "ietf-draft-7" << 1;
  QTest::newRow("draft-6") << "draft-6" << "ietf-draft-6" << 1;
  QTest::newRow("legacy") << "legacy" << "x-ratelimit" << -1;
}

void CliAuditTest::expressDialects() {
  QFETCH(QString, standard);
  QFETCH(QString, dialect);
  QFETCH(int, windowS);
  std::unique_ptr<Child> node;
  QString why;
  const QString url = startNode(node, {"express", standard, "5", "1000", QString::number(redis_->endpoint().port)}, why);
  QVERIFY2(!url.isEmpty(), qPrintable(why));
  const auto c = audit(url, {"--only", "discover,burst,headers,retry_after"});
  QVERIFY2(c.exitCode == 0, c.err.constData());
  const QJsonObject doc = c.json();
  QCOMPARE(doc["declared"]["dialect"].toString(), dialect);
  QCOMPARE(doc["declared"]["limit"].toInt(), 5);
  QCOMPARE(doc["declared"]["window_s"].toInt(-1), windowS);
  QCOMPARE(verdictOf(doc, "burst"), QString("pass"));
  QCOMPARE(check(doc, "burst")["max_admitted"].toInt(), 5);
  QCOMPARE(verdictOf(doc, "headers"), QString("pass"));
  QCOMPARE(verdictOf(doc, "retry_after"), QString("pass"));
  if (standard == "legacy")  // X-RateLimit-Reset is an epoch time: read so, and said so
    QVERIFY2(doc["declared"]["reset_inference"].toString().contains("epoch seconds"), c.out.constData());
  QCOMPARE(doc["fingerprint"]["algorithm"].toString(), QString("fixed_window"));
  QCOMPARE(doc["fingerprint"]["limit"].toInt(), 5);
}

void CliAuditTest::fastifyWithRedis() {
  std::unique_ptr<Child> node;
  QString why;
  const QString url = startNode(node, {"fastify", "4", "1000", QString::number(redis_->endpoint().port)}, why);
  QVERIFY2(!url.isEmpty(), qPrintable(why));
  const auto c = audit(url, {"--only", "discover,burst,headers,retry_after,sustained"});
  QVERIFY2(c.exitCode == 0, c.err.constData());
  const QJsonObject doc = c.json();
  QCOMPARE(doc["declared"]["dialect"].toString(), QString("x-ratelimit"));
  QCOMPARE(doc["declared"]["limit"].toInt(), 4);
  QCOMPARE(check(doc, "discover")["window_estimated_ms"].toInt(), 1000);  // from x-ratelimit-reset: 1
  QCOMPARE(check(doc, "burst")["max_admitted"].toInt(), 4);
  QCOMPARE(verdictOf(doc, "headers"), QString("pass"));
  QCOMPARE(verdictOf(doc, "retry_after"), QString("pass"));
  QVERIFY(verdictOf(doc, "sustained") != "fail");
  const QJsonObject fp = doc["fingerprint"].toObject();
  QCOMPARE(fp["algorithm"].toString(), QString("fixed_window"));
  QCOMPARE(fp["limit"].toInt(), 4);
  QCOMPARE(fp["window_ms"].toInt(), 1000);
}

void CliAuditTest::checkThenIncrementFailsBurst() {
  std::unique_ptr<Child> node;
  QString why;
  const QString url = startNode(node, {"naive", "5", "2000", QString::number(redis_->endpoint().port)}, why);
  QVERIFY2(!url.isEmpty(), qPrintable(why));
  QTemporaryDir dir;
  const QString page = dir.filePath("naive.html");
  const auto c = audit(url, {"--only", "discover,burst", "--require", "burst", "--report", page});
  QCOMPARE(c.exitCode, 1);
  const QJsonObject doc = c.json();
  QCOMPARE(doc["declared"]["limit"].toInt(), 5);
  QCOMPARE(verdictOf(doc, "burst"), QString("fail"));
  QVERIFY2(check(doc, "burst")["max_admitted"].toInt() > 5, c.out.constData());  // all passed the check at once
  const int over = check(doc, "burst")["over_limit_rounds"].toInt();
  QVERIFY(over >= 1);
  QCOMPARE(doc["verdict"].toString(), QString("fail"));
  QVERIFY(doc["summary"].toString().contains("(burst)"));
  // The page: the document it embeds is the one --json printed, and a real headless Chromium
  // draws the burst's rounds against the limit of 5 with the over-limit rounds banded.
  const QByteArray html = test::readReport(page);
  QCOMPARE(test::embeddedDocument(html), doc);
  QTemporaryDir profile;
  RL_CHECKED(dom, test::headlessChromium(profile, {"--dump-dom", QUrl::fromLocalFile(page).toString()}));
  QVERIFY2(dom.contains("<h2>Verdict: fail</h2>"), dom.left(3000).constData());
  QVERIFY(dom.contains("<td>burst</td><td>fail</td>"));
  QCOMPARE(dom.count("<svg class=\"chart\""), 1);
  QVERIFY(dom.contains("<title>limit 5</title>"));
  QVERIFY(dom.count("class=\"band\"") >= 1 && dom.count("class=\"band\"") <= over);  // consecutive rounds share a band
  // A bad page is refused before the first request.
  const auto bad = audit(url, {"--report", dir.filePath("naive.txt")});
  QCOMPARE(bad.exitCode, 2);
  QVERIFY2(bad.err.contains("must end in .html or .htm"), bad.err.constData());
}

// A window boundary inside the burst's concurrent round admits two windows'
// worth; that is the window resetting, not an over-admit. The probe sends the
// round once more on a fresh key and judges that one; when every try is split
// it warns that it could not judge, and never fails the limiter for it.
void CliAuditTest::burstSplitByResetIsSentAgain() {
  for (const char* which : {"once", "always"}) {
    std::unique_ptr<Child> node;
    QString why;
    const QString url = startNode(node, {"split", "5", "2000", which}, why);
    QVERIFY2(!url.isEmpty(), qPrintable(why));
    const auto c = audit(url, {"--only", "discover,burst", "--require", "burst"});
    const QJsonObject doc = c.json();
    const QJsonObject burst = check(doc, "burst");
    QCOMPARE(doc["declared"]["limit"].toInt(), 5);
    if (QString(which) == "once") {
      QCOMPARE(c.exitCode, 0);
      QCOMPARE(verdictOf(doc, "burst"), QString("pass"));
      QCOMPARE(burst["rounds_split_by_reset"].toInt(), 1);
      QCOMPARE(burst["admitted_per_round"].toArray().first().toInt(), 5);  // the fresh key's round
      QCOMPARE(burst["max_admitted"].toInt(), 5);
    } else {
      QCOMPARE(verdictOf(doc, "burst"), QString("warn"));
      QCOMPARE(burst["rounds_split_by_reset"].toInt(), 2);
      QVERIFY2(burst["summary"].toString().contains("window reset split every try"), c.out.constData());
    }
  }
}

void CliAuditTest::retryAfterInMillisecondsIsNamed() {
  std::unique_ptr<Child> node;
  QString why;
  const QString url = startNode(node, {"retry-ms", "3", "2000"}, why);
  QVERIFY2(!url.isEmpty(), qPrintable(why));
  const auto c = audit(url, {"--only", "discover,headers,retry_after"});
  QCOMPARE(c.exitCode, 1);
  const QJsonObject doc = c.json();
  QCOMPARE(doc["declared"]["dialect"].toString(), QString("ietf-draft-6"));
  QCOMPARE(doc["declared"]["window_s"].toInt(), 2);
  const QJsonObject retry = check(doc, "retry_after");
  QCOMPARE(retry["verdict"].toString(), QString("fail"));
  QCOMPARE(retry["meant"].toString(), QString("milliseconds"));
  QVERIFY2(retry["summary"].toString().contains("must have meant milliseconds"), c.out.constData());
}

void CliAuditTest::chunkedAnswersAreRead() {
  std::unique_ptr<Child> node;
  QString why;
  const QString url = startNode(node, {"chunked", "4", "1000"}, why);
  QVERIFY2(!url.isEmpty(), qPrintable(why));
  const auto c = audit(url, {"--only", "discover,burst,headers"});
  QVERIFY2(c.exitCode == 0, c.err.constData());
  const QJsonObject doc = c.json();
  QCOMPARE(doc["declared"]["dialect"].toString(), QString("ietf-draft-8"));
  QCOMPARE(doc["declared"]["name"].toString(), QString("chunky"));
  QCOMPARE(doc["declared"]["limit"].toInt(), 4);
  QCOMPARE(verdictOf(doc, "burst"), QString("pass"));
  QCOMPARE(check(doc, "burst")["max_admitted"].toInt(), 4);
  QCOMPARE(verdictOf(doc, "headers"), QString("pass"));
  QCOMPARE(doc["fingerprint"]["limit"].toInt(), 4);
}

void CliAuditTest::nginxRateFingerprint() {
  test::NginxLimitReq nginx("10r/s", 5);
  QVERIFY2(nginx.ok(), qPrintable(nginx.error()));
  const auto c = audit(nginx.url(), {});
  QVERIFY2(c.exitCode == 0, c.err.constData());
  const QJsonObject doc = c.json();
  QCOMPARE(doc["declared"]["dialect"].toString(), QString("none"));
  QCOMPARE(verdictOf(doc, "discover"), QString("warn"));  // nginx declares nothing
  QCOMPARE(check(doc, "burst")["max_admitted"].toInt(), 6);  // burst=5: limit 6
  QCOMPARE(verdictOf(doc, "identity"), QString("pass"));
  QCOMPARE(check(doc, "identity")["keyed_by"].toString(), QString("source address"));
  QCOMPARE(check(doc, "identity")["new_forwarded_for_admitted"].toBool(), false);
  // limit_req is a leaky bucket: a rate model, 6 at 10/s, explains every decision. When the probes could not
  // tell it from a window model (a loaded run once gave sliding_counter 6 per 0.5 s, 144 of 144), the window
  // model is named, since window models come first, and the rate model is listed beside it.
  const QJsonObject fp = doc["fingerprint"].toObject();
  QStringList models{fp["summary"].toString().section(':', 0, 0)};
  for (const auto& v : fp["also_explained_by"].toArray()) models << v.toString();
  QVERIFY2(!models.filter(QRegularExpression("^(leaky_bucket|token_bucket|gcra) 6 at 10/s$")).isEmpty(),
           qPrintable(fp["summary"].toString()));
  QCOMPARE(fp["limit"].toInt(), 6);
  QCOMPARE(fp["explained"].toInt(), fp["decisions"].toInt());
  QCOMPARE(fp["summary"].toString().contains("(as many by "), !fp["also_explained_by"].toArray().isEmpty());
}

void CliAuditTest::nginxStatusHeader() {
  test::NginxLimitReq nginx("10r/s", 5, true, "add_header X-Status $limit_req_status always;");
  QVERIFY2(nginx.ok(), qPrintable(nginx.error()));
  const auto c = audit(nginx.url(), {"--only", "discover,burst"});
  QVERIFY2(c.exitCode == 0, c.err.constData());
  const QJsonObject doc = c.json();
  QCOMPARE(doc["declared"]["dialect"].toString(), QString("nginx-status"));
  QCOMPARE(check(doc, "burst")["max_admitted"].toInt(), 6);
  QCOMPARE(doc["fingerprint"]["limit"].toInt(), 6);
}

void CliAuditTest::nginxBehindTls() {
  test::NginxLimitReq nginx("10r/s", 5, true, {}, true);
  QVERIFY2(nginx.ok(), qPrintable(nginx.error()));
  QVERIFY(nginx.url().startsWith("https://"));
  const auto untrusted = audit(nginx.url(), {"--only", "discover"});
  QCOMPARE(untrusted.exitCode, 3);  // a self-signed certificate is not trusted by default
  QVERIFY2(untrusted.err.contains("certificate"), untrusted.err.constData());
  const auto trusted = audit(nginx.url(), {"--only", "discover,burst", "--cacert", nginx.certFile()});
  QVERIFY2(trusted.exitCode == 0, trusted.err.constData());
  QCOMPARE(check(trusted.json(), "burst")["max_admitted"].toInt(), 6);
  const auto insecure = audit(nginx.url(), {"--only", "discover", "--insecure"});
  QVERIFY2(insecure.exitCode == 0, insecure.err.constData());
  QCOMPARE(check(insecure.json(), "discover")["admitted"].toInt(), 3);
  const auto missing = audit(nginx.url(), {"--cacert", "/nonexistent.pem"});
  QCOMPARE(missing.exitCode, 2);
  QVERIFY2(missing.err.contains("--cacert '/nonexistent.pem'"), missing.err.constData());
  // run --backend http over the same TLS: refused without the CA, exact with it.
  const QStringList run{"run", "--backend", "http", "--http-target", nginx.url(), "--requests", "10", "--json"};
  QCOMPARE(test::runCli(run).exitCode, 3);
  const auto storm = test::runCli(run + QStringList{"--cacert", nginx.certFile()});
  QVERIFY2(storm.exitCode == 0, storm.err.constData());
  QCOMPARE(storm.json()["runs"].toArray()[0].toObject()["admitted"].toInt(), 6);
  QCOMPARE(storm.json()["runs"].toArray()[0].toObject()["errors"].toInt(), 0);
}

void CliAuditTest::ctrlCStopsAndKeepsWhatWasFound() {
  Child serve(qEnvironmentVariable("RATELAB_BIN_DIR") + "/cli/ratelab-cli",
              {"serve", "--algorithm", "fixed_window", "--limit", "5", "--window-ms", "1000", "--front", "builtin"});
  const QStringList front = serve.waitFor("front");
  QVERIFY2(!front.isEmpty(), qPrintable(serve.seen()));
  QTemporaryDir dir;
  QProcess p;
  p.setWorkingDirectory(RATELAB_SOURCE_DIR);
  p.start(qEnvironmentVariable("RATELAB_BIN_DIR") + "/cli/ratelab-cli",
          {"audit", "--http-target", front.front() + "/", "--json", "--budget-s", "600", "--report", dir.filePath("i.html")});
  QByteArray err;
  QTRY_VERIFY_WITH_TIMEOUT((err += p.readAllStandardError()).contains("audit: burst"), 30'000);  // two probes done
  QCOMPARE(::kill(static_cast<pid_t>(p.processId()), SIGINT), 0);
  QVERIFY(p.waitForFinished(15'000));  // not the 600 s budget
  QCOMPARE(p.exitStatus(), QProcess::NormalExit);
  QCOMPARE(p.exitCode(), 130);
  const QJsonObject doc = QJsonDocument::fromJson(p.readAllStandardOutput()).object();
  QVERIFY(doc["interrupted"].toBool());
  QVERIFY2(doc["summary"].toString().startsWith("interrupted: "), qPrintable(doc["summary"].toString()));
  QCOMPARE(verdictOf(doc, "discover"), QString("pass"));  // what was found before Ctrl-C is kept
  QCOMPARE(check(doc, "identity")["summary"].toString(), QString("not run: interrupted (Ctrl-C)"));
  QCOMPARE(test::embeddedDocument(test::readReport(dir.filePath("i.html"))), doc);  // and the page is written
}

void CliAuditTest::ratelabServe() {
  Child serve(qEnvironmentVariable("RATELAB_BIN_DIR") + "/cli/ratelab-cli",
              {"serve", "--algorithm", "fixed_window", "--limit", "5", "--window-ms", "1000", "--front", "builtin"});
  const QStringList front = serve.waitFor("front");
  QVERIFY2(!front.isEmpty(), qPrintable(serve.seen()));
  const auto c = audit(front.front() + "/", {});
  QVERIFY2(c.exitCode == 0, c.err.constData());
  const QJsonObject doc = c.json();
  QCOMPARE(doc["declared"]["dialect"].toString(), QString("ietf-draft-8"));
  QCOMPARE(doc["declared"]["name"].toString(), QString("fixed_window"));
  QCOMPARE(doc["declared"]["limit"].toInt(), 5);
  for (const char* probe : {"discover", "burst", "headers", "retry_after", "identity"})
    QVERIFY2(verdictOf(doc, probe) == "pass", probe);
  const QJsonObject fp = doc["fingerprint"].toObject();
  QCOMPARE(fp["algorithm"].toString(), QString("fixed_window"));
  QCOMPARE(fp["limit"].toInt(), 5);
  QCOMPARE(fp["window_ms"].toInt(), 1000);
  QCOMPARE(fp["alignment"].toString(), QString("epoch"));  // RateLab's windows sit on multiples of the window
  // Replayed at the client's send times: a request sent within its round trip of an
  // epoch boundary was decided by serve just after it (a CI run saw 94 of 95).
  QVERIFY2(fp["explained"].toInt() >= fp["decisions"].toInt() - 2,
           qPrintable(QString("%1 of %2").arg(fp["explained"].toInt()).arg(fp["decisions"].toInt())));
}

void CliAuditTest::serveReplicasLeak() {
  // Two replicas, each with its own memory store, no front: one key round-robin gets 2x.
  Child serve(qEnvironmentVariable("RATELAB_BIN_DIR") + "/cli/ratelab-cli",
              {"serve", "--algorithm", "fixed_window", "--limit", "5", "--window-ms", "10000", "--replicas", "2",
               "--front", "none"});
  const QStringList r0 = serve.waitFor("replica");
  const QStringList r1 = serve.waitFor("replica");
  QVERIFY2(r0.size() == 2 && r1.size() == 2, qPrintable(serve.seen()));
  const auto c = audit(r0[1] + "/," + r1[1] + "/", {"--only", "discover,replicas"});
  QCOMPARE(c.exitCode, 1);
  const QJsonObject replicas = check(c.json(), "replicas");
  QCOMPARE(replicas["verdict"].toString(), QString("fail"));
  QCOMPARE(replicas["admitted"].toInt(), 10);
  QCOMPARE(replicas["leak"].toDouble(), 2.0);
}

void CliAuditTest::badInputAndUnreachable() {
  const auto budget = test::runCli({"audit", "--http-target", "http://127.0.0.1:1/", "--budget-requests", "5"});
  QCOMPARE(budget.exitCode, 2);
  QVERIFY2(budget.err.contains("--budget-requests"), budget.err.constData());
  const auto require = test::runCli({"audit", "--http-target", "http://127.0.0.1:1/", "--require", "speed"});
  QCOMPARE(require.exitCode, 2);
  QVERIFY2(require.err.contains("--require 'speed' is not a probe"), require.err.constData());
  const auto scheme = test::runCli({"audit", "--http-target", "ftp://127.0.0.1:1/"});
  QCOMPARE(scheme.exitCode, 2);
  const auto down = test::runCli({"audit", "--http-target", "http://127.0.0.1:1/"});
  QCOMPARE(down.exitCode, 3);
  QVERIFY2(down.err.contains("cannot reach the HTTP target"), down.err.constData());
  QVERIFY(down.out.isEmpty());
  const auto plan = test::runCli({"audit", "--http-target", "http://127.0.0.1:1/", "--plan"});
  QCOMPARE(plan.exitCode, 0);  // the plan sends nothing: an unreachable target is fine
  QVERIFY2(plan.out.contains("burst        3 rounds of 2L+2"), plan.out.constData());
}

void CliAuditTest::runKeysAreFreshPerRunAndLane() {
  // `run --backend http` against a limiter that keeps state (Redis, 60 s windows): a second run must not
  // meet the first one's spent quota. The target has one lane; the listed algorithms decide its arrivals
  // again in memory (the model run), and sliding_log explains express's 5 per minute decision for decision.
  std::unique_ptr<Child> node;
  QString why;
  const QString url = startNode(node, {"express", "draft-8", "5", "60000", QString::number(redis_->endpoint().port)}, why);
  QVERIFY2(!url.isEmpty(), qPrintable(why));
  for (int pass = 0; pass < 2; ++pass) {
    const auto c = test::runCli({"run", "--backend", "http", "--http-target", url, "--algorithm", "fixed_window,sliding_log",
                                 "--limit", "5", "--requests", "8", "--json"});
    QVERIFY2(c.exitCode == 0, c.err.constData());
    const QJsonArray runs = c.json()["runs"].toArray();
    QCOMPARE(runs.size(), 3);  // the target, then fixed_window and sliding_log on its arrivals
    QCOMPARE(runs[0].toObject()["decided_by"].toString(), QString("target"));
    for (const auto& r : runs) QCOMPARE(r.toObject()["admitted"].toInt(), 5);
    QCOMPARE(runs[2].toObject()["algorithm"].toString(), QString("sliding_log"));
    QCOMPARE(runs[2].toObject()["decisions_compared_with_target"].toInt(), 8);
    QCOMPARE(runs[2].toObject()["decisions_differing_from_target"].toInt(), 0);
  }
}

QTEST_GUILESS_MAIN(CliAuditTest)
#include "test_cli_audit.moc"
