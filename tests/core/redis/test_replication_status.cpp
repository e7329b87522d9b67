// The INFO replication parser and its one sentence, on literal replies: a
// master with two replicas (as Redis 7.0 writes it), with none, a replica's
// own INFO, slaveN lines with a field missing or out of bounds (skipped and
// counted), a reply with more replica lines than are read, and text that is
// not INFO at all. No server: the reply is the input.

#include <QtTest>

#include <string>

#include "redis/replication_status.hpp"

using namespace rl;

namespace {
// A master's INFO replication with `slaves` pasted in as its slaveN lines.
std::string masterInfo(const std::string& slaves, int connected, long long offset = 1234) {
  return "# Replication\r\nrole:master\r\nconnected_slaves:" + std::to_string(connected) + "\r\n" + slaves +
         "master_failover_state:no-failover\r\nmaster_replid:6f0c2f3c1b5e8f0a9d0e2b6f3c8d1a4e5b7c9d0f\r\n"
         "master_replid2:0000000000000000000000000000000000000000\r\nmaster_repl_offset:" + std::to_string(offset) +
         "\r\nsecond_repl_offset:-1\r\nrepl_backlog_active:1\r\nrepl_backlog_size:1048576\r\n"
         "repl_backlog_first_byte_offset:1\r\nrepl_backlog_histlen:1234\r\n";
}

RedisEndpoint at(int port, bool sentinel = false) {
  RedisEndpoint ep;
  ep.port = port;
  if (sentinel) {
    ep.sentinelService = "ratelab";
    ep.sentinels = {{"127.0.0.1", 26379}};
  }
  return ep;
}
}  // namespace

class ReplicationStatusTest : public QObject {
  Q_OBJECT
 private slots:
  void sentences_data();
  void sentences();
  void masterWithTwoReplicas();
  void malformedLinesAreSkippedAndCounted();
  void replicaLinesAreBounded();
};

void ReplicationStatusTest::sentences_data() {
  QTest::addColumn<QString>("info");
  QTest::addColumn<bool>("sentinel");
  QTest::addColumn<QString>("sentence");
  QTest::addColumn<bool>("shown");
  const std::string two = "slave0:ip=127.0.0.1,port=40125,state=online,offset=1234,lag=0\r\n"
                          "slave1:ip=127.0.0.1,port=40127,state=online,offset=1000,lag=1\r\n";
  QTest::newRow("two replicas via Sentinel")
      << QString::fromStdString(masterInfo(two, 2)) << true
      << "master 127.0.0.1:40123 (named by the Sentinels for service ratelab); replicas: 127.0.0.1:40125 online, "
         "lag 0 s, 0 bytes behind; 127.0.0.1:40127 online, lag 1 s, 234 bytes behind"
      << true;
  QTest::newRow("two replicas, plain")
      << QString::fromStdString(masterInfo(two, 2)) << false
      << "master 127.0.0.1:40123 (the address given); replicas: 127.0.0.1:40125 online, lag 0 s, 0 bytes behind; "
         "127.0.0.1:40127 online, lag 1 s, 234 bytes behind"
      << true;
  QTest::newRow("no replicas, plain") << QString::fromStdString(masterInfo("", 0)) << false
                                      << "master 127.0.0.1:40123 (the address given); no replicas" << false;
  QTest::newRow("no replicas via Sentinel")
      << QString::fromStdString(masterInfo("", 0)) << true
      << "master 127.0.0.1:40123 (named by the Sentinels for service ratelab); no replicas" << true;
  QTest::newRow("a replica's own INFO")
      << "# Replication\r\nrole:slave\r\nmaster_host:127.0.0.1\r\nmaster_port:40123\r\nmaster_link_status:up\r\n"
         "master_last_io_seconds_ago:1\r\nmaster_sync_in_progress:0\r\nslave_read_repl_offset:1234\r\n"
         "slave_repl_offset:1234\r\nslave_priority:100\r\nslave_read_only:1\r\nreplica_announced:1\r\n"
         "connected_slaves:0\r\nmaster_repl_offset:1234\r\n"
      << false << "127.0.0.1:40123 (the address given) is a replica of 127.0.0.1:40123, link up" << true;
  QTest::newRow("a replica whose link is down, no master_port")
      << "role:slave\r\nmaster_host:10.0.0.9\r\nmaster_link_status:down\r\nmaster_link_down_since_seconds:12\r\n" << false
      << "127.0.0.1:40123 (the address given) is a replica of an unnamed master, link down" << true;
  QTest::newRow("a replica still syncing, lag and master offset missing")
      << "role:master\r\nslave0:ip=127.0.0.1,port=40125,state=wait_bgsave,offset=0\r\n" << false
      << "master 127.0.0.1:40123 (the address given); replicas: 127.0.0.1:40125 wait_bgsave, lag ? s, ? bytes behind"
      << true;
  QTest::newRow("not INFO") << "-ERR unknown command\r\n" << false
                            << "127.0.0.1:40123 (the address given): INFO replication names no role" << false;
  QTest::newRow("a control byte in the host")
      << "role:master\r\nmaster_repl_offset:5\r\nslave0:ip=evil\x1b[2J,port=1,state=online,offset=5,lag=0\r\n" << false
      << "master 127.0.0.1:40123 (the address given); replicas: evil\\x1b[2J:1 online, lag 0 s, 0 bytes behind" << true;
}

void ReplicationStatusTest::sentences() {
  QFETCH(QString, info);
  QFETCH(bool, sentinel);
  QFETCH(QString, sentence);
  QFETCH(bool, shown);
  const ReplicationStatus s = parseReplicationInfo(info.toStdString());
  QCOMPARE(QString::fromStdString(replicationSentence(at(40123, sentinel), s)), sentence);
  QCOMPARE(showsReplication(at(40123, sentinel), s), shown);
}

void ReplicationStatusTest::masterWithTwoReplicas() {
  const ReplicationStatus s = parseReplicationInfo(
      masterInfo("slave0:ip=127.0.0.1,port=40125,state=online,offset=1234,lag=0\r\n"
                 "slave1:ip=::1,port=40127,state=send_bulk,offset=77,lag=3\r\n",
                 2, 1300));
  QCOMPARE(s.role, std::string("master"));
  QCOMPARE(s.masterOffset, std::int64_t{1300});
  QCOMPARE(s.malformed, 0);
  QCOMPARE(s.replicas.size(), std::size_t{2});
  QCOMPARE(s.replicas[1].host, std::string("::1"));
  QCOMPARE(s.replicas[1].port, 40127);
  QCOMPARE(s.replicas[1].state, std::string("send_bulk"));
  QCOMPARE(s.replicas[1].offset, std::int64_t{77});
  QCOMPARE(s.replicas[1].lagSeconds, std::int64_t{3});
  QVERIFY(QString::fromStdString(replicationSentence(at(1), s)).endsWith("; [::1]:40127 send_bulk, lag 3 s, 1223 bytes behind"));
}

void ReplicationStatusTest::malformedLinesAreSkippedAndCounted() {
  const std::string lines =
      "slave0:ip=127.0.0.1,port=40125,state=online,offset=1234,lag=0\r\n"
      "slave1:ip=127.0.0.1,state=online,offset=1234,lag=0\r\n"                  // no port
      "slave11:ip=127.0.0.1,port=1,state=online,lag=0\r\n"                     // no offset
      "slave2:ip=127.0.0.1,port=99999,state=online,offset=1234,lag=0\r\n"       // port out of range
      "slave3:ip=127.0.0.1,port=1,state=online,offset=-4,lag=0\r\n"             // negative offset
      "slave4:ip=127.0.0.1,port=1,state=online,offset=12x,lag=0\r\n"            // not a number
      "slave5:ip=,port=1,state=online,offset=1,lag=0\r\n"                       // empty host
      "slave6:ip=127.0.0.1,port=1,state=On Line,offset=1,lag=0\r\n"             // not a state word
      "slave7:ip=127.0.0.1,port=1,state=online,offset=1,lag=99999999999999999999\r\n"  // lag overflows
      "slave8:garbage\r\n"
      "slave9:ip=" + std::string(300, 'h') + ",port=1,state=online,offset=1,lag=0\r\n"  // host too long
      "slave_repl_offset:1234\r\n"                                               // not a replica line
      "slave10:ip=127.0.0.1,port=40127,state=online,offset=1234,lag=2\r\n";
  const ReplicationStatus s = parseReplicationInfo(masterInfo(lines, 12));
  QCOMPARE(s.replicas.size(), std::size_t{2});
  QCOMPARE(s.replicas[0].port, 40125);
  QCOMPARE(s.replicas[1].port, 40127);
  QCOMPARE(s.malformed, 10);
  QCOMPARE(s.notRead, 0);
  QVERIFY(QString::fromStdString(replicationSentence(at(40123), s)).endsWith("; 10 replica lines unreadable"));
}

void ReplicationStatusTest::replicaLinesAreBounded() {
  std::string lines;
  for (int i = 0; i < kMaxReplicasRead + 10; ++i)
    lines += "slave" + std::to_string(i) + ":ip=127.0.0.1,port=" + std::to_string(20000 + i) + ",state=online,offset=1234,lag=0\r\n";
  const ReplicationStatus s = parseReplicationInfo(masterInfo(lines, kMaxReplicasRead + 10));
  QCOMPARE(static_cast<int>(s.replicas.size()), kMaxReplicasRead);
  QCOMPARE(s.notRead, 10);
  QVERIFY(QString::fromStdString(replicationSentence(at(40123), s)).endsWith("; 10 more replicas not read"));
}

QTEST_APPLESS_MAIN(ReplicationStatusTest)
#include "test_replication_status.moc"
