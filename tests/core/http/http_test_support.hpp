#pragma once
// Helpers for the HTTP tests: real curl through QProcess, raw sockets for
// malformed traffic, and store factories for a served cluster.

#include <QProcess>
#include <QTcpSocket>
#include <QtTest>

#include <algorithm>
#include <map>
#include <mutex>
#include <vector>
#include <memory>
#include <string>

#include "http/replica_server.hpp"
#include "redis/redis_store.hpp"
#include "store/memory_store.hpp"

namespace rl::test {

/// One MemoryStore per replica (each replica keeps its own counts).
inline ReplicaStoreFactory memoryFactory() {
  return [](int) { return Result<std::unique_ptr<Store>>(std::make_unique<MemoryStore>()); };
}

/// One redis-lua store per replica thread, keys under `prefix`.
inline ReplicaStoreFactory redisLuaFactory(const RedisEndpoint& endpoint, const std::string& prefix) {
  return [endpoint, prefix](int) {
    RedisStoreOptions o;
    o.endpoint = endpoint;
    o.prefix = prefix;
    return makeRedisStore(Backend::RedisLua, o);
  };
}

/// Runs `bash -c script`; returns stdout (empty and a failed QVERIFY-able flag on error).
inline QByteArray runShell(const QString& script, bool* ok, int timeoutMs = 60'000) {
  QProcess p;
  p.start("/bin/bash", {"-c", script});
  *ok = p.waitForFinished(timeoutMs) && p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0;
  return p.readAllStandardOutput();
}

/// Runs the check: N parallel curls with x-api-key through xargs; status code -> count.
inline std::map<int, int> parallelCurl(const std::string& url, const QString& apiKey, int n) {
  const QString script =
      QString("seq 1 %1 | xargs -P %1 -I {} /usr/bin/curl -s -o /dev/null -w \"%{http_code}\\n\" "
              "-H \"x-api-key: %2\" %3")
          .arg(n)
          .arg(apiKey, QString::fromStdString(url));
  bool ok = false;
  const auto out = runShell(script, &ok);
  std::map<int, int> counts;
  if (!ok) return counts;
  for (const auto& line : out.split('\n'))
    if (!line.isEmpty()) ++counts[line.toInt()];
  return counts;
}

/// `curl -s -i` once; returns the raw head and body.
inline QByteArray curlInclude(const std::string& url, const QString& apiKey) {
  QProcess p;
  p.start("/usr/bin/curl", {"-s", "-i", "-H", "x-api-key: " + apiKey, QString::fromStdString(url)});
  p.waitForFinished(30'000);
  return p.readAllStandardOutput();
}

/// The value of header `name` in a raw response (case-insensitive), or empty.
inline QByteArray headerOf(const QByteArray& raw, const QByteArray& name) {
  for (const auto& line : raw.split('\n')) {
    const auto colon = line.indexOf(':');
    if (colon > 0 && line.left(colon).trimmed().toLower() == name.toLower()) return line.mid(colon + 1).trimmed();
  }
  return {};
}

/// Sends raw bytes to 127.0.0.1:port and reads until the server closes (or `timeoutMs`).
struct RawExchange {
  QByteArray received;  ///< everything the server sent
  bool closed = false;  ///< the server closed the connection
};
inline RawExchange rawExchange(int port, const QByteArray& bytes, int timeoutMs = 10'000) {
  RawExchange r;
  QTcpSocket s;
  s.connectToHost("127.0.0.1", static_cast<quint16>(port));
  if (!s.waitForConnected(5'000)) return r;
  if (!bytes.isEmpty()) {
    s.write(bytes);
    s.waitForBytesWritten(5'000);
  }
  QElapsedTimer t;
  t.start();
  while (t.elapsed() < timeoutMs) {
    if (s.state() != QAbstractSocket::ConnectedState) break;
    s.waitForReadyRead(100);
    r.received += s.readAll();
  }
  r.received += s.readAll();
  r.closed = s.state() != QAbstractSocket::ConnectedState;
  return r;
}

/// The ratelab-cli built next to the tests.
inline QString cliPath() { return qEnvironmentVariable("RATELAB_BIN_DIR") + "/cli/ratelab-cli"; }

/// Reads stdout lines until one starts with `prefix`; returns the rest of that line.
inline QByteArray waitForLine(QProcess& p, const QByteArray& prefix, QByteArray& seen, int timeoutMs = 15'000) {
  QElapsedTimer t;
  t.start();
  while (t.elapsed() < timeoutMs) {
    while (p.canReadLine()) {
      const auto line = p.readLine().trimmed();
      seen += line + "\n";
      if (line.startsWith(prefix)) return line.mid(prefix.size());
    }
    if (p.state() != QProcess::Running) break;
    p.waitForReadyRead(100);
  }
  return {};
}

/// Records the wall time of every decision, to know whether a refill could have happened.
struct DecisionTimes {
  std::mutex mutex;
  std::vector<std::int64_t> at;
  DecisionObserver observer() {
    return [this](const HttpDecisionEvent& e) {
      std::lock_guard lock(mutex);
      at.push_back(e.at.count());
    };
  }
  std::int64_t spreadUs() {
    std::lock_guard lock(mutex);
    if (at.empty()) return 0;
    const auto [lo, hi] = std::minmax_element(at.begin(), at.end());
    return *hi - *lo;
  }
};

}  // namespace rl::test
