#include "ui/panels/form_words.hpp"

#include <QRegularExpression>
#include <array>
#include <utility>

namespace rl::ui {

namespace {
// The storm form's fields, by the flag that sets the same value.
constexpr std::array<std::pair<std::string_view, const char*>, 16> kFields = {{
    {"algorithm", "Algorithms"}, {"backend", "Backend"},   {"limit", "Limit"},         {"window-ms", "Window"},
    {"refill-rate", "Refill"},   {"pattern", "Pattern"},   {"rate", "Rate"},           {"requests", "Requests"},
    {"concurrency", "Concurrency"}, {"duration-ms", "Duration"}, {"replicas", "Replicas"}, {"clients", "Clients"},
    {"clock", "Clock"},          {"skew-ms", "Skew"},      {"script", "Script"},       {"http-target", "HTTP Target"},
}};
}  // namespace

QString inFormWords(std::string_view message) {
  static const QRegularExpression flag(QStringLiteral("--([a-z][a-z-]*)"));
  const QString text = QString::fromUtf8(message.data(), static_cast<qsizetype>(message.size()));
  QString out;
  qsizetype last = 0;
  for (auto it = flag.globalMatch(text); it.hasNext();) {
    const auto m = it.next();
    out += text.mid(last, m.capturedStart() - last);
    const std::string name = m.captured(1).toStdString();
    QString word = QStringLiteral("the scenario's ") + m.captured(1).replace(QLatin1Char('-'), QLatin1Char('_'));
    for (const auto& [f, label] : kFields)
      if (f == name) word = QString::fromLatin1(label);
    out += word;
    last = m.capturedEnd();
  }
  return out + text.mid(last);
}

}  // namespace rl::ui
