// The fault schedule's text form: what parses to what, what prints back, which
// windows it makes, and the one error each bad spec gets (naming the part
// that is wrong and what is allowed).

#include <QtTest>

#include "storm/fault_schedule.hpp"
#include "storm/storm_settings.hpp"

using namespace rl;

class FaultScheduleTest : public QObject {
  Q_OBJECT
 private slots:
  void parsesAndPrints_data();
  void parsesAndPrints();
  void refusesBadSpecs_data();
  void refusesBadSpecs();
  void windowsPairKillWithRestart();
  void specNeedsRedisRealClockAndTime();
  void scenarioKeyRoundTrips();
};

void FaultScheduleTest::parsesAndPrints_data() {
  QTest::addColumn<QString>("text");
  QTest::addColumn<QString>("printed");
  QTest::newRow("kill restart") << "kill@1000,restart@2000" << "kill@1000,restart@2000";
  QTest::newRow("pause S:E") << "pause@1000:1500" << "pause@1000:1500";
  QTest::newRow("pause S+D") << "pause@1000+500" << "pause@1000:1500";
  QTest::newRow("ms suffixes") << "oom@100ms:200ms" << "oom@100:200";
  QTest::newRow("latency") << "latency@1000:2000:50ms" << "latency@1000:2000:50ms";
  QTest::newRow("latency S+D") << "latency@1000+1000:50" << "latency@1000:2000:50ms";
  QTest::newRow("sorted by time") << "readonly@3000:3500,oom@1000:2000" << "oom@1000:2000,readonly@3000:3500";
  QTest::newRow("back to back") << "pause@0:100,oom@100:200" << "pause@0:100,oom@100:200";
  QTest::newRow("empty") << "" << "";
}

void FaultScheduleTest::parsesAndPrints() {
  QFETCH(QString, text);
  QFETCH(QString, printed);
  auto events = parseFaultSchedule(text.toStdString());
  QVERIFY2(events.ok(), events.ok() ? "" : events.error().message.c_str());
  QCOMPARE(QString::fromStdString(faultScheduleText(events.value())), printed);
  auto again = parseFaultSchedule(faultScheduleText(events.value()));
  QVERIFY(again.ok());
  QVERIFY(again.value() == events.value());
}

void FaultScheduleTest::refusesBadSpecs_data() {
  QTest::addColumn<QString>("text");
  QTest::addColumn<QString>("message");
  QTest::newRow("no @") << "kill" << "--fault 'kill': missing '@TIME': allowed kill@T";
  QTest::newRow("unknown kind") << "crash@1" << "--fault 'crash@1': unknown fault 'crash': allowed kill@T";
  QTest::newRow("window missing") << "pause@1000" << "--fault 'pause@1000': pause needs a window: allowed pause@START:END or pause@START+DURATION (ms)";
  QTest::newRow("end before start") << "oom@2000:1000" << "--fault 'oom@2000:1000': the window ends before it starts";
  QTest::newRow("zero duration") << "readonly@1000+0" << "--fault 'readonly@1000+0': the window ends before it starts";
  QTest::newRow("bad start") << "pause@x:10" << "--fault 'pause@x:10': the start 'x' is not valid: allowed integer ms 0 to 86400000";
  QTest::newRow("huge number") << "oom@1e400:2" << "--fault 'oom@1e400:2': the start '1e400' is not valid";
  QTest::newRow("negative") << "kill@-5" << "--fault 'kill@-5': the time '-5' is not valid";
  QTest::newRow("past a day") << "pause@86399000+2000" << "the window ends after 86400000 ms";
  QTest::newRow("latency without stall") << "latency@1000:2000" << "latency needs a stall: allowed latency@START:END:MS";
  QTest::newRow("stall too long") << "latency@0:100:10001ms" << "the stall '10001ms' is not valid: allowed 1 to 10000 ms";
  QTest::newRow("overlap") << "pause@100:500,oom@400:800" << "--fault 'oom@400:800': overlaps pause@100:500: allowed one fault at a time";
  QTest::newRow("restart first") << "restart@100" << "--fault 'restart@100': restart needs an earlier kill";
  QTest::newRow("fault while killed") << "kill@100,pause@200:300,restart@400" << "--fault 'pause@200:300': the server is down then";
  QTest::newRow("kill twice") << "kill@100,kill@200" << "--fault 'kill@200': the server is down then";
  QTest::newRow("restart with kill") << "kill@100,restart@100" << "restart at the kill's time";
  QTest::newRow("empty item") << "kill@1,,restart@2" << "--fault: an empty item";
}

void FaultScheduleTest::refusesBadSpecs() {
  QFETCH(QString, text);
  QFETCH(QString, message);
  auto events = parseFaultSchedule(text.toStdString());
  QVERIFY(!events.ok());
  QCOMPARE(events.error().code, ErrorCode::InvalidArgument);
  QVERIFY2(events.error().message.find(message.toStdString()) != std::string::npos, events.error().message.c_str());
}

void FaultScheduleTest::windowsPairKillWithRestart() {
  auto events = parseFaultSchedule("kill@1000,restart@2000,pause@2500:3000,kill@4000");
  QVERIFY(events.ok());
  const auto w = faultWindows(events.value());
  QCOMPARE(w.size(), std::size_t{3});
  QCOMPARE(QString::fromStdString(w[0].label), QString("kill@1000,restart@2000"));
  QCOMPARE(w[0].startUs, 1'000'000);
  QCOMPARE(w[0].endUs, 2'000'000);
  QCOMPARE(w[1].kind, FaultKind::Pause);
  QCOMPARE(w[1].endUs, 3'000'000);
  QCOMPARE(w[2].endUs, -1);  // no restart: until the run ends
  QCOMPARE(faultScheduleEnd(events.value()), Micros{4'000'000});
}

void FaultScheduleTest::specNeedsRedisRealClockAndTime() {
  StormSpec s;
  s.backend = Backend::RedisLua;
  s.clock = ClockMode::Client;
  s.pattern = Pattern::Constant;
  s.rate = 100;
  s.requests = 300;  // 3 s
  s.faults = parseFaultSchedule("pause@1000:2000").value();
  QVERIFY(validate(s).ok());
  auto expect = [](StormSpec spec, const char* part) {
    auto ok = validate(spec);
    QVERIFY(!ok.ok());
    QVERIFY2(ok.error().message.find(part) != std::string::npos, ok.error().message.c_str());
  };
  StormSpec memory = s;
  memory.backend = Backend::Memory;
  expect(memory, "--fault acts on the managed redis-server: allowed with --backend redis-lua");
  StormSpec virt = s;
  virt.clock = ClockMode::Virtual;
  expect(virt, "--fault happens on the wall clock: allowed with --clock client or server");
  StormSpec burst = s;
  burst.pattern = Pattern::Burst;
  expect(burst, "--fault needs traffic that lasts");
  StormSpec late = s;
  late.faults = parseFaultSchedule("oom@2500:3500").value();
  expect(late, "--fault 'oom@2500:3500' ends at 3500 ms, after the run's last send at 3000 ms");
  StormSpec compare = s;
  compare.compareBackends = {Backend::RedisWatch};
  expect(compare, "--fault runs once");
}

void FaultScheduleTest::scenarioKeyRoundTrips() {
  StormSpec s;
  QVERIFY(applyStormSetting(s, "fault", "kill@100,restart@200", "scenario key 'fault'").ok());
  QCOMPARE(s.faults.size(), std::size_t{2});
  const Json doc = specToJson(s);
  QCOMPARE(QString::fromStdString(doc["fault"].get<std::string>()), QString("kill@100,restart@200"));
  auto back = specFromJson(doc);
  QVERIFY(back.ok());
  QVERIFY(back->faults == s.faults);
  auto bad = applyStormSetting(s, "fault", "pause@5", "scenario key 'fault'");
  QVERIFY(!bad.ok());
  QVERIFY(bad.error().message.starts_with("scenario key 'fault' 'pause@5': pause needs a window"));
}

QTEST_GUILESS_MAIN(FaultScheduleTest)
#include "test_fault_schedule.moc"
