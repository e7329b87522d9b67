// The report's SVG charts: escaping, what the legend names, where points land.

#include <QtTest>

#include "report/svg_bars.hpp"
#include "report/svg_chart.hpp"

using namespace rl;

class SvgChartTest : public QObject {
  Q_OBJECT
 private slots:
  void textIsEscaped();
  void legendNamesOnlyWhatIsDrawn();
  void pointsLandOnTheirPixels();
  void barsAreProportionalAndZeroStillShows();
};

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

void SvgChartTest::barsAreProportionalAndZeroStillShows() {
  SvgBars c{"TTL", "TTL / need", "keys", {{"<= bound", 40, "#2a7ab9"}, {"none", 0, "#999"}, {"<c>", 10, "#c43c3c"}}, 960, 220};
  const QString svg = QString::fromStdString(renderBars(c));
  QRegularExpression bar("<rect class=\"bar\" x=\"[0-9.]+\" y=\"([0-9.]+)\" width=\"([0-9.]+)\" height=\"([0-9.]+)\"");
  QList<double> heights, bottoms;
  for (auto it = bar.globalMatch(svg); it.hasNext();) {
    const auto m = it.next();
    heights << m.captured(3).toDouble();
    bottoms << m.captured(1).toDouble() + m.captured(3).toDouble();
    QVERIFY(qAbs(m.captured(2).toDouble() - 880.0 / 3 * 0.7) < 0.06);  // three slots across the 880 px plot, 70 % each
  }
  QCOMPARE(heights.size(), 3);
  for (double b : bottoms) QVERIFY2(qAbs(b - 176.0) < 0.11, qPrintable(QString::number(b)));  // on the axis: y 28 + plot 148
  QVERIFY2(qAbs(heights[0] - 4 * heights[2]) < 0.3, qPrintable(svg));  // 40 is four times 10
  QCOMPARE(heights[1], 1.0);                                           // a zero count: a hairline, not nothing
  QVERIFY(svg.contains("<title>none: 0</title>"));
  QVERIFY(svg.contains(">&lt;c&gt;</text>") && !svg.contains("<c>"));  // labels are escaped
}

QTEST_GUILESS_MAIN(SvgChartTest)
#include "test_svg_chart.moc"
