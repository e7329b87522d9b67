#pragma once
// ratelab-cli as a process, for tests of the command-line contract: the binary
// from $RATELAB_BIN_DIR/cli/ratelab-cli, run from the source dir.

#include <QtTest>

#include <QJsonDocument>
#include <QJsonObject>
#include <QElapsedTimer>
#include <QProcess>
#include <QTemporaryDir>

#include <vector>

namespace rl::test {

/// What one ratelab-cli run printed and returned.
struct CliRun {
  int exitCode = -1;  ///< -1 when it crashed or timed out
  QByteArray out;     ///< stdout
  QByteArray err;     ///< stderr
  /// stdout as a JSON object.
  QJsonObject json() const { return QJsonDocument::fromJson(out).object(); }
};

/// Writes `body` to the file `name` in `dir`; returns its path (scripts, scenarios, logs a run reads).
inline QString writeFile(const QTemporaryDir& dir, const char* name, const QByteArray& body) {
  QFile f(dir.filePath(name));
  f.open(QIODevice::WriteOnly);
  f.write(body);
  return f.fileName();
}

/// Runs ratelab-cli `args` (killed after `timeoutMs`).
inline CliRun runCli(const QStringList& args, int timeoutMs = 120'000) {
  QProcess p;
  p.setWorkingDirectory(RATELAB_SOURCE_DIR);
  p.start(qEnvironmentVariable("RATELAB_BIN_DIR") + "/cli/ratelab-cli", args);
  CliRun c;
  if (!p.waitForFinished(timeoutMs)) {
    p.kill();
    p.waitForFinished();
    c.err = "timed out";
    return c;
  }
  c.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
  c.out = p.readAllStandardOutput();
  c.err = p.readAllStandardError();
  return c;
}

/// `ratelab-cli serve`'s front URL, read from its "front http://..." line (empty after `timeoutMs`);
/// every line read is appended to `seen`.
inline QByteArray waitForServeFront(QProcess& serve, QByteArray& seen, int timeoutMs = 30'000) {
  QElapsedTimer t;
  t.start();
  while (t.elapsed() < timeoutMs) {
    serve.waitForReadyRead(200);
    while (serve.canReadLine()) {
      const QByteArray line = serve.readLine();
      seen += line;
      if (line.startsWith("front ")) return line.mid(6).trimmed();
    }
  }
  return {};
}

/// The status codes of `n` curl GETs of `url` with `x-api-key: key`, one after the other.
inline std::vector<int> curlCodes(const QString& url, const QString& key, int n) {
  std::vector<int> codes;
  for (int i = 0; i < n; ++i) {
    QProcess curl;
    curl.start("/usr/bin/curl", {"-s", "-o", "/dev/null", "-w", "%{http_code}", "-H", "x-api-key: " + key, url});
    if (!curl.waitForFinished(30'000)) return codes;
    codes.push_back(curl.readAllStandardOutput().toInt());
  }
  return codes;
}

}  // namespace rl::test
