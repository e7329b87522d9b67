// The storm settings table: one flag, one scenario key and one allowed text per
// setting; the range validate() checks is the one the table states (and the
// form error repeats); a scenario's unknown key lists the table's keys.

#include <QtTest>

#include <set>

#include "storm/storm_settings.hpp"

using namespace rl;

class SettingsTableTest : public QObject {
  Q_OBJECT
 private slots:
  void namesFlagsAndKeysAreOneEach();
  void rangesAreTheOnesValidateChecks();
  void unknownScenarioKeyListsTheTable();
  void printedTableHasEveryRow();
  void repeatedSettingsTakeOneElementEach();
};

void SettingsTableTest::namesFlagsAndKeysAreOneEach() {
  std::set<std::string> names, flags, keys;
  for (const StormSetting& s : stormSettings()) {
    QVERIFY2(names.insert(std::string(s.name)).second, s.flag.c_str());
    QVERIFY2(flags.insert(s.flag).second, s.flag.c_str());
    QVERIFY2(keys.insert(s.scenarioKey).second, s.flag.c_str());
    std::string dashed(s.name);
    std::replace(dashed.begin(), dashed.end(), '_', '-');
    QCOMPARE(s.flag, dashed);
    QCOMPARE(s.scenarioKey, s.name == "quota_change" ? std::string("quota_changes") : std::string(s.name));
    QVERIFY2(!s.allowed.empty() && s.apply, s.flag.c_str());
    QCOMPARE(findStormSetting(s.name), &s);
  }
  QCOMPARE(stormSettings().size(), std::size_t{52});
  QVERIFY(!isStormSetting("window-ms"));  // names are underscore form
  QVERIFY(!isStormSetting("quota_changes"));  // a scenario key, not a setting's name
  StormSpec spec;
  const auto unknown = applyStormSetting(spec, "burst", "3", "--burst");
  QCOMPARE(QString::fromStdString(unknown.error().message), QString("--burst is not a storm setting"));
}

// For every setting with a range: its bounds pass applyStormSetting and validate(); one past either
// bound is refused, by the form check (whose text states the same range) or by validate(), whose
// message is the table's.
void SettingsTableTest::rangesAreTheOnesValidateChecks() {
  int ranged = 0;
  for (const StormSetting& row : stormSettings()) {
    if (!row.range) continue;
    ++ranged;
    const std::string range = rangeText(row);
    QVERIFY2(row.allowed.find(range) != std::string::npos, row.flag.c_str());
    const auto text = [](double v) { return std::to_string(static_cast<std::int64_t>(v)); };
    const auto spec = [&] {
      StormSpec s;
      s.requests = 10;
      if (row.name.starts_with("wait_")) s.backend = Backend::RedisLua;
      if (row.name == "wait_timeout_ms") s.resilience.waitReplicas = 1;
      if (row.name.starts_with("http_")) {
        s.backend = Backend::Http;
        s.http.targets = {"http://127.0.0.1:1"};
      }
      if (row.name == "requests") s.requests = 0;
      return s;
    };
    for (double v : {row.range->lo, row.range->hi}) {
      StormSpec s = spec();
      const auto set = applyStormSetting(s, row.name, text(v), "--" + row.flag);
      QVERIFY2(set.ok(), (row.flag + " " + text(v) + ": " + set.error().message).c_str());
      const auto ok = validate(s);
      QVERIFY2(ok.ok(), (row.flag + " " + text(v) + ": " + ok.error().message).c_str());
    }
    for (double v : {row.range->lo - 1, row.range->hi + 1}) {
      StormSpec s = spec();
      const auto set = applyStormSetting(s, row.name, text(v), "--" + row.flag);
      if (!set) {  // refused by its form: the message states the range
        QVERIFY2(set.error().message.find("allowed " + row.allowed) != std::string::npos, set.error().message.c_str());
        continue;
      }
      const auto ok = validate(s);
      QVERIFY2(!ok, (row.flag + " " + text(v)).c_str());
      QCOMPARE(ok.error().message, "--" + row.flag + " " + text(v) + " is out of range: allowed " + range);
    }
  }
  QCOMPARE(ranged, 10);
}

void SettingsTableTest::unknownScenarioKeyListsTheTable() {
  const auto spec = specFromJson(parseJson(R"({"limit": 5, "burst": 3})").value());
  QVERIFY(!spec);
  const std::string& m = spec.error().message;
  QVERIFY2(m.starts_with("scenario key 'burst' is unknown: allowed name, description, window, backend, redis"), m.c_str());
  for (const StormSetting& s : stormSettings())
    QVERIFY2(m.find(", " + s.scenarioKey) != std::string::npos, s.scenarioKey.c_str());
}

void SettingsTableTest::printedTableHasEveryRow() {
  const QStringList lines = QString::fromStdString(stormSettingsTable()).split('\n', Qt::SkipEmptyParts);
  QCOMPARE(lines.size(), static_cast<qsizetype>(stormSettings().size()) + 1);
  for (std::size_t i = 0; i < stormSettings().size(); ++i) {
    const StormSetting& s = stormSettings()[i];
    const QString line = lines[static_cast<qsizetype>(i) + 1];
    QVERIFY2(line.startsWith(QString::fromStdString("--" + s.flag + " ")), qPrintable(line));
    QVERIFY2(line.contains(QString::fromStdString(" " + s.scenarioKey + " ")), qPrintable(line));
    QVERIFY2(line.endsWith(QString::fromStdString(s.allowed)), qPrintable(line));
  }
  QVERIFY(lines.contains(QRegularExpression(R"(^--replicas +replicas +an integer 1 to 64$)")));
}

void SettingsTableTest::repeatedSettingsTakeOneElementEach() {
  const auto spec = specFromJson(parseJson(R"({"http_header": ["A: 1,2", "B: 3"],
      "quota_changes": ["1000:limit=3,window_ms=500", "2000:limit=4"], "skew_ms": [5, -5], "replicas": 2})").value());
  QVERIFY2(spec.ok(), spec ? "" : spec.error().message.c_str());
  QCOMPARE(spec->http.headers, (std::vector<std::string>{"A: 1,2", "B: 3"}));
  QCOMPARE(spec->quotaChanges.size(), std::size_t{2});
  QCOMPARE(spec->skew, (std::vector<Micros>{Micros{5000}, Micros{-5000}}));
  const auto bad = specFromJson(parseJson(R"({"quota_changes": [1000]})").value());
  QCOMPARE(QString::fromStdString(bad.error().message),
           QString("scenario key 'quota_changes': allowed an array of strings, each AT_MS:limit=N,window_ms=W,"
                   "refill_rate=R (any of the three, at least one)"));
}

QTEST_GUILESS_MAIN(SettingsTableTest)
#include "test_settings_table.moc"
