#pragma once
// HttpAuditPanel: the window's `ratelab-cli audit`. The user names a foreign
// HTTP limiter (its URL, or its replicas' URLs), the header that carries the
// client key and the budget, and presses Run; the probes' table fills as each
// is judged (pass / warn / fail / skip, with its one-line summary), then the
// declared policy, the fingerprint and the verdict line appear. Export report
// writes the same self-contained HTML page as `audit --report`. The panel only
// shows and asks: the audit runs on the controller's audit thread.

#include <QWidget>
#include <memory>
#include <optional>

#include "audit/audit_spec.hpp"
#include "common/result.hpp"
#include "storm/experiment.hpp"

class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace rl::ui {

/// The HTTP audit form and its results; see the file comment.
class HttpAuditPanel : public QWidget {
  Q_OBJECT
 public:
  explicit HttpAuditPanel(QWidget* parent = nullptr);

  /// The audit the form describes (fresh client keys), or one error naming the field and what is allowed.
  Result<AuditSpec> spec() const;
  /// Sets the target field alone (`ratelab --audit URL`).
  void setUrls(const QString& urls);
  /// What Run audit does: starts the audit of the form's target; false (the status says why) when the
  /// form is invalid or an audit already runs.
  bool startAudit();
  /// Fills the form (tests, scripts).
  void setTarget(const QString& urls, const QString& keyHeader, int budgetRequests, int budgetSeconds);
  /// The table of probes, one row per probe of kAuditProbes (tests).
  QTableWidget* table() const { return table_; }
  /// The lines under the table: declared policy, fingerprint, verdict (tests).
  QString declaredText() const;
  QString fingerprintText() const;
  QString verdictText() const;
  /// The status line (errors, progress).
  QString statusText() const;
  /// The last report, when an audit finished.
  const std::optional<AuditReport>& report() const { return report_; }
  /// The last audit as lanes: the target's decisions and the fingerprint's model on the same arrivals.
  std::shared_ptr<const ExperimentResult> lanesExperiment() const;
  /// Writes the last report as `audit --report` does; an error when there is none or the file cannot be written.
  Result<void> exportReport(const QString& path) const;

 public slots:
  /// The controller says a probe was judged.
  void showCheck(const rl::AuditCheck& check);
  /// The audit ended (`error` empty) or could not start.
  void showFinished(const rl::AuditReport& report, const QString& error);

 signals:
  /// Run pressed with a valid form.
  void runRequested(const rl::AuditSpec& spec);
  /// Stop pressed while running.
  void stopRequested();
  /// An audit ended with a fingerprint, or Show in lanes was pressed: draw its decisions and the model's.
  void lanesRequested(const std::shared_ptr<const rl::ExperimentResult>& experiment, const QString& target);

 private:
  void setRunning(bool running);
  /// The status line: `text`, in the error style when `error`.
  void showStatus(const QString& text, bool error = false);
  void resetTable();
  QLineEdit* urls_;
  QLineEdit* key_;
  QSpinBox* budgetRequests_;
  QSpinBox* budgetSeconds_;
  QPushButton* run_;
  QPushButton* export_;
  QPushButton* lanes_;  ///< Show in lanes (enabled after an audit with a fingerprint)
  QLabel* status_;
  QTableWidget* table_;
  QLabel* declared_;
  QLabel* fingerprint_;
  QLabel* verdict_;
  bool running_ = false;
  std::optional<AuditReport> report_;
};

}  // namespace rl::ui
