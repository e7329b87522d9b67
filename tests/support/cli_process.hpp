#pragma once
// ratelab-cli as a process, for tests of the command-line contract: the binary
// from $RATELAB_BIN_DIR/cli/ratelab-cli, run from the source dir.

#include <QtTest>

#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>

namespace rl::test {

/// What one ratelab-cli run printed and returned.
struct CliRun {
  int exitCode = -1;  ///< -1 when it crashed or timed out
  QByteArray out;     ///< stdout
  QByteArray err;     ///< stderr
  /// stdout as a JSON object.
  QJsonObject json() const { return QJsonDocument::fromJson(out).object(); }
};

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

}  // namespace rl::test
