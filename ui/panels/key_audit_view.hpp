#pragma once
// KeyAuditView: the inspector's Audit tab. One press runs the key audit (the
// code of `ratelab-cli keys --audit`, on KeyAuditWorker's thread) over the
// inspector's prefix; the tab shows one row per prefix and library (keys, no
// TTL, long TTL, sampled memory, hottest client), the findings in words (keys
// without a TTL and TTLs far beyond their window named, the eviction warning,
// unknown keys, the checks that fail), and a histogram of the TTLs against
// each key's expected window for the selected row (every row when none is).
// Export report writes the audit as the page `ratelab-cli keys --audit
// --report` writes (core/report), with the same embedded document.

#include <QStringList>
#include <QWidget>

#include "common/result.hpp"
#include "keys/key_audit.hpp"

class QBarSet;
class QValueAxis;
class QLabel;
class QPushButton;
class QTextEdit;
class QTreeWidget;

namespace rl::ui {

/// See the file comment.
class KeyAuditView : public QWidget {
  Q_OBJECT
 public:
  explicit KeyAuditView(QWidget* parent = nullptr);
  /// Shows an audit's report.
  void showReport(const rl::KeyAuditReport& report, const QStringList& failed);
  /// Shows why the audit could not run.
  void showError(const QString& message);
  /// What the next report is of: the server (its URL; the password is never shown) and the prefix.
  void setSource(const QString& url, const QString& prefix);
  /// Writes the last audit's HTML report to `path` (.html or .htm); the error names what was wrong.
  Result<void> exportReport(const QString& path) const;
  /// The groups table (tests).
  QTreeWidget* groups() const { return groups_; }
  /// The findings in words (tests).
  QString findingsText() const;
  /// The histogram's counts, one per TtlBin (tests).
  QList<qreal> histogram() const;
  /// The status line (tests).
  QString statusText() const;

 signals:
  /// The user asked for an audit.
  void auditRequested();
  /// An audit's result or its error is on screen.
  void auditShown();

 private:
  void showHistogram();
  void exportReportAs();

  QPushButton* run_;
  QPushButton* export_;
  QLabel* status_;
  QTreeWidget* groups_;
  QTextEdit* findings_;
  QBarSet* bars_;
  QValueAxis* axisY_;
  rl::KeyAuditReport report_;
  QStringList failed_;       ///< the checks the shown audit fails
  QString url_;              ///< the server audited (setSource)
  QString prefix_;           ///< the prefix audited
  bool haveReport_ = false;  ///< an audit has been shown
};

}  // namespace rl::ui
