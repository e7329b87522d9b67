// Chart axes for the window and the report: 1-2-5 ticks, and where a time axis starts.

#include <QtTest>

#include "metrics/chart_axis.hpp"

using namespace rl;

class ChartAxisTest : public QObject {
  Q_OBJECT
 private slots:
  void niceTicksCoverTheRange_data();
  void niceTicksCoverTheRange();
  void lateStormsStartAtTheirFirstDecision_data();
  void lateStormsStartAtTheirFirstDecision();
};

void ChartAxisTest::niceTicksCoverTheRange_data() {
  QTest::addColumn<double>("min");
  QTest::addColumn<double>("max");
  QTest::addColumn<int>("most");
  QTest::addColumn<QList<double>>("ticks");
  QTest::newRow("0..70 s, 8") << 0.0 << 70.0 << 8 << QList<double>{0, 10, 20, 30, 40, 50, 60, 70};
  QTest::newRow("59..61 s") << 59.0 << 61.0 << 4 << QList<double>{59, 59.5, 60, 60.5, 61};
  QTest::newRow("counts 0..4.4") << 0.0 << 4.4 << 4 << QList<double>{0, 2, 4, 6};
  QTest::newRow("empty range") << 3.0 << 3.0 << 4 << QList<double>{3, 4};
}

void ChartAxisTest::niceTicksCoverTheRange() {
  QFETCH(double, min);
  QFETCH(double, max);
  QFETCH(int, most);
  QFETCH(QList<double>, ticks);
  const std::vector<double> got = niceTicks(min, max, most);
  QCOMPARE(QList<double>(got.begin(), got.end()), ticks);
}

void ChartAxisTest::lateStormsStartAtTheirFirstDecision_data() {
  QTest::addColumn<double>("first");
  QTest::addColumn<double>("span");
  QTest::addColumn<double>("start");
  QTest::newRow("boundary burst at 59 of 61 s") << 59.0 << 61.0 << 59.0;
  QTest::newRow("within the first tenth") << 0.5 << 10.0 << 0.0;
  QTest::newRow("from 0") << 0.0 << 10.0 << 0.0;
  QTest::newRow("first past the span") << 12.0 << 10.0 << 0.0;
}

void ChartAxisTest::lateStormsStartAtTheirFirstDecision() {
  QFETCH(double, first);
  QFETCH(double, span);
  QFETCH(double, start);
  QCOMPARE(axisStartSeconds(first, span), start);
}

QTEST_GUILESS_MAIN(ChartAxisTest)
#include "test_chart_axis.moc"
