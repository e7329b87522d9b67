// printableText: what reaches a terminal from trace keys, Redis key names and
// values (issue 25 item 12). Every non-printable byte is \xHH; UTF-8 text stays.
#include <QtTest>

#include "common/printable_text.hpp"

using namespace rl;

class TestPrintableText : public QObject {
  Q_OBJECT
 private slots:
  void escapes_data();
  void escapes();
};

void TestPrintableText::escapes_data() {
  QTest::addColumn<QByteArray>("in");
  QTest::addColumn<QString>("out");
  QTest::newRow("plain") << QByteArray("ratelab:sliding_log:client-7") << "ratelab:sliding_log:client-7";
  QTest::newRow("csi clear screen") << QByteArray("a\x1b[2Jb") << "a\\x1b[2Jb";
  QTest::newRow("osc title and bel") << QByteArray("\x1b]0;owned\x07") << "\\x1b]0;owned\\x07";
  QTest::newRow("nul inside a name") << QByteArray("key\0tail", 8) << "key\\x00tail";
  QTest::newRow("cr lf tab") << QByteArray("a\r\nb\tc") << "a\\x0d\\x0ab\\x09c";
  QTest::newRow("del") << QByteArray("x\x7fy") << "x\\x7fy";
  QTest::newRow("utf-8 kept") << QByteArray("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80") << QString::fromUtf8("café € 😀");
  QTest::newRow("c1 csi escaped") << QByteArray("a\xc2\x9b" "2Jb") << "a\\xc2\\x9b2Jb";
  QTest::newRow("raw 8-bit csi") << QByteArray("a\x9b" "2J") << "a\\x9b2J";
  QTest::newRow("hll header") << QByteArray("HYLL\x01\x00\x00\x00", 8) << "HYLL\\x01\\x00\\x00\\x00";
  QTest::newRow("overlong slash") << QByteArray("\xc0\xaf") << "\\xc0\\xaf";
  QTest::newRow("surrogate") << QByteArray("\xed\xa0\x80") << "\\xed\\xa0\\x80";
  QTest::newRow("truncated utf-8") << QByteArray("\xe2\x82") << "\\xe2\\x82";
  QTest::newRow("backslash stays") << QByteArray("a\\x41") << "a\\x41";
}

void TestPrintableText::escapes() {
  QFETCH(QByteArray, in);
  QFETCH(QString, out);
  QCOMPARE(QString::fromStdString(printableText(std::string_view(in.constData(), std::size_t(in.size())))), out);
}

QTEST_GUILESS_MAIN(TestPrintableText)
#include "test_printable_text.moc"
