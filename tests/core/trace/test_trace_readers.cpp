// Trace readers against hand-made golden files (tests/core/trace/data), one
// per format, each with malformed lines; then the options around them.
#include <QtTest>
#include <zlib.h>

#include <fstream>
#include <sstream>

#include "trace/log_format.hpp"
#include "trace/log_time.hpp"
#include "trace/trace.hpp"

using namespace rl;

namespace {
const QString kData = QStringLiteral(RATELAB_TRACE_DATA);

std::string slurp(const QString& path) {
  std::ifstream in(path.toStdString(), std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The trace as the .expected files spell it: "<time_us> <key> <cost>" rows, then "bad N at a,b".
std::string dump(const Trace& t) {
  std::string out;
  for (const auto& r : t.requests)
    out += std::to_string(r.timeUs) + " " + t.keys[r.client] + " " + std::to_string(r.cost) + "\n";
  out += "bad " + std::to_string(t.stats.bad) + " at ";
  for (std::size_t i = 0; i < t.stats.firstBadLines.size(); ++i)
    out += (i ? "," : "") + std::to_string(t.stats.firstBadLines[i]);
  return out + "\n";
}

TraceOptions opts(const QString& file, const std::string& format = "auto", const std::string& key = "addr") {
  TraceOptions o;
  o.path = (kData + "/" + file).toStdString();
  o.format = parseTraceFormat(format).value();
  o.key = parseTraceKey(key).value();
  return o;
}

QString tempPath(const QTemporaryDir& dir, const char* name) { return dir.path() + "/" + name; }
}  // namespace

class TestTraceReaders : public QObject {
  Q_OBJECT
 private slots:
  void times_data();
  void times();
  void golden_data();
  void golden();
  void burstKeepsSecondsAsInstants();
  void filterByPathAndRegex();
  void gzipIsReadDirectly();
  void strictAndEmptyTracesAreErrors();
  void optionsNameTheirFlag_data();
  void optionsNameTheirFlag();
  void lineLongerThanTheBufferIsOneBadLine();
  void logFormatSplitsOnLiterals();
};

void TestTraceReaders::times_data() {
  QTest::addColumn<QString>("kind");
  QTest::addColumn<QString>("text");
  QTest::addColumn<qint64>("us");  // -1: rejected
  QTest::newRow("local utc") << "local" << "14/Nov/2023:22:13:20 +0000" << qint64(1700000000000000);
  QTest::newRow("local -0700") << "local" << "14/Nov/2023:15:13:20 -0700" << qint64(1700000000000000);
  QTest::newRow("local leap day") << "local" << "29/Feb/2024:00:00:00 +0000" << qint64(1709164800000000);
  QTest::newRow("local bad month") << "local" << "14/Nox/2023:22:13:20 +0000" << qint64(-1);
  QTest::newRow("local hour 24") << "local" << "14/Nov/2023:24:13:20 +0000" << qint64(-1);
  QTest::newRow("iso Z") << "iso" << "2023-11-14T22:13:20Z" << qint64(1700000000000000);
  QTest::newRow("iso offset") << "iso" << "2023-11-15T00:13:20+02:00" << qint64(1700000000000000);
  QTest::newRow("iso fraction") << "iso" << "2023-11-14T22:13:20.123456+0000" << qint64(1700000000123456);
  QTest::newRow("iso no zone") << "iso" << "2023-11-14T22:13:20" << qint64(-1);
  QTest::newRow("msec") << "dec" << "1700000000.123" << qint64(1700000000123000);
  QTest::newRow("dec ns cut") << "dec" << "1700000000.123456789" << qint64(1700000000123456);
  QTest::newRow("dec negative") << "dec" << "-1.5" << qint64(-1);
  QTest::newRow("dec junk") << "dec" << "17e9" << qint64(-1);
}

void TestTraceReaders::times() {
  QFETCH(QString, kind);
  QFETCH(QString, text);
  QFETCH(qint64, us);
  const std::string s = text.toStdString();
  std::optional<std::int64_t> got;
  if (kind == "local") got = parseTimeLocal(s);
  if (kind == "iso")
    if (auto iso = parseIso8601(s)) got = iso->us;
  if (kind == "dec") got = parseDecimalTime(s);
  QCOMPARE(got.value_or(-1), us);
}

void TestTraceReaders::golden_data() {
  QTest::addColumn<QString>("file");
  QTest::addColumn<QString>("format");
  QTest::addColumn<QString>("key");
  QTest::addColumn<QString>("expected");
  QTest::addColumn<int>("detected");
  QTest::newRow("combined auto") << "combined.log" << "auto" << "addr" << "combined.expected" << int(TraceFormatKind::Combined);
  QTest::newRow("combined given") << "combined.log" << "combined" << "addr" << "combined.expected" << int(TraceFormatKind::Combined);
  QTest::newRow("common auto") << "common.log" << "auto" << "addr" << "common.expected" << int(TraceFormatKind::Common);
  QTest::newRow("nginx msec header key")
      << "nginx_msec.log" << QString::fromStdString("nginx:'" + slurp(kData + "/nginx_msec.format") + "'")
      << "header:X-Api-Key" << "nginx_msec.expected" << int(TraceFormatKind::Nginx);
  QTest::newRow("jsonl auto field key") << "trace.jsonl" << "auto" << "field:user" << "trace_jsonl.expected" << int(TraceFormatKind::Jsonl);
  QTest::newRow("csv auto") << "trace.csv" << "auto" << "addr" << "trace_csv.expected" << int(TraceFormatKind::Csv);
}

void TestTraceReaders::golden() {
  QFETCH(QString, file);
  QFETCH(QString, format);
  QFETCH(QString, key);
  QFETCH(QString, expected);
  QFETCH(int, detected);
  auto t = loadTrace(opts(file, format.toStdString(), key.toStdString()));
  QVERIFY2(t.ok(), t.ok() ? "" : t.error().message.c_str());
  QCOMPARE(QString::fromStdString(dump(t.value())), QString::fromStdString(slurp(kData + "/" + expected)));
  QCOMPARE(int(t->format.kind), detected);
}

void TestTraceReaders::burstKeepsSecondsAsInstants() {
  auto o = opts("combined.log");
  o.burst = true;
  auto t = loadTrace(o);
  QVERIFY(t.ok());
  QCOMPARE(t->requests.size(), std::size_t(5));
  const std::int64_t sec = 1696946136000000;  // 2023-10-10T13:55:36Z
  for (int i = 1; i <= 3; ++i) QCOMPARE(t->requests[std::size_t(i)].timeUs, sec);
  QCOMPARE(t->stats.spread, std::int64_t(0));
}

void TestTraceReaders::filterByPathAndRegex() {
  auto o = opts("combined.log");
  o.filter = "path=/api/login";  // the query string is not part of the path
  auto t = loadTrace(o);
  QVERIFY(t.ok());
  QCOMPARE(t->requests.size(), std::size_t(3));
  QCOMPARE(t->stats.filtered, std::int64_t(2));
  QCOMPARE(t->keys, std::vector<std::string>{"127.0.0.1"});
  o.filter = "path=/api/*";
  QCOMPARE(loadTrace(o)->requests.size(), std::size_t(3));
  o.filter = "^POST ";
  QCOMPARE(loadTrace(o)->requests.size(), std::size_t(1));
  o.filter = "path=/nowhere";
  auto none = loadTrace(o);
  QVERIFY(!none.ok());
  QVERIFY(none.error().message.rfind("--trace-filter:", 0) == 0);
  o.filter = "([";
  QVERIFY(loadTrace(o).error().message.rfind("--trace-filter:", 0) == 0);
}

void TestTraceReaders::gzipIsReadDirectly() {
  QTemporaryDir dir;
  const QString gz = tempPath(dir, "access.log.1.gz");
  const std::string text = slurp(kData + "/combined.log");
  gzFile f = gzopen(gz.toStdString().c_str(), "wb");
  QVERIFY(f != nullptr);
  QCOMPARE(gzwrite(f, text.data(), static_cast<unsigned>(text.size())), int(text.size()));
  gzclose(f);
  TraceOptions o;
  o.path = gz.toStdString();
  auto t = loadTrace(o);
  QVERIFY2(t.ok(), t.ok() ? "" : t.error().message.c_str());
  QCOMPARE(QString::fromStdString(dump(t.value())), QString::fromStdString(slurp(kData + "/combined.expected")));
  // A truncated gzip is an error naming --trace, not a silent short trace.
  const std::string bytes = slurp(gz);
  std::ofstream(dir.path().toStdString() + "/cut.gz", std::ios::binary).write(bytes.data(), std::streamsize(bytes.size() / 2));
  o.path = dir.path().toStdString() + "/cut.gz";
  o.format = parseTraceFormat("combined").value();
  auto cut = loadTrace(o);
  QVERIFY(!cut.ok());
  QVERIFY2(cut.error().message.rfind("--trace: cannot read", 0) == 0, cut.error().message.c_str());
}

void TestTraceReaders::strictAndEmptyTracesAreErrors() {
  auto o = opts("combined.log");
  o.strict = true;
  auto strict = loadTrace(o);
  QVERIFY(!strict.ok());
  QCOMPARE(QString::fromStdString(strict.error().message).section(':', 0, 0), QString("--strict"));
  QVERIFY(strict.error().message.find("3 bad lines (first at 3, 8, 9") != std::string::npos);
  QTemporaryDir dir;
  const QString junk = tempPath(dir, "junk.log");
  std::ofstream(junk.toStdString()) << "nothing\nhere\n";
  TraceOptions j;
  j.path = junk.toStdString();
  j.format = parseTraceFormat("combined").value();
  auto empty = loadTrace(j);
  QVERIFY(!empty.ok());
  QVERIFY2(empty.error().message.find("has no valid request line (2 lines, 2 bad") != std::string::npos,
           empty.error().message.c_str());
  j.format = {};
  QVERIFY(loadTrace(j).error().message.rfind("--trace-format: cannot tell", 0) == 0);
  j.path = "/nonexistent/access.log";
  QVERIFY(loadTrace(j).error().message.rfind("--trace: cannot read '/nonexistent/access.log'", 0) == 0);
}

void TestTraceReaders::optionsNameTheirFlag_data() {
  QTest::addColumn<QString>("file");
  QTest::addColumn<QString>("format");
  QTest::addColumn<QString>("key");
  QTest::addColumn<QString>("flag");
  QTest::newRow("header missing from combined") << "combined.log" << "combined" << "header:x-api-key" << "--trace-key";
  QTest::newRow("csv takes no key") << "trace.csv" << "csv" << "field:user" << "--trace-key";
  QTest::newRow("format without time") << "combined.log" << "nginx:'$remote_addr $status'" << "addr" << "--trace-format";
  QTest::newRow("adjacent variables") << "combined.log" << "nginx:'$remote_addr$status $msec'" << "addr" << "--trace-format";
}

void TestTraceReaders::optionsNameTheirFlag() {
  QFETCH(QString, file);
  QFETCH(QString, format);
  QFETCH(QString, key);
  QFETCH(QString, flag);
  auto t = loadTrace(opts(file, format.toStdString(), key.toStdString()));
  QVERIFY(!t.ok());
  QVERIFY2(t.error().message.rfind(flag.toStdString(), 0) == 0, t.error().message.c_str());
  QVERIFY(!parseTraceFormat("apache").ok());
  QVERIFY(!parseTraceKey("cookie:x").ok());
  TraceOptions o;
  QVERIFY(!parseTraceTime("ts:hours", o).ok());
  QVERIFY(parseTraceTime("ts:ms", o).ok());
  QCOMPARE(o.timeUnit, TimeUnit::Milliseconds);
}

void TestTraceReaders::lineLongerThanTheBufferIsOneBadLine() {
  QTemporaryDir dir;
  const QString path = tempPath(dir, "long.csv");
  {
    std::ofstream out(path.toStdString());
    out << "1700000000,a\n" << std::string(3 << 20, 'x') << "\n1700000001,b\n";
  }
  TraceOptions o;
  o.path = path.toStdString();
  o.format = parseTraceFormat("csv").value();
  auto t = loadTrace(o);
  QVERIFY(t.ok());
  QCOMPARE(t->requests.size(), std::size_t(2));
  QCOMPARE(t->stats.bad, std::int64_t(1));
  QCOMPARE(t->stats.firstBadLines, std::vector<std::int64_t>{2});
}

void TestTraceReaders::logFormatSplitsOnLiterals() {
  auto f = LogFormat::compile("[$time_local] $remote_addr \"$request\" ${status}ms");
  QVERIFY(f.ok());
  LogFormat::Values v{};
  QVERIFY(f->match("[14/Nov/2023:22:13:20 +0000] 1.2.3.4 \"GET / HTTP/1.1\" 200ms", v));
  QCOMPARE(QString::fromStdString(std::string(v[std::size_t(f->indexOf("request"))])), QString("GET / HTTP/1.1"));
  QVERIFY(!f->match("[14/Nov/2023:22:13:20 +0000] 1.2.3.4 \"GET / HTTP/1.1\" 2000ms", v));
  QVERIFY(!f->match("14/Nov/2023:22:13:20 +0000] 1.2.3.4 \"GET / HTTP/1.1\" 200ms", v));
  QVERIFY(!LogFormat::compile("${status").ok());
}

QTEST_GUILESS_MAIN(TestTraceReaders)
#include "test_trace_readers.moc"
