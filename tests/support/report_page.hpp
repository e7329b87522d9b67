#pragma once
// An HTML report as tests read it: the file's bytes and the run document it embeds.

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>

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

}  // namespace rl::test
