// ratelab-cli keys names the master and its replicas' lag, against real
// redis-server processes: a master and a replica (--replicaof) the test
// starts, waited on until the master lists the replica online; after a
// WAIT the replica is 0 bytes behind (once it acknowledged WAIT's own
// GETACK); asked on the replica, keys says whose
// replica it is and that its link is up; a lone server prints no such line;
// on a Sentinel set the line says the Sentinels named the master and lists
// both replicas.

#include <QtTest>

#include <QRegularExpression>

#include "redis/managed_redis_server.hpp"
#include "redis/redis_connection.hpp"
#include "redis/sentinel/managed_redis_sentinel.hpp"
#include "support/cli_process.hpp"

using namespace rl;

namespace {
// True once the master's INFO replication lists a replica on `replicaPort` as online (read as text, not
// through the parser under test).
bool listsOnline(RedisConnection& master, int replicaPort) {
  auto info = master.command({"INFO", "replication"});
  return info && info->str().find("port=" + std::to_string(replicaPort) + ",state=online") != std::string_view::npos;
}

QString firstLine(const QByteArray& out) { return QString::fromUtf8(out.left(out.indexOf('\n'))); }
}  // namespace

class CliReplicationTest : public QObject {
  Q_OBJECT
 private slots:
  void keysNamesTheMasterAndItsReplica();
  void keysOnSentinelNamesBothReplicas();
};

void CliReplicationTest::keysNamesTheMasterAndItsReplica() {
  // No PING to the replica every 10 s: between such a PING and the replica's ack it would be bytes behind.
  ManagedServerOptions quiet;
  quiet.extraArgs = {"--repl-ping-replica-period", "3600"};
  auto master = ManagedRedisServer::start(quiet);
  QVERIFY2(master, master ? "" : master.error().message.c_str());
  const QString lone = QString("redis://127.0.0.1:%1").arg(master->port());
  const test::CliRun alone = test::runCli({"keys", "--redis", lone, "--prefix", "rk:"});
  QVERIFY2(alone.exitCode == 0, alone.err.constData());
  QVERIFY2(firstLine(alone.out).startsWith("key "), alone.out.constData());  // a lone server: no replication line

  ManagedServerOptions o;
  o.extraArgs = {"--replicaof", "127.0.0.1", std::to_string(master->port())};
  auto replica = ManagedRedisServer::start(o);
  QVERIFY2(replica, replica ? "" : replica.error().message.c_str());
  auto m = RedisConnection::connect(master->endpoint());
  QVERIFY(m);
  QTRY_VERIFY_WITH_TIMEOUT(listsOnline(*m, replica->port()), 20'000);
  QVERIFY(m->command({"SET", "rk:{fixed_window:alice}:1", "3", "PX", "60000"}));
  auto acked = m->command({"WAIT", "1", "5000"});
  QVERIFY(acked);
  QCOMPARE(acked->toInt().value_or(0), std::int64_t{1});

  // WAIT itself puts a REPLCONF GETACK (37 bytes) in the stream after the write; the replica acknowledges
  // it with its next once-a-second REPLCONF ACK, so keys is asked until it reports 0 bytes behind.
  const QRegularExpression expected(QString("^master 127\\.0\\.0\\.1:%1 \\(the address given\\); replicas: "
                                            "127\\.0\\.0\\.1:%2 online, lag \\d+ s, (\\d+) bytes behind$")
                                        .arg(master->port())
                                        .arg(replica->port()));
  test::CliRun keys;
  auto caughtUp = [&] {
    keys = test::runCli({"keys", "--redis", lone, "--prefix", "rk:"});
    const auto match = expected.match(firstLine(keys.out));
    return keys.exitCode == 0 && match.hasMatch() && match.captured(1) == "0";
  };
  QTRY_VERIFY2_WITH_TIMEOUT(caughtUp(), (keys.out + keys.err).constData(), 10'000);
  qInfo("%s", qPrintable(firstLine(keys.out)));
  QVERIFY2(keys.out.contains("1 key(s) under 'rk:'"), keys.out.constData());

  // Asked on the replica: whose replica it is, and its link.
  const test::CliRun onReplica =
      test::runCli({"keys", "--redis", QString("redis://127.0.0.1:%1").arg(replica->port()), "--prefix", "rk:"});
  QVERIFY2(onReplica.exitCode == 0, onReplica.err.constData());
  QCOMPARE(firstLine(onReplica.out), QString("127.0.0.1:%1 (the address given) is a replica of 127.0.0.1:%2, link up")
                                         .arg(replica->port())
                                         .arg(master->port()));
}

void CliReplicationTest::keysOnSentinelNamesBothReplicas() {
  auto set = ManagedRedisSentinel::start();
  QVERIFY2(set, set ? "" : set.error().message.c_str());
  const int masterPort = set->nodes()[0].port();
  auto m = RedisConnection::connect(set->nodes()[0].endpoint());
  QVERIFY(m);
  QTRY_VERIFY_WITH_TIMEOUT(listsOnline(*m, set->nodes()[1].port()) && listsOnline(*m, set->nodes()[2].port()), 20'000);
  const test::CliRun keys =
      test::runCli({"keys", "--redis", QString::fromStdString(set->endpoint().toString()), "--prefix", "sk:"});
  QVERIFY2(keys.exitCode == 0, keys.err.constData());
  const QString line = firstLine(keys.out);
  qInfo("%s", qPrintable(line));
  QVERIFY2(line.startsWith(QString("master 127.0.0.1:%1 (named by the Sentinels for service ratelab); replicas: ").arg(masterPort)),
           keys.out.constData());
  for (int i : {1, 2}) {
    const QRegularExpression replica(QString("127\\.0\\.0\\.1:%1 online, lag \\d+ s, \\d+ bytes behind").arg(set->nodes()[i].port()));
    QVERIFY2(replica.match(line).hasMatch(), keys.out.constData());
  }
}

QTEST_GUILESS_MAIN(CliReplicationTest)
#include "test_cli_replication.moc"
