#pragma once
// An HTML report as tests read it: the file's bytes, the run document it embeds, and what
// a real headless Chromium makes of it.

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtGlobal>

#include "common/result.hpp"

namespace rl::test {

/// The whole file (empty when it can't be read).
inline QByteArray readReport(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

/// The JSON in <script type="application/json" id="run-document"> (empty when absent).
inline QJsonObject embeddedDocument(const QByteArray& html) {
  const QByteArray open = "<script type=\"application/json\" id=\"run-document\">";
  const auto from = html.indexOf(open);
  const auto to = html.indexOf("</script>", from);
  if (from < 0 || to < 0) return {};
  return QJsonDocument::fromJson(html.mid(from + open.size(), to - from - open.size())).object();
}

/// Runs Debian's headless `chromium` with `args` (its profile in `profile`): its stdout, or an error
/// when chromium is not installed or did not finish within 90 s (check it with RL_CHECKED).
inline Result<QByteArray> headlessChromium(const QTemporaryDir& profile, const QStringList& args) {
  const QString exe = QStandardPaths::findExecutable("chromium");
  if (exe.isEmpty()) return unavailable("chromium is not installed (scripts/install-deps.sh installs it)");
  QProcess p;
  p.start(exe, QStringList{"--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
                           "--user-data-dir=" + profile.filePath("profile")} + args);
  if (!p.waitForFinished(90'000)) {
    p.kill();
    p.waitForFinished();
    return unavailable("headless chromium did not finish within 90 s");
  }
  return p.readAllStandardOutput();
}

}  // namespace rl::test
