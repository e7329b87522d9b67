// ratelab-cli run, race and tune --report: one self-contained HTML file, opened in a real
// headless Chromium (Debian's `chromium`), which must parse it, draw its charts
// and load nothing. The table and the embedded run document carry the same
// numbers as `run --json`.

#include <QtTest>

#include <QImage>
#include <QJsonArray>
#include <QRegularExpression>

#include "support/cli_process.hpp"
#include "support/report_page.hpp"
#include "support/checked.hpp"

using rl::test::embeddedDocument;
using rl::test::runCli;

namespace {
const QString kBoundary = QStringLiteral(RATELAB_SOURCE_DIR "/resources/scenarios/boundary.json");

bool near(QColor c, QColor color, int tolerance) {
  return std::abs(c.red() - color.red()) <= tolerance && std::abs(c.green() - color.green()) <= tolerance &&
         std::abs(c.blue() - color.blue()) <= tolerance;
}

/// Pixels of `img` within `tolerance` of `color` on every channel.
int pixelsNear(const QImage& img, QColor color, int tolerance = 8) {
  int n = 0;
  for (int y = 0; y < img.height(); ++y)
    for (int x = 0; x < img.width(); ++x) n += near(img.pixelColor(x, y), color, tolerance) ? 1 : 0;
  return n;
}

/// Columns of `img` with a vertical run of at least `run` pixels near `color`: a band, not a legend swatch.
int columnsWithRun(const QImage& img, QColor color, int run, int tolerance = 6) {
  int columns = 0;
  for (int x = 0; x < img.width(); ++x) {
    int here = 0, best = 0;
    for (int y = 0; y < img.height(); ++y) best = std::max(best, here = near(img.pixelColor(x, y), color, tolerance) ? here + 1 : 0);
    columns += best >= run ? 1 : 0;
  }
  return columns;
}
}  // namespace

class CliReportTest : public QObject {
  Q_OBJECT
 private slots:
  void boundaryReportCarriesTheRunsNumbers();
  void chromiumDrawsEveryChartAndLoadsNothing();
  void virtualBurstIsDrawnByDecision();
  void raceReportDrawsEachVariantAgainstTheCapacity();
  void tuneReportLeadsWithTheRecommendation();
  void badReportPathFailsBeforeTheRun_data();
  void badReportPathFailsBeforeTheRun();

 private:
  QTemporaryDir dir_;
};

void CliReportTest::boundaryReportCarriesTheRunsNumbers() {
  const QString path = dir_.filePath("boundary.html");
  const auto c = runCli({"run", "--scenario", kBoundary, "--report", path});
  QVERIFY2(c.exitCode == 0, c.err.constData());
  QVERIFY(c.err.contains("report: " + path.toUtf8()));
  QVERIFY(!QFile::exists(path + ".part"));
  const QByteArray html = rl::test::readReport(path);
  QVERIFY(html.contains("<h1>Window boundary</h1>"));  // the scenario's own name
  QVERIFY(html.contains("<td>quota</td><td>100 req / 60s</td>"));
  QVERIFY(html.contains("<td>Redis</td><td>not used</td>"));
  // The fixed window lets 2x its limit through within one window length: 200 in the table.
  QVERIFY(html.contains("<tr><td>fixed_window</td><td>memory</td><td class=\"n\">400</td><td class=\"n\">200</td><td class=\"n\">200</td>"
                            "<td class=\"n\">0</td><td class=\"n\">200</td>"));
  // The embedded document is `run --json`'s, decision for decision.
  const auto json = runCli({"run", "--scenario", kBoundary, "--json"});
  QCOMPARE(json.exitCode, 0);
  const QJsonArray cli = json.json()["runs"].toArray();
  const QJsonArray embedded = embeddedDocument(html)["runs"].toArray();
  QCOMPARE(embedded.size(), 6);
  QCOMPARE(embedded.size(), cli.size());
  for (int i = 0; i < cli.size(); ++i)
    for (const char* field : {"algorithm", "offered", "admitted", "denied", "max_admitted_in_window", "overshoot", "over_limit"})
      QCOMPARE(embedded[i].toObject()[field], cli[i].toObject()[field]);
  // Seven charts: one lane per algorithm and the levels; the x axis starts at the burst (59 s), not at 0.
  QCOMPARE(html.count("<svg class=\"chart\""), 7);
  QVERIFY(html.contains("s since the storm started"));
  QVERIFY(html.contains("text-anchor=\"middle\">59</text>"));
  QVERIFY(html.contains("over the limit (1 admission)"));  // sliding_counter's one, and its band
}

void CliReportTest::chromiumDrawsEveryChartAndLoadsNothing() {
  const QString path = dir_.filePath("boundary.html");
  if (!QFile::exists(path)) QVERIFY(runCli({"run", "--scenario", kBoundary, "--report", path}).exitCode == 0);
  const QByteArray html = rl::test::readReport(path);
  // Nothing to load: no external src, href or stylesheet; the only URL is SVG's namespace name.
  QVERIFY(!html.contains("src=") && !html.contains("href=") && !html.contains("<link"));
  QCOMPARE(html.count("://"), html.count("http://www.w3.org/2000/svg"));
  QVERIFY(html.contains("default-src 'none'"));  // and the page itself forbids fetching anything
  // The browser parses it: its DOM has the seven charts and every series path.
  RL_CHECKED(dom, rl::test::headlessChromium(dir_, {"--dump-dom", QUrl::fromLocalFile(path).toString()}));
  QCOMPARE(dom.count("<svg class=\"chart\""), 7);
  QCOMPARE(dom.count("class=\"series\""), html.count("class=\"series\""));
  QVERIFY(dom.contains("id=\"run-document\""));
  // And draws it: a full-page screenshot holds the admitted lines, the denied lines and the band.
  const QString png = dir_.filePath("boundary.png");
  const auto shot = rl::test::headlessChromium(dir_, {"--window-size=1024,3200", "--screenshot=" + png, QUrl::fromLocalFile(path).toString()});
  QVERIFY2(shot, shot ? "" : shot.error().message.c_str());
  const QImage img(png);
  QVERIFY2(!img.isNull(), "chromium wrote no screenshot");
  QCOMPARE(img.width(), 1024);
  const int blue = pixelsNear(img, QColor(0x2a, 0x7a, 0xb9));
  const int orange = pixelsNear(img, QColor(0xe0, 0x8a, 0x1e));
  const int band = columnsWithRun(img, QColor(243, 190, 190), 40);  // #d62728 at 30 % over white, the plot's height
  qInfo("admitted-blue %d, denied-orange %d pixels, band %d columns", blue, orange, band);
  QVERIFY(blue > 6 * 300);    // six lanes' admitted lines (and the level legend)
  QVERIFY(orange > 6 * 300);  // six lanes' denied lines
  QVERIFY(band >= 2);         // sliding_counter's over-limit band, at least three pixels wide
  QFile::copy(png, QStringLiteral(RATELAB_BINARY_DIR "/test_cli_report_boundary.png"));
}

void CliReportTest::virtualBurstIsDrawnByDecision() {
  // 30 requests in one burst on the virtual clock: faster than one per µs, so by decision number.
  const QString path = dir_.filePath("burst.html");
  const auto c = runCli({"run", "--algorithm", "token_bucket", "--limit", "10", "--pattern", "burst", "--requests", "30",
                         "--report", path});
  QVERIFY2(c.exitCode == 0, c.err.constData());
  const QByteArray html = rl::test::readReport(path);
  QVERIFY(html.contains("decision number (faster than one per \xC2\xB5s of the virtual clock)"));
  QCOMPARE(embeddedDocument(html)["runs"].toArray()[0].toObject()["admitted"].toInt(), 10);
}

void CliReportTest::raceReportDrawsEachVariantAgainstTheCapacity() {
  // On a private redis-server the CLI starts itself (never :6379).
  const QString path = dir_.filePath("race.html");
  const auto c = runCli({"race", "--redis", "managed", "--rounds", "20", "--limit", "10", "--concurrency", "20", "--report", path});
  QVERIFY2(c.exitCode == 0, c.err.constData());
  const QByteArray html = rl::test::readReport(path);
  QVERIFY(!html.contains("<td>Redis</td><td>not used</td>") && html.contains("<td>Redis</td><td>"));
  const QJsonArray variants = embeddedDocument(html)["variants"].toArray();
  QCOMPARE(variants.size(), 3);
  for (const QJsonValue v : variants) {
    const QJsonObject o = v.toObject();
    if (o["name"].toString() == "naive") continue;  // how far it leaks depends on the interleaving
    QCOMPARE(o["admitted_min"].toInt(), 10);       // the atomic variants: exactly the capacity, every round
    QCOMPARE(o["admitted_max"].toInt(), 10);
  }
  QVERIFY(html.contains("<tr><td>lua</td><td class=\"n\">10</td><td class=\"n\">10</td><td class=\"n\">10</td><td class=\"n\">0</td>"));
  // One chart per variant, each with its capacity line; the browser parses all three.
  QCOMPARE(html.count("<svg class=\"chart\""), 3);
  QCOMPARE(html.count("<title>capacity 10</title>"), 3);  // a drawn capacity path in each chart
  RL_CHECKED(dom, rl::test::headlessChromium(dir_, {"--dump-dom", QUrl::fromLocalFile(path).toString()}));
  QCOMPARE(dom.count("<svg class=\"chart\""), 3);
}

void CliReportTest::tuneReportLeadsWithTheRecommendation() {
  // 3 clients, 10 requests in each of 10 seconds (spread within the second): 10 req/s (burst 10)
  // is the smallest token bucket of the grid that denies none of them; 5 denies about half.
  QByteArray log;
  for (int second = 0; second < 10; ++second)
    for (int client = 1; client <= 3; ++client)
      for (int k = 0; k < 10; ++k)
        log += QString("10.0.0.%1 - - [04/Dec/2026:10:00:%2 +0000] \"GET / HTTP/1.1\" 200 1 \"-\" \"t\"\n")
                   .arg(client).arg(second, 2, 10, QChar('0')).toUtf8();
  const QString trace = rl::test::writeFile(dir_, "access.log", log);
  const QString path = dir_.filePath("tune.html");
  const auto c = runCli({"tune", "--trace", trace, "--limit", "5:30:5", "--report", path});
  QVERIFY2(c.exitCode == 0, c.err.constData());
  const QByteArray html = rl::test::readReport(path);
  QVERIFY(html.contains("<td>trace</td><td>300 requests from 3 clients"));
  // The recommendation is the first section, and the embedded document is tune --json's.
  const auto recommendation = html.indexOf("<h2>Recommendation</h2>");
  QVERIFY(recommendation > 0 && recommendation < html.indexOf("<h2>The sweep</h2>"));
  QVERIFY(html.contains("token_bucket: 10 req/s (burst 10) denies 0% of legitimate requests and admits at most 10"));
  const QJsonObject recommended = embeddedDocument(html)["algorithms"].toArray()[0].toObject()["recommended"].toObject();
  QCOMPARE(recommended["quota"].toString(), QString("10 req/s (burst 10)"));
  QCOMPARE(recommended["legit_denied"].toInt(), 0);
  QCOMPARE(html.count("<svg class=\"chart\""), 1);  // legitimate denied by limit, one line per window
  // The heatmap, as the Tune panel draws it, after the recommendation: one cell per limit (one window), the
  // recommended one ringed and green (none denied), the smallest limit red (about half denied).
  const auto maps = html.indexOf("<h2>Heatmaps</h2>");
  QVERIFY(maps > recommendation && maps < html.indexOf("<h2>The sweep</h2>"));
  QCOMPARE(html.count("<svg class=\"chart heatmap\""), 1);
  QCOMPARE(html.count("<rect class=\"cell\""), 6);
  QVERIFY(html.contains("<title>recommended: 10 req/s (burst 10)</title>"));
  QVERIFY(html.contains("fill=\"rgb(46,160,67)\"><title>10 req/s (burst 10): legit denied 0.0000% (0 of 300)"));
  QVERIFY(html.contains("fill=\"rgb(215,58,73)\"><title>5 req/s (burst 5): legit denied"));
  QCOMPARE(html.count("class=\"contour\""), 1);  // one column: the target's line between burst 5 and burst 10
  QCOMPARE(html.count("class=\"scale\""), 48);  // the colour legend
  QVERIFY(html.contains(">0.1% target</text>"));
  RL_CHECKED(dom, rl::test::headlessChromium(dir_, {"--dump-dom", QUrl::fromLocalFile(path).toString()}));
  QCOMPARE(dom.count("<svg class=\"chart\""), 1);
  QCOMPARE(dom.count("<rect class=\"cell\""), 6);
  QCOMPARE(dom.count("<circle class=\"recommended\""), 1);
}

void CliReportTest::badReportPathFailsBeforeTheRun_data() {
  QTest::addColumn<QString>("path");
  QTest::addColumn<QString>("message");
  QTest::newRow("no extension") << dir_.filePath("report") << "must end in .html or .htm";
  QTest::newRow("missing folder") << dir_.filePath("no/such/dir/r.html") << "cannot write";
}

void CliReportTest::badReportPathFailsBeforeTheRun() {
  QFETCH(QString, path);
  QFETCH(QString, message);
  // A storm of a whole minute on the wall clock: the error must come at once, not after it.
  QElapsedTimer t;
  t.start();
  const auto c = runCli({"run", "--clock", "client", "--duration-ms", "60000", "--rate", "10", "--report", path});
  QCOMPARE(c.exitCode, 2);
  QVERIFY2(c.err.contains("--report: ") && c.err.contains(message.toUtf8()), c.err.constData());
  QCOMPARE(c.err.count('\n'), 1);
  QVERIFY(t.elapsed() < 30'000);
  QVERIFY(!QFile::exists(path));
}

QTEST_GUILESS_MAIN(CliReportTest)
#include "test_cli_report.moc"
