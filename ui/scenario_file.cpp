#include "ui/scenario_file.hpp"

#include <QFile>
#include <QSaveFile>
#include <QTextStream>

#include "storm/storm_settings.hpp"

namespace rl::ui {

namespace {
Error fileError(const QString& what, const QString& path, const QString& why) {
  return invalidArgument(QStringLiteral("%1 %2: %3").arg(what, path, why).toStdString());
}
}  // namespace

Result<StormSpec> readScenarioFile(const QString& path) { return loadScenario(path.toStdString()); }

Result<void> writeScenarioFile(const QString& path, const StormSpec& spec, const QString& name,
                               const QString& description) {
  Json doc = specToJson(spec);
  if (!name.isEmpty()) doc["name"] = name.toStdString();
  if (!description.isEmpty()) doc["description"] = description.toStdString();
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly | QIODevice::Text))
    return fileError(QStringLiteral("cannot write scenario"), path, file.errorString());
  const std::string text = dumpJson(doc, 2) + "\n";
  file.write(text.data(), static_cast<qint64>(text.size()));
  if (!file.commit()) return fileError(QStringLiteral("cannot write scenario"), path, file.errorString());
  return {};
}

}  // namespace rl::ui
