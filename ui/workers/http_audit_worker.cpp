#include "ui/workers/http_audit_worker.hpp"

#include <exception>

#include "audit/audit_experiment.hpp"
#include "audit/audit_run.hpp"
#include "ui/qt_text.hpp"

namespace rl::ui {

void HttpAuditWorker::run(const AuditSpec& spec) {
  try {
    AuditObserver observer;
    observer.onCheck = [this](const AuditCheck& c) { emit checkDone(c); };
    observer.onProgress = [this](const AuditReport& soFar) {
      auto experiment = std::make_shared<const ExperimentResult>(auditExperiment(soFar));
      if (!experiment->runs.empty()) emit lanesSoFar(experiment);
    };
    auto report = runAudit(spec, observer, &cancel_);
    if (!report) {
      emit failed(report.error().code == ErrorCode::InvalidArgument
                      ? qs(report.error().message)
                      : tr("The HTTP target cannot be reached: %1").arg(qs(report.error().message)));
      return;
    }
    emit finished(*report);
  } catch (const std::exception& e) {
    emit failed(tr("The audit failed: %1").arg(QString::fromUtf8(e.what())));
  }
}

}  // namespace rl::ui
