// durationText: milliseconds in the words the inspector and the CLI show, a table of (ms -> text).

#include <QtTest>

#include "common/duration_text.hpp"

class DurationTextTest : public QObject {
  Q_OBJECT
 private slots:
  void spoken_data();
  void spoken();
};

void DurationTextTest::spoken_data() {
  QTest::addColumn<qint64>("ms");
  QTest::addColumn<QString>("text");
  QTest::newRow("zero") << qint64{0} << "0 ms";
  QTest::newRow("ms") << qint64{250} << "250 ms";
  QTest::newRow("just under 1 s") << qint64{999} << "999 ms";
  QTest::newRow("1 s") << qint64{1000} << "1.0 s";
  QTest::newRow("tenths") << qint64{59'200} << "59.2 s";
  QTest::newRow("rounds to a minute") << qint64{59'960} << "1 min";
  QTest::newRow("min s") << qint64{192'000} << "3 min 12 s";
  QTest::newRow("min s rounded") << qint64{192'499} << "3 min 12 s";
  QTest::newRow("whole minutes") << qint64{600'000} << "10 min";
  QTest::newRow("h min") << qint64{7'500'000} << "2 h 5 min";
  QTest::newRow("rounds to an hour") << qint64{3'599'700} << "1 h";
  QTest::newRow("d h") << qint64{3 * 86'400'000 + 4 * 3'600'000} << "3 d 4 h";
  QTest::newRow("negative is 0") << qint64{-5} << "0 ms";
}

void DurationTextTest::spoken() {
  QFETCH(qint64, ms);
  QFETCH(QString, text);
  QCOMPARE(QString::fromStdString(rl::durationText(ms)), text);
}

QTEST_GUILESS_MAIN(DurationTextTest)
#include "test_duration_text.moc"
