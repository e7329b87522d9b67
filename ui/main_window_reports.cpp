// MainWindow's reports: File > Export report (the last storm, or the run the
// History shows) and File > Export race report (the last race lab run), the same
// self-contained HTML that ratelab-cli run --report and race --report write.
// The page is built on the GUI thread from shared results and written off it.


#include "metrics/race_document.hpp"
#include "report/html_report.hpp"
#include "ui/main_window.hpp"
#include "ui/panels/connection_panel.hpp"
#include "ui/panels/save_path.hpp"
#include "ui/qt_text.hpp"
#include "ui/workers/worker_controller.hpp"

namespace rl::ui {

Result<void> MainWindow::exportReport(const QString& path) const {
  auto writer = reportWriter(path);
  if (!writer) return writer.error();
  return (*writer)();
}

Result<std::function<Result<void>()>> MainWindow::reportWriter(const QString& path) const {
  const auto experiment = shownResult().experiment;
  if (!experiment || experiment->runs.empty()) return invalidArgument(tr("No storm has finished yet: nothing to export").toStdString());
  if (auto ok = checkReportPath(path.toStdString()); !ok) return ok.error();
  ReportHeader header;
  header.title = preset_ ? preset_->title.toStdString() : std::string("RateLab storm");
  header.command = "the RateLab window" + (preset_ ? ", preset " + preset_->id.toStdString() : std::string());
  if (const PastRun* past = shownRun_ > 0 ? runs_.find(shownRun_) : nullptr) {  // History > Show: that run's
    header.title = past->title.toStdString();
    header.command = "the RateLab window, run #" + std::to_string(past->number) + " of its history";
  }
  const bool redis = ranOnRedis(*experiment);
  header.redisVersion = redis ? connection_->serverVersion().toStdString() : std::string();
  if (redis && header.redisVersion.empty()) header.redisVersion = "?";
  return std::function<Result<void>()>([experiment, header, file = path.toStdString()] {
    return writeReport(file, experimentReportHtml(*experiment, header));
  });
}

void MainWindow::exportReportAs() {
  const QString path = askReportPath(this, tr("Export report"), "storm");
  if (path.isEmpty()) return;
  auto work = reportWriter(path);
  if (!work) return showError(qs(work.error().message));
  showError(tr("Writing the report to %1...").arg(path));
  inBackground([path, work = std::move(*work)] {
    const Result<void> ok = work();
    return ok ? tr("Export report: %1").arg(path) : qs(ok.error().message);
  });
}

Result<void> MainWindow::exportRaceReport(const QString& path) const {
  if (!raceSpec_ || !raceResult_ || raceResult_->variants.empty())
    return invalidArgument(tr("No race has finished yet: run the race lab first (Storm > Run race lab)").toStdString());
  if (auto ok = checkReportPath(path.toStdString()); !ok) return ok.error();
  const ReportHeader header{"Race lab: check-then-increment against its atomic fixes",
                            "the RateLab window, race lab" + std::string(raceResult_->cancelled ? " (stopped early)" : ""), "",
                            connection_->serverVersion().isEmpty() ? "?" : connection_->serverVersion().toStdString(), ""};
  return writeReport(path.toStdString(), raceReportHtml(*raceSpec_, raceResult_->variants,
                                                        raceDocument(*raceSpec_, raceResult_->variants), header));
}

void MainWindow::exportRaceReportAs() {
  const QString path = askReportPath(this, tr("Export race report"), "race");
  if (path.isEmpty()) return;
  const Result<void> ok = exportRaceReport(path);  // a race's page is small: written at once
  showError(ok ? tr("Export race report: %1").arg(path) : qs(ok.error().message));
}

}  // namespace rl::ui
