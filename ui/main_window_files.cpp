// MainWindow's files: scenarios opened and saved (with the quota the storm was
// tuned to live), and the lanes' PNG, the run document's JSON and the decisions' CSV.

#include <QPixmap>
#include <QSaveFile>

#include "metrics/run_document.hpp"
#include "storm/quota_schedule.hpp"
#include "ui/panels/lanes_panel.hpp"
#include "ui/main_window.hpp"
#include "ui/panels/connection_panel.hpp"
#include "ui/panels/storm_panel.hpp"
#include "ui/qt_text.hpp"
#include "ui/scenario_file.hpp"
#include "ui/workers/worker_controller.hpp"

namespace rl::ui {

namespace {
Result<void> fromError(const QString& text) { return invalidArgument(text.toStdString()); }

Result<void> savePixmap(const QPixmap& pixmap, const QString& path) {
  if (pixmap.isNull() || !pixmap.save(path, "PNG")) return fromError(QObject::tr("cannot write PNG %1").arg(path));
  return {};
}
}  // namespace

Result<void> MainWindow::loadScenario(const QString& path) {
  auto spec = readScenarioFile(path);
  if (!spec) return spec.error();
  preset_.reset();
  storm_->setSpec(*spec);
  updateHint();
  connection_->setPolicy(spec->resilience.onRedisError);
  if (!spec->redisUrl.empty()) connection_->setUrl(qs(spec->redisUrl));
  storm_->setExplanation({});
  return {};
}

FailurePolicy MainWindow::runPolicy() const {
  const auto form = storm_->spec();
  const auto own = preset_ && form ? preset_->policyFor(*form) : std::nullopt;
  return own ? *own : connection_->policy();
}

Result<void> MainWindow::saveScenario(const QString& path) {
  storm_->setFailurePolicy(runPolicy());
  auto spec = storm_->spec();
  if (!spec) return spec.error();
  spec->redisUrl.clear();  // the connection is the machine's, not the scenario's
  const auto experiment = controller_.lastResult().experiment;
  if (experiment && !experiment->runs.empty() && !experiment->runs.front().outcome.markers.empty()) {
    const ExperimentRun& run = experiment->runs.front();
    const QuotaMarker& last = run.outcome.markers.back();
    const Quota& form = spec->quota;
    const bool stillTuned = form.limit == last.limit && form.window.count() == last.windowUs &&
                            form.refillPerSecond.value_or(0) == last.refillPerSecond;
    if (stillTuned) {
      spec->quota = run.spec.quota;
      spec->quotaChanges = withLiveChanges(run.spec.quotaChanges, run.outcome.markers);
      fileNote_ = tr("with the %n quota change(s) made while the last storm ran", nullptr,
                     static_cast<int>(run.outcome.markers.size()));
    }
  }
  return writeScenarioFile(path, *spec, preset_ ? preset_->id : QString(), preset_ ? preset_->explanation : QString());
}

Result<void> MainWindow::exportPng(const QString& path) { return savePixmap(lanes_->grabAll(), path); }

Result<void> MainWindow::exportWindowPng(const QString& path) { return savePixmap(grab(), path); }

QByteArray MainWindow::runDocumentText() const {
  const auto experiment = shownResult().experiment;
  return experiment ? QByteArray::fromStdString(dumpJson(runDocument(*experiment), 2) + "\n") : QByteArray();
}

Result<void> MainWindow::exportJson(const QString& path) {
  const QByteArray text = runDocumentText();
  if (text.isEmpty()) return fromError(tr("No storm has finished yet: nothing to export"));
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly)) return fromError(tr("cannot write %1: %2").arg(path, file.errorString()));
  file.write(text);
  if (!file.commit()) return fromError(tr("cannot write %1: %2").arg(path, file.errorString()));
  return {};
}

void MainWindow::exportCsv(const QString& path) {
  const auto experiment = shownResult().experiment;
  if (!experiment || experiment->runs.empty()) return showError(tr("No storm has finished yet: nothing to export"));
  inBackground([path, experiment] {
    const ExperimentRun& first = experiment->runs.front();  // the storm itself, as ratelab-cli run --csv writes
    auto ok = writeDecisionsCsv(path.toStdString(), first.spec, first.outcome);
    return ok ? tr("Wrote %1 decisions to %2").arg(first.outcome.records.size()).arg(path)
              : qs(ok.error().message);
  });
}

}  // namespace rl::ui
