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

Result<void> writeDecisionsCsv(const QString& path, const StormSpec& spec, const std::vector<DecisionRecord>& records) {
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly | QIODevice::Text))
    return fileError(QStringLiteral("cannot write CSV"), path, file.errorString());
  QTextStream out(&file);
  out << "intended_us,at_us,algorithm,client,replica,allowed,error,late,remaining,retry_after_us,latency_us,level\n";
  for (const DecisionRecord& r : records) {
    const auto name = r.algorithm() < spec.algorithms.size() ? algorithmName(spec.algorithms[r.algorithm()])
                                                           : std::string_view("unknown");
    out << r.intendedUs() << ',' << r.atUs() << ',' << QLatin1String(name.data(), static_cast<qsizetype>(name.size()))
        << ',' << r.client() << ',' << r.replica() << ',' << int(r.allowed()) << ',' << int(r.error()) << ','
        << int(r.late()) << ',' << r.remaining() << ',' << r.retryAfterUs() << ',' << r.latencyUs() << ',' << r.level() << '\n';
  }
  out.flush();
  if (!file.commit()) return fileError(QStringLiteral("cannot write CSV"), path, file.errorString());
  return {};
}

}  // namespace rl::ui
