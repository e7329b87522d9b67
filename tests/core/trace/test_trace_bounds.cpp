// What a hostile trace can no longer do (issue 25): a regex filter on a huge
// or adversarial request line (RE2, linear time), a small gzip that expands to
// gigabytes (the request cap stops the read), and absurd times (bounded to
// 0..2^52 us, decimal times checked before they can wrap).
#include <QtTest>
#include <zlib.h>

#include <fstream>

#include "trace/log_time.hpp"
#include "trace/trace.hpp"
#include "trace/trace_filter.hpp"

using namespace rl;

namespace {
std::string combinedLine(const std::string& target) {
  return "127.0.0.1 - - [10/Oct/2023:13:55:36 +0000] \"GET " + target + " HTTP/1.1\" 200 2 \"-\" \"curl/7.88.1\"\n";
}

TraceOptions csvOptions(const QString& path) {
  TraceOptions o;
  o.path = path.toStdString();
  o.format = parseTraceFormat("csv").value();
  return o;
}
}  // namespace

class TestTraceBounds : public QObject {
  Q_OBJECT
 private slots:
  void regexOnA70KbUrlKeepsTheRightLines();
  void nestedStarFinishesPromptly();
  void filterPatternIsBounded();
  void gzipReadStopsAtTheRequestCap();
  void bytesDecompressedAreCounted();
  void timesPastTwoTo52AreBadLines();
  void decimalTimesNeverWrap();
};

void TestTraceBounds::regexOnA70KbUrlKeepsTheRightLines() {
  QTemporaryDir dir;
  const QString path = dir.filePath("long.log");
  {
    std::ofstream out(path.toStdString());
    out << combinedLine("/api/login") << combinedLine("/home")
        << combinedLine("/x?pad=" + std::string(70'000, 'a') + "&next=/login")  // login after 70 KB
        << combinedLine("/y?pad=" + std::string(70'000, 'b'))                   // 70 KB, no login
        << combinedLine("/api/login?next=/home");
  }
  TraceOptions o;
  o.path = path.toStdString();
  o.filter = ".*login";
  auto t = loadTrace(o);
  QVERIFY2(t.ok(), t.ok() ? "" : t.error().message.c_str());
  QCOMPARE(t->requests.size(), std::size_t(3));
  QCOMPARE(t->stats.filtered, std::int64_t(2));
  QCOMPARE(t->stats.bad, std::int64_t(0));
  o.filter = "(a|b)*c";  // the 20 KB backtracking case; no request line holds a c
  auto none = loadTrace(o);
  QVERIFY(!none.ok());
  QVERIFY2(none.error().message.rfind("--trace-filter: no line of", 0) == 0, none.error().message.c_str());
}

void TestTraceBounds::nestedStarFinishesPromptly() {
  QTemporaryDir dir;
  const QString path = dir.filePath("nested.log");
  {
    std::ofstream out(path.toStdString());
    const std::string a28 = "/" + std::string(27, 'a');  // request target of 28 characters, no b
    out << combinedLine(a28) << combinedLine(a28) << combinedLine("/aab");
  }
  TraceOptions o;
  o.path = path.toStdString();
  o.filter = "(a*)*b";
  QElapsedTimer clock;
  clock.start();
  auto t = loadTrace(o);
  QVERIFY(clock.elapsed() < 2000);
  QVERIFY(t.ok());
  QCOMPARE(t->requests.size(), std::size_t(1));
  QCOMPARE(t->stats.filtered, std::int64_t(2));
}

void TestTraceBounds::filterPatternIsBounded() {
  auto big = TraceFilter::compile(std::string(TraceFilter::kMaxPatternBytes + 1, 'a'), true);
  QVERIFY(!big.ok());
  QCOMPARE(QString::fromStdString(big.error().message),
           QString("--trace-filter: 4097 bytes is too long: allowed path=/exact, path=/prefix* or an RE2 regex on "
                   "the request line of at most 4096 bytes"));
  auto huge = TraceFilter::compile("(((a{100}){100}){100})", true);  // a program far over the memory bound
  QVERIFY(!huge.ok());
  QVERIFY2(huge.error().message.rfind("--trace-filter: '(((a{100}){100}){100})' is not a valid regex (", 0) == 0,
           huge.error().message.c_str());
  auto backref = TraceFilter::compile("(a)\\1", true);
  QVERIFY(!backref.ok());
  QVERIFY(backref.error().message.find("RE2 syntax") != std::string::npos);
}

void TestTraceBounds::gzipReadStopsAtTheRequestCap() {
  QTemporaryDir dir;
  const QString gz = dir.filePath("many.csv.gz");
  gzFile f = gzopen(gz.toStdString().c_str(), "wb9");
  QVERIFY(f != nullptr);
  const std::string line = "1700000000,a\n";  // 13 bytes
  for (int i = 0; i < 1000; ++i) gzwrite(f, line.data(), unsigned(line.size()));
  gzclose(f);
  auto o = csvOptions(gz);
  o.maxRequests = 100;
  o.maxRequestsRule = "--max-requests 100: allowed 1 to 100000000";
  auto t = loadTrace(o);
  QVERIFY(!t.ok());
  QCOMPARE(QString::fromStdString(t.error().message),
           QString("--trace: '%1' has more than 100 requests (reading stopped at line 101, 13000 bytes "
                   "decompressed): allowed at most 100 requests (--max-requests 100: allowed 1 to 100000000)")
               .arg(gz));
  o.maxRequests = 1000;
  QVERIFY(loadTrace(o).ok());
}

void TestTraceBounds::bytesDecompressedAreCounted() {
  QTemporaryDir dir;
  const QString gz = dir.filePath("few.csv.gz");
  gzFile f = gzopen(gz.toStdString().c_str(), "wb9");
  const std::string body(std::string("1700000000,a\n") + "1700000001,b\n" + std::string(50'000, '\n'));
  gzwrite(f, body.data(), unsigned(body.size()));
  gzclose(f);
  auto t = loadTrace(csvOptions(gz));
  QVERIFY(t.ok());
  QCOMPARE(t->requests.size(), std::size_t(2));
  QCOMPARE(t->stats.bytes, std::int64_t(body.size()));
}

void TestTraceBounds::timesPastTwoTo52AreBadLines() {
  QTemporaryDir dir;
  const QString jsonl = dir.filePath("times.jsonl");
  {
    std::ofstream out(jsonl.toStdString());
    out << "{\"t\": 1700000000000000, \"remote_addr\": \"a\"}\n"
        << "{\"t\": 9223372036854775807, \"remote_addr\": \"b\"}\n"   // near 2^63 us
        << "{\"t\": 4503599627370497, \"remote_addr\": \"c\"}\n"      // 2^52 + 1
        << "{\"t\": \"9999-12-31T23:59:59Z\", \"remote_addr\": \"d\"}\n"
        << "{\"t\": 4503599627370496, \"remote_addr\": \"e\"}\n";     // 2^52 exactly: kept
  }
  TraceOptions o;
  o.path = jsonl.toStdString();
  o.format = parseTraceFormat("jsonl").value();
  QVERIFY(parseTraceTime("t:us", o).ok());
  auto t = loadTrace(o);
  QVERIFY2(t.ok(), t.ok() ? "" : t.error().message.c_str());
  QCOMPARE(t->requests.size(), std::size_t(2));
  QCOMPARE(t->stats.bad, std::int64_t(3));
  QCOMPARE(t->stats.firstBadLines, (std::vector<std::int64_t>{2, 3, 4}));
  QCOMPARE(QString::fromStdString(t->stats.firstBadReason),
           QString("line 2 has a time outside 0 to 2^52 us (1970 to about 2112)"));
  QCOMPARE(t->requests.back().timeUs, kMaxTraceTimeUs);
}

void TestTraceBounds::decimalTimesNeverWrap() {
  QCOMPARE(parseDecimalTime("9223372036854.999999").value_or(-1), std::int64_t(-1));  // wrapped negative before
  QCOMPARE(parseDecimalTime("4503599627.370497").value_or(-1), std::int64_t(-1));
  QCOMPARE(parseDecimalTime("4503599627.370496").value_or(-1), kMaxTraceTimeUs);
  QCOMPARE(parseDecimalTime("4503599627370496", 1).value_or(-1), kMaxTraceTimeUs);
  QCOMPARE(parseDecimalTime("9223372036854775.807", 1000).value_or(-1), std::int64_t(-1));
  QCOMPARE(parseDecimalTime("1700000000.123").value_or(-1), std::int64_t(1700000000123000));
}

QTEST_GUILESS_MAIN(TestTraceBounds)
#include "test_trace_bounds.moc"
