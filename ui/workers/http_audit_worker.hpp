#pragma once
// HttpAuditWorker: core's runAudit (audit/audit_run.hpp) on a worker thread of
// the controller, for the window's HTTP audit panel. Each probe's outcome is
// handed over as it is judged (checkDone), with the audit's arrivals so far as
// lanes (lanesSoFar: auditExperiment, built here, off the GUI thread), then the
// report. cancel() may be
// called from any thread: nothing more is sent, and the report says which
// probes did not run.

#include <QObject>
#include <QString>
#include <atomic>
#include <memory>

#include "audit/audit_spec.hpp"
#include "storm/experiment.hpp"
#include "ui/workers/storm_types.hpp"  // the metatypes of what the signals carry

namespace rl::ui {

/// Runs one audit at a time; see the file comment.
class HttpAuditWorker : public QObject {
  Q_OBJECT
 public:
  /// Any thread: stop sending.
  void cancel() { cancel_.store(true); }
  /// The caller's thread, before queuing run(): clears an earlier cancel (a Stop before the run starts is kept).
  void arm() { cancel_.store(false); }

 public slots:
  /// Audits the target of `spec`: emits checkDone per probe, then finished or failed.
  void run(const rl::AuditSpec& spec);

 signals:
  /// One probe's verdict, as soon as it is known.
  void checkDone(const rl::AuditCheck& check);
  /// After each probe that added replayed decisions: the target's decisions so far and the model that explains them so far.
  void lanesSoFar(const std::shared_ptr<const rl::ExperimentResult>& experiment);
  /// The whole report (also when stopped: `interrupted`).
  void finished(const rl::AuditReport& report);
  /// The audit could not start (a bad spec, or the target does not answer): one sentence.
  void failed(const QString& message);

 private:
  std::atomic<bool> cancel_{false};
};

}  // namespace rl::ui
