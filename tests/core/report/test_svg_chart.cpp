// The report's SVG charts: ticks, escaping, what the legend names, where points land.

#include <QtTest>

#include "report/svg_chart.hpp"

using namespace rl;

class SvgChartTest : public QObject {
  Q_OBJECT
 private slots:
  void niceTicksCoverTheRange_data();
  void niceTicksCoverTheRange();
  void textIsEscaped();
  void legendNamesOnlyWhatIsDrawn();
  void pointsLandOnTheirPixels();
};

void SvgChartTest::niceTicksCoverTheRange_data() {
  QTest::addColumn<double>("min");
  QTest::addColumn<double>("max");
  QTest::addColumn<int>("most");
  QTest::addColumn<QList<double>>("ticks");
  QTest::newRow("0..70 s, 8") << 0.0 << 70.0 << 8 << QList<double>{0, 10, 20, 30, 40, 50, 60, 70};
  QTest::newRow("59..61 s") << 59.0 << 61.0 << 4 << QList<double>{59, 59.5, 60, 60.5, 61};
  QTest::newRow("counts 0..4.4") << 0.0 << 4.4 << 4 << QList<double>{0, 2, 4, 6};
  QTest::newRow("empty range") << 3.0 << 3.0 << 4 << QList<double>{3, 4};
}

void SvgChartTest::niceTicksCoverTheRange() {
  QFETCH(double, min);
  QFETCH(double, max);
  QFETCH(int, most);
  QFETCH(QList<double>, ticks);
  const std::vector<double> got = niceTicks(min, max, most);
  QCOMPARE(QList<double>(got.begin(), got.end()), ticks);
}

void SvgChartTest::textIsEscaped() {
  QCOMPARE(QString::fromStdString(xmlEscaped("a<b & \"c\" 'd'>")), QString("a&lt;b &amp; &quot;c&quot; &#39;d&#39;&gt;"));
  SvgChart c;
  c.title = "</svg><script>alert(1)</script>";
  const std::string svg = renderSvg(c);
  QVERIFY(svg.find("<script>") == std::string::npos);
  QVERIFY(svg.find("&lt;/svg&gt;&lt;script&gt;") != std::string::npos);
}

void SvgChartTest::legendNamesOnlyWhatIsDrawn() {
  SvgChart c;
  c.xMax = 10;
  c.series.push_back({"admitted", "#2a7ab9", {{0, 1}, {5, 3}}, false, false, true});
  c.series.push_back({"nothing here", "#e08a1e", {}, true, false, true});
  c.bandLabel = "over the limit";
  const std::string svg = renderSvg(c);
  QVERIFY(svg.find(">admitted<") != std::string::npos);
  QVERIFY(svg.find("nothing here") == std::string::npos);    // an empty series has no legend entry
  QVERIFY(svg.find("over the limit") == std::string::npos);  // no band, no band entry
  QVERIFY(svg.find("right axis") == std::string::npos);
  c.bands.push_back({2, 2});
  QVERIFY(renderSvg(c).find("over the limit") != std::string::npos);
}

void SvgChartTest::pointsLandOnTheirPixels() {
  // 960 x 250: the plot is x 64..944 (no right axis: 16 px margin), y 46..208.
  SvgChart c;
  c.xMax = 10;  // ticks 0..10: x = 64 + 88 per unit
  c.series.push_back({"admitted", "#2a7ab9", {{0, 0}, {5, 2}}, false, false, true});  // y ticks 0..4 (the floor of 4)
  const std::string svg = renderSvg(c);
  QVERIFY2(svg.find("d=\"M64.0 208.0H504.0V127.0H944.0\"") != std::string::npos, svg.c_str());
}

QTEST_GUILESS_MAIN(SvgChartTest)
#include "test_svg_chart.moc"
