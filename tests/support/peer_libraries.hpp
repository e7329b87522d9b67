#pragma once
// Real limiter libraries for tests: Python `limits` (Debian python3-limits, run
// with /usr/bin/python3) and the npm packages of tests/peers/node (installed
// with `npm ci` from the repo's lockfile into <build>/peers/node, once per build
// tree). Each peer script writes keys into a test redis-server and prints the
// library's own answers as JSON lines.

#include <QtTest>

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QList>
#include <QProcess>

namespace rl::test {

/// One run of a peer script: its JSON lines, or why it failed.
struct PeerOutput {
  QList<QJsonObject> lines;  ///< one object per stdout line
  QString error;             ///< empty on success
};

/// Runs `program args` (timeout `ms`) and parses each stdout line as JSON.
inline PeerOutput runPeer(const QString& program, const QStringList& args, const QString& dir = {}, int ms = 60'000) {
  QProcess p;
  if (!dir.isEmpty()) p.setWorkingDirectory(dir);
  p.start(program, args);
  PeerOutput out;
  if (!p.waitForFinished(ms) || p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0) {
    out.error = QStringLiteral("%1 %2 failed (exit %3): %4%5")
                    .arg(program, args.join(' '))
                    .arg(p.exitCode())
                    .arg(QString::fromUtf8(p.readAllStandardError()), p.errorString());
    p.kill();
    p.waitForFinished(1000);
    return out;
  }
  for (const QByteArray& line : p.readAllStandardOutput().split('\n'))
    if (!line.trimmed().isEmpty()) out.lines << QJsonDocument::fromJson(line).object();
  return out;
}

/// <build>/peers/node with node_modules installed by `npm ci` from tests/peers/node
/// (the lockfile in the repo); an empty string and `error` set when that fails.
inline QString nodePeersDir(QString& error) {
  const QString src = QStringLiteral(RATELAB_SOURCE_DIR "/tests/peers/node");
  const QString dir = QStringLiteral(RATELAB_BINARY_DIR "/peers/node");
  QDir().mkpath(dir);
  for (const char* f : {"package.json", "package-lock.json", "rlf_keys.js", "emitted_limiters.js", "http_limiters.js"}) {
    QFile::remove(dir + '/' + f);
    if (!QFile::copy(src + '/' + f, dir + '/' + f)) {
      error = QStringLiteral("cannot copy %1 to %2").arg(f, dir);
      return {};
    }
  }
  const QFileInfo installed(dir + "/node_modules/.package-lock.json");
  if (!installed.exists() || installed.lastModified() < QFileInfo(src + "/package-lock.json").lastModified()) {
    const PeerOutput npm = runPeer(QStringLiteral("npm"), {"ci", "--no-audit", "--no-fund", "--loglevel=error"}, dir, 240'000);
    if (!npm.error.isEmpty()) {
      error = QStringLiteral("npm ci in %1 (needs node + npm, see scripts/install-deps.sh): %2").arg(dir, npm.error);
      return {};
    }
  }
  return dir;
}

}  // namespace rl::test
