// JSON: nlohmann::ordered_json behind RateLab's Result-returning parse and
// never-throwing dump: errors name line and column, nesting is bounded, keys
// keep their order, surrogate pairs become real UTF-8, bad bytes never leak out.

#include <QtTest>

#include <string>

#include "common/json.hpp"

using namespace rl;

class JsonTest : public QObject {
  Q_OBJECT
 private slots:
  void keysKeepTheirOrder();
  void errorsNameLineAndColumn_data();
  void errorsNameLineAndColumn();
  void nestingIsBounded();
  void surrogatePairsAreUtf8();
  void invalidUtf8IsReplacedOnOutput();
};

void JsonTest::keysKeepTheirOrder() {
  Json j;
  j["zeta"] = 1;
  j["alpha"] = 2;
  j["mid"] = Json::array({1, 2});
  QCOMPARE(dumpJson(j), std::string(R"({"zeta":1,"alpha":2,"mid":[1,2]})"));
  const auto back = parseJson(dumpJson(j, 2));
  QVERIFY(back.ok());
  QCOMPARE(back->begin().key(), std::string("zeta"));
}

void JsonTest::errorsNameLineAndColumn_data() {
  QTest::addColumn<QString>("text");
  QTest::addColumn<QString>("prefix");
  QTest::newRow("missing value") << "{\"limit\": 5,\n \"rate\": }" << "JSON line 2 column 10: ";
  QTest::newRow("trailing text") << "{}\n\n x" << "JSON line 3 column 2: ";
  QTest::newRow("unterminated") << "{\"a\": \"b" << "JSON line 1 column ";
  QTest::newRow("empty") << "" << "JSON line 1 column 1: ";
  QTest::newRow("number out of range") << "{\"limit\": 1e400}" << "JSON";
}

void JsonTest::errorsNameLineAndColumn() {
  QFETCH(QString, text);
  QFETCH(QString, prefix);
  const auto r = parseJson(text.toStdString());
  QVERIFY(!r.ok());
  QCOMPARE(r.error().code, ErrorCode::InvalidArgument);
  QVERIFY2(QString::fromStdString(r.error().message).startsWith(prefix), r.error().message.c_str());
}

void JsonTest::nestingIsBounded() {
  auto nested = [](int depth) { return std::string(static_cast<std::size_t>(depth), '[') + std::string(static_cast<std::size_t>(depth), ']'); };
  QVERIFY(parseJson(nested(kJsonMaxDepth)).ok());
  const auto deep = parseJson(nested(kJsonMaxDepth + 1));
  QVERIFY(!deep.ok());
  QCOMPARE(deep.error().message, std::string("JSON: nesting deeper than 64 levels is not allowed"));
  QVERIFY(!parseJson(std::string(1'000'000, '[')).ok());  // refused early, not a million levels deep
}

void JsonTest::surrogatePairsAreUtf8() {
  const auto r = parseJson(R"(["\ud83d\ude00"])");
  QVERIFY(r.ok());
  QCOMPARE((*r)[0].get<std::string>(), std::string("\xF0\x9F\x98\x80"));  // U+1F600 in 4 bytes, not CESU-8
}

void JsonTest::invalidUtf8IsReplacedOnOutput() {
  Json j;
  j["client"] = std::string("ab\xff\xfe");
  const std::string out = dumpJson(j);
  QCOMPARE(out, std::string("{\"client\":\"ab\xEF\xBF\xBD\xEF\xBF\xBD\"}"));
  QVERIFY(parseJson(out).ok());
}

QTEST_APPLESS_MAIN(JsonTest)
#include "test_json.moc"
